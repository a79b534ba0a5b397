// The VNC, SSH, Cua and exec-stream WebSocket endpoints as plain HTTP routes: they document the
// endpoints in the OpenAPI description and answer 426 to a request that does not ask for the
// upgrade. The upgrade itself is served by api/ws/upgrade.ts before Fastify sees the request.
import Type, { type TObject } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '../errors.ts';
import { SandboxParams, errorResponses } from '../schemas/common.ts';
import { SshCredentialsSchema } from '../schemas/sandboxes.ts';

/** The exec-stream WebSocket's query (read by api/ws/exec-stream.ts; documented here). */
const ExecStreamQuery = Type.Object(
  {
    command: Type.String({
      description:
        'The shell command line (as POST …/exec takes it). Repeated, an argv: each word is quoted, as kubectl sends one.',
    }),
    tty: Type.Optional(
      Type.Boolean({ description: 'Run under a pseudo-terminal (stderr joins stdout). Default false.' }),
    ),
    stdin: Type.Optional(
      Type.Boolean({
        description:
          "Keep the command's stdin open for channel-0 frames. Default false: it is closed at once.",
      }),
    ),
    cols: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, description: 'Terminal columns (tty). Default 80.' }),
    ),
    rows: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, description: 'Terminal rows (tty). Default 24.' }),
    ),
    timeout: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 86_400,
        description:
          'Seconds until the command is killed (exit 124). Default: none (it runs until it exits or the socket closes).',
      }),
    ),
  },
  { additionalProperties: true },
);
import type { App, RouteOptions } from '../services/context.ts';
import { endpointOf } from '../services/guests.ts';
import { guestFor } from '../services/request.ts';
import { sshPath } from '../services/sandboxes.ts';
import { parseExecQuery } from '../ws/exec-stream.ts';

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
    '/v1/sandboxes/:sandboxID/exec/stream',
    {
      schema: {
        operationId: 'execStream',
        tags: ['shell'],
        summary:
          "A command's stdin, stdout and stderr over WebSocket (101 upgrade), Kubernetes' exec channel protocol (v5.channel.k8s.io); optional pty with resize; the exit code in the last frame. Bearer account or reservation key",
        params: SandboxParams,
        querystring: ExecStreamQuery,
        response: {
          101: {
            description:
              'Switching Protocols: binary frames, one channel byte then data (0 stdin, 1 stdout, 2 stderr, 3 status JSON, 4 resize, 255 close); docs/api.md.',
            type: 'null',
          },
          ...errorResponses(400, 401, 404, 409, 426, 429, 501, 502, 504),
        },
      },
    },
    // Without the upgrade: the same checks as the upgrade's, then 426. A client whose WebSocket was
    // refused (a browser's, which sees no status) asks this way to learn why.
    async (request) => {
      const guest = await guestFor(ctx, request);
      parseExecQuery(new URL(request.url, 'http://sandbay'));
      if (!guest.execStream)
        throw new ApiError('feature_not_supported', "This sandbox's host driver has no streaming exec.");
      throw new ApiError('upgrade_required');
    },
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
