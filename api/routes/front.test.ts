// The front door on its own Fastify app: what `GET /` says and links, and the dashboard link that
// appears only once a dashboard is served.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { frontPage } from './front.ts';

async function front(withDashboard: boolean) {
  const app = Fastify({ logger: false });
  await app.register(frontPage);
  if (withDashboard) app.get('/dashboard', () => 'dashboard');
  const res = await app.inject({ method: 'GET', url: '/' });
  await app.close();
  return res;
}

describe('the front page', () => {
  it('says what this server is and links the docs, the OpenAPI document and the live view', async () => {
    const res = await front(false);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('control plane for computer-use sandboxes');
    for (const link of ['/docs', '/openapi.json', '#live-view', '/health'])
      expect(res.body).toContain(`href="${link}"`);
    expect(res.body).toContain('/view/SANDBOX_ID?token=TOKEN');
    expect(res.body).not.toContain('href="/dashboard"');
  });

  it('links the dashboard once one is served', async () => {
    expect((await front(true)).body).toContain('href="/dashboard"');
  });
});
