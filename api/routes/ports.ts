// Forwarded ports over HTTP: `/v1/sandboxes/{id}/ports/{port}/<path>` is `<path>` on the server
// listening on 127.0.0.1:<port> inside the sandbox (Orchard's port-forward, E2B's get_host),
// authorized like the viewer link (api/services/port-access.ts). The body is never parsed: it is
// streamed to the guest as it comes, and the guest's answer streamed back. WebSocket upgrades of the
// same paths are served by api/ws/port-websocket.ts before Fastify sees them.
import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import { errorResponses } from '../schemas/common.ts';
import { SandboxIdSchema } from '../schemas/common.ts';
import type { RouteOptions } from '../services/context.ts';
import { guestOf } from '../services/guests.ts';
import {
  authorizePort,
  clientHeaders,
  parsePort,
  portPrefix,
  TOKEN_PARAM,
  upstreamHeaders,
  upstreamPath,
} from '../services/port-access.ts';
import { forwardHttp } from '../services/port-forward.ts';

// HEAD is Fastify's own route beside GET (the handler sees the method and forwards it).
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

const PortParams = Type.Object({
  sandboxID: { ...SandboxIdSchema, description: 'The sandbox id (`sb-` and 32 hex digits).' },
  port: Type.String({ description: 'A TCP port of the sandbox, 1–65535 (400 `invalid_port` otherwise).' }),
  '*': Type.Optional(Type.String({ description: 'The path on the server in the sandbox.' })),
});
const PortQuery = Type.Object(
  {
    [TOKEN_PARAM]: Type.Optional(
      Type.String({
        description:
          'A viewer token (POST …/viewer-token): authorizes the request and is kept in a cookie for the port; removed before forwarding. Or send the key as `Authorization: Bearer`.',
      }),
    ),
  },
  { additionalProperties: true },
);

export const portRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx }) => {
  // Bodies are the guest server's business: streamed as they come, whatever their type or size.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    const { sandboxID, port: portText } = request.params as { sandboxID: string; port: string };
    const port = parsePort(portText);
    const prefix = portPrefix(sandboxID, port);
    const url = new URL(request.raw.url ?? '/', 'http://sandbay');
    const secure = request.protocol === 'https';
    const grant = await authorizePort(ctx, request.raw, sandboxID, port, url, secure);
    void ctx.activity.touch(grant.sandbox.metadata.namespace!, grant.sandbox.metadata.name);
    if (grant.setCookie) reply.header('set-cookie', grant.setCookie);
    // The port's root without its slash: a browser resolves relative links against the parent, so
    // it is sent to the slashed path (and the token, now in the cookie, leaves the address bar).
    if (url.pathname === prefix && (request.method === 'GET' || request.method === 'HEAD')) {
      url.searchParams.delete(TOKEN_PARAM);
      return reply.redirect(`${prefix}/${url.search}`, 308);
    }
    const guest = await guestOf(ctx, grant.sandbox);
    if (!guest.forwardPort) {
      throw new ApiError('feature_not_supported', "This sandbox's host driver forwards no ports.");
    }
    const conn = await guest.forwardPort(port);
    const headers = upstreamHeaders(request.raw, grant, port, prefix, { secure });
    const { response, body } = await forwardHttp(
      conn,
      request.raw,
      upstreamPath(request.raw.url ?? '/', prefix),
      headers,
      port,
    );
    const out = clientHeaders(response.headers, port, prefix);
    if (grant.setCookie) out['set-cookie'] = [...[out['set-cookie'] ?? []].flat(), grant.setCookie];
    return reply
      .code(response.statusCode ?? 502)
      .headers(out)
      .send(body);
  };

  const schema = (operationId: string, summary: string, hide: boolean) => ({
    operationId,
    tags: ['connectivity'],
    summary,
    params: PortParams,
    querystring: PortQuery,
    security: [],
    ...(hide && { hide: true }),
    response: {
      200: {
        description:
          "The guest server's answer, status, headers and body as it sent them (a redirect to its own root kept under the port's path; its cookies scoped to it).",
        type: 'null',
      },
      ...errorResponses(400, 401, 404, 409, 501, 502, 504),
    },
  });
  for (const method of METHODS) {
    const documented = method === 'GET';
    app.route({
      method,
      url: '/v1/sandboxes/:sandboxID/ports/:port/*',
      config: { auth: 'public' },
      schema: schema(
        documented ? 'forwardPort' : `forwardPort${method[0]}${method.slice(1).toLowerCase()}`,
        'HTTP (and WebSocket) to 127.0.0.1:<port> inside the sandbox: any method, path and body; authorized like the viewer link',
        !documented,
      ),
      handler: forward,
    });
    app.route({
      method,
      url: '/v1/sandboxes/:sandboxID/ports/:port',
      config: { auth: 'public' },
      schema: schema(
        `forwardPortRoot${method}`,
        'The port root: GET and HEAD redirect to the path with a slash',
        true,
      ),
      handler: forward,
    });
  }
};
