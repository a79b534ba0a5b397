// The VNC and SSH WebSocket endpoints as plain HTTP routes: they document the endpoints in the
// OpenAPI description and answer 426 to a request that does not ask for the upgrade. The upgrade
// itself is served by api/ws/upgrade.ts before Fastify sees the request.
import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '../errors.ts';
import { SandboxParams, errorResponses } from '../schemas/common.ts';
import { SshCredentialsSchema } from '../schemas/sandboxes.ts';
import type { RouteOptions } from '../services/context.ts';
import { endpointOf } from '../services/guests.ts';
import { guestFor } from '../services/request.ts';
import { sshPath } from '../services/sandboxes.ts';

export const connectivityRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx }) => {
  const upgradeRequired = async () => {
    throw new ApiError('upgrade_required');
  };
  app.get(
    '/v1/sandboxes/:sandboxID/vnc',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'connectVnc',
        tags: ['connectivity'],
        summary:
          'VNC over WebSocket (101 upgrade); authorized by the viewer token in `?token=`, security type None',
        params: SandboxParams,
        querystring: Type.Object({
          token: Type.Optional(Type.String({ description: 'The viewer token (POST .../viewer-token).' })),
        }),
        security: [],
        response: {
          101: { description: 'Switching Protocols: RFB 3.8 follows.', type: 'null' },
          ...errorResponses(401, 404, 409, 426, 502),
        },
      },
    },
    upgradeRequired,
  );
  app.get(
    '/v1/sandboxes/:sandboxID/ssh',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'connectSsh',
        tags: ['connectivity'],
        summary:
          "SSH over WebSocket (101 upgrade): the VM's sshd, byte for byte; Bearer account or reservation key",
        params: SandboxParams,
        response: {
          101: { description: 'Switching Protocols: the SSH stream follows.', type: 'null' },
          ...errorResponses(401, 404, 409, 426, 502),
        },
      },
    },
    upgradeRequired,
  );

  app.get(
    '/v1/sandboxes/:sandboxID/ssh/credentials',
    {
      schema: {
        operationId: 'getSshCredentials',
        tags: ['connectivity'],
        summary: "The VM's SSH login (user and private key) for a client speaking SSH through the WebSocket",
        params: SandboxParams,
        response: { 200: SshCredentialsSchema, ...errorResponses(400, 401, 404, 409, 502) },
      },
    },
    async (request) => {
      const guest = await guestFor(ctx, request);
      const { username, privateKey } = await endpointOf('SSH', () => guest.ssh());
      const { sandboxID } = request.params;
      return { ssh_url: sshPath(sandboxID), username, private_key: privateKey };
    },
  );
};
