// The OpenAPI 3.1 description, generated from the route schemas by @fastify/swagger, served at
// /openapi.json, with a docs page (Swagger UI) at /docs. Both are public: they hold no secrets.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/** The API description version (spec, Versioning). */
export const API_DESCRIPTION_VERSION = '0.2.0';

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'sandbay customer API',
        version: API_DESCRIPTION_VERSION,
        description:
          'Computer-use sandboxes (VMs on reserved Macs): reservations, sandbox lifecycle, mouse, keyboard, ' +
          'screenshots, recordings, files, shell, snapshots, clipboard, live VNC, SSH, exec streams and forwarded ports over WebSocket, ' +
          "and Cua's computer-server protocol per sandbox (`/v1/sandboxes/{id}/cua/ws` and `/cua/cmd`). " +
          'Every error is JSON `{error, message}`; see docs/api.md for every decision the spec leaves open.',
      },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearerAuth: [] }],
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list' },
    staticCSP: true,
  });
}

/** Adds GET /openapi.json (after the routes, so the document holds them all). */
export function openApiRoute(app: FastifyInstance): void {
  app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () => app.swagger());
}
