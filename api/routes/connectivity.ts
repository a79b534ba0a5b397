// The VNC and SSH WebSocket endpoints as plain HTTP routes: they document the endpoints in the
// OpenAPI description and answer 426 to a request that does not ask for the upgrade. The upgrade
// itself is served by api/ws/upgrade.ts before Fastify sees the request.
import Type, { type TObject } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '../errors.ts';
import { SandboxParams, errorResponses } from '../schemas/common.ts';
import { SshCredentialsSchema } from '../schemas/sandboxes.ts';
import type { App, RouteOptions } from '../services/context.ts';
import { endpointOf } from '../services/guests.ts';
import { guestFor } from '../services/request.ts';
import { sshPath } from '../services/sandboxes.ts';

/**
 * A WebSocket endpoint as a plain HTTP route: documented in the OpenAPI description (its 101 and its
 * refusals), answering 426 to a request without the upgrade. api/ws/upgrade.ts serves the upgrade.
 */
export function webSocketEndpoint(
  app: App,
  path: string,
  doc: { operationId: string; tags: string[]; summary: string; upgraded: string; errors: number[] },
  querystring?: TObject,
): void {
  app.get(
    path,
    {
      config: { auth: 'public' },
      schema: {
        operationId: doc.operationId,
        tags: doc.tags,
        summary: doc.summary,
        params: SandboxParams,
        ...(querystring && { querystring, security: [] }),
        response: {
          101: { description: `Switching Protocols: ${doc.upgraded}`, type: 'null' },
          ...errorResponses(...doc.errors),
        },
      },
    },
    async () => {
      throw new ApiError('upgrade_required');
    },
  );
}

export const connectivityRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx }) => {
  webSocketEndpoint(
    app,
    '/v1/sandboxes/:sandboxID/vnc',
    {
      operationId: 'connectVnc',
      tags: ['connectivity'],
      summary:
        'VNC over WebSocket (101 upgrade); authorized by the viewer token in `?token=`, security type None',
      upgraded: 'RFB 3.8 follows.',
      errors: [401, 404, 409, 426, 502],
    },
    Type.Object({
      token: Type.Optional(Type.String({ description: 'The viewer token (POST .../viewer-token).' })),
    }),
  );
  webSocketEndpoint(app, '/v1/sandboxes/:sandboxID/ssh', {
    operationId: 'connectSsh',
    tags: ['connectivity'],
    summary:
      "SSH over WebSocket (101 upgrade): the VM's sshd, byte for byte; Bearer account or reservation key",
    upgraded: 'the SSH stream follows.',
    errors: [401, 404, 409, 426, 502],
  });

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
