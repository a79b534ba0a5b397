// The front door: `GET /` on the customer listener is a small page that says what this server is and
// where to go next (the API reference, the OpenAPI document, the live view, the dashboard once one is
// served). Public and the same for everyone: it reveals nothing about accounts or sandboxes.
import type { FastifyPluginAsync } from 'fastify';

/** Where a dashboard would be served; linked only when a route answers there. */
const DASHBOARD_PATH = '/dashboard';

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1d2430}
h1{margin-bottom:0}p.lead{margin-top:.25rem;color:#4a5568}code{background:#f1f3f6;padding:0 .25em;border-radius:3px}
pre{background:#f1f3f6;padding:.75rem;overflow-x:auto}li{margin:.25rem 0}`;

function page(dashboard: boolean): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>sandbay</title><meta name="viewport" content="width=device-width,initial-scale=1">
<style>${STYLE}</style></head>
<body>
<h1>sandbay</h1>
<p class="lead">A control plane for computer-use sandboxes: desktops (macOS VMs on Mac minis; here, Linux
desktops on this machine) leased to AI agents and people through an HTTP API.</p>
<h2>Where to go</h2>
<ul>
<li><a href="/docs">API reference</a> (browsable), and the same as <a href="/openapi.json">OpenAPI 3.1 JSON</a>.</li>
<li><a href="#live-view">Live view</a>: watch and steer a sandbox from a browser.</li>
${dashboard ? `<li><a href="${DASHBOARD_PATH}">Dashboard</a>.</li>\n` : ''}<li><a href="/health">Health</a> of this server.</li>
</ul>
<h2>Getting started</h2>
<p>Every <code>/v1</code> call takes an account key: <code>Authorization: Bearer sbk_…</code>. An operator creates
accounts with the admin key (<code>sandbay accounts create NAME</code>). Then reserve a Mac
(<code>POST /v1/reservations</code>), create a sandbox in it (<code>POST /v1/sandboxes</code>), and drive it:
screenshots, mouse, keyboard, shell, files, recordings, the accessibility tree.</p>
<h2 id="live-view">Live view</h2>
<p>A viewer link opens a sandbox's screen in the browser, no key needed: the link carries a short-lived token.</p>
<pre>curl -s -X POST /v1/sandboxes/SANDBOX_ID/viewer-token -H "Authorization: Bearer $KEY"
# then open  /view/SANDBOX_ID?token=TOKEN</pre>
<p>Any RFB-over-WebSocket client can open the <code>vnc_url</code> of that answer directly.</p>
</body>
</html>
`;
}

export const frontPage: FastifyPluginAsync = async (app) => {
  app.get('/', { config: { auth: 'public' as const }, schema: { hide: true } }, (_request, reply) => {
    const dashboard = app.hasRoute({ method: 'GET', url: DASHBOARD_PATH });
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .send(page(dashboard));
  });
};
