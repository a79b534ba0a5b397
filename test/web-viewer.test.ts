// The browser live view end to end: a real sandbay (`startServer`, linux driver: the VM is a real
// desktop) and headless Chromium opening `/view/<id>?token=…`, the page the docs derive from a
// `vnc_url`. The page must show the VM's screen, turn clicks and keystrokes on its canvas into the
// VM's own pointer and keyboard input, honour view-only, and say why it disconnected.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { type Browser, type Page } from 'playwright-core';
import { launchIsolatedChromium, type IsolatedBrowser } from './support/browser.ts';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { SANDBOX_ID_BODY, type Reservation, type Sandbox } from '../crds/index.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { loadViewerSecret, VIEWER_TOKEN_TTL_MS, ViewerTokens } from '../api/viewer-token.ts';
import { createLinuxDriver } from '../hosts/linux/index.ts';
import { systemClock, type Clock } from '../operator/runtime/clock.ts';
import { seedAccount, waitFor } from './api-harness.ts';

const ACCOUNT = 'viewer';
/** The browser window: smaller than the VM's 1280×800, so the page has to scale the screen down. */
const VIEWPORT = { width: 1000, height: 700 };

let dir: string;
let server: RunningServer;
let browser: Browser;
let isolated: IsolatedBrowser | undefined;
let key: string;
let sb: string;
/** How far the customer API's clock runs ahead of the wall clock (moved by the expiry test). */
let clockShiftMs = 0;
const shiftedClock: Clock = {
  now: () => Date.now() + clockShiftMs,
  setTimer: (delayMs, fn, opts) => systemClock.setTimer(delayMs, fn, opts),
};

interface Reply {
  status: number;
  body: Buffer;
}

async function api(method: string, path: string, body?: unknown): Promise<Reply> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked field by field
const json = (r: Reply): any => JSON.parse(r.body.toString('utf8'));
const on = (rest: string) => `/v1/sandboxes/${sb}${rest}`;

/** The live view of a `vnc_url`, by the rule docs/live-view.md gives. */
function liveViewUrl(vncUrl: string): string {
  const m = new RegExp(`^/v1/sandboxes/(${SANDBOX_ID_BODY})/vnc\\?token=([^&]+)$`).exec(vncUrl);
  if (!m) throw new Error(`not a vnc_url: ${vncUrl}`);
  return `${server.url}/view/${m[1]}?token=${m[2]}`;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandbay-web-viewer-'));
  server = await startServer({
    dataDir: dir,
    port: 0,
    adminPort: 0,
    hostDriver: 'linux',
    logger: pino({ level: 'silent' }),
    clock: shiftedClock,
  });
  key = await seedAccount(server.store, ACCOUNT, 100_000_000);
  await waitFor(
    async () => json(await api('GET', '/v1/platforms')).models[0]?.available_minis > 0,
    'the local Mac to be for sale',
    60_000,
  );
  const reserved = await api('POST', '/v1/reservations', {
    hours: 24,
    mini_count: 1,
    mac_model: 'm4',
    vm_layout: 'split',
  });
  expect(json(reserved).status, reserved.body.toString()).toBe('active');
  const created = await waitFor(
    async () => {
      const r = await api('POST', '/v1/sandboxes', {});
      return r.status === 201 ? json(r) : undefined;
    },
    'a sandbox',
    60_000,
  );
  sb = created.sandbox_id;
  // In a network namespace of its own: VMs coming and going elsewhere do not fail its requests.
  isolated = await launchIsolatedChromium([Number(new URL(server.url).port)]);
  browser = isolated.browser;
}, 180_000);

afterAll(async () => {
  await isolated?.close();
  await server?.close();
  // startServer's driver only powers VMs off; a driver on the same data dir adopts and deletes them
  // (their users, mounts and cgroups), so nothing outlives the temp dir.
  if (dir) {
    const driver = createLinuxDriver({ dataDir: join(dir, 'linux'), discardOnClose: true });
    const host = driver.host({ name: 'local', address: '127.0.0.1', model: 'm4' });
    for (const vm of await host.listVms()) await host.deleteVm(vm.name);
    await driver.close();
    await rm(dir, { recursive: true, force: true });
  }
}, 120_000);

/** What each page did (loads, sockets, console, errors), for the message of a wait that failed. */
const pageEvents = new WeakMap<Page, string[]>();

/** A page that records Content-Security-Policy violations (the policy must not break noVNC). */
async function openPage(): Promise<{ page: Page; cspViolations: string[] }> {
  const page = await browser.newPage({ viewport: VIEWPORT });
  const cspViolations: string[] = [];
  const events: string[] = [];
  pageEvents.set(page, events);
  const at = () => `${(performance.now() / 1000).toFixed(1)}s`;
  page.on('console', (msg) => {
    if (msg.text().includes('Content Security Policy')) cspViolations.push(msg.text());
    events.push(`${at()} console.${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => events.push(`${at()} pageerror: ${err.message}`));
  page.on('requestfailed', (r) => events.push(`${at()} failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('requestfinished', (r) => events.push(`${at()} loaded: ${new URL(r.url()).pathname}`));
  page.on('websocket', (ws) => {
    events.push(`${at()} websocket: ${new URL(ws.url()).pathname}`);
    ws.on('close', () => events.push(`${at()} websocket closed`));
    ws.on('socketerror', (e) => events.push(`${at()} websocket error: ${e}`));
  });
  return { page, cspViolations };
}

/** The tag of the element that has the keyboard (a string: this file is not compiled with DOM types). */
async function focusedTag(page: Page): Promise<unknown> {
  return page.evaluate('document.activeElement && document.activeElement.tagName');
}

async function statusOf(page: Page): Promise<{ state: string | null; text: string }> {
  const status = page.locator('#status');
  return { state: await status.getAttribute('data-state'), text: (await status.textContent()) ?? '' };
}

async function waitForState(page: Page, state: string, timeoutMs = 20_000): Promise<string> {
  try {
    await page.locator(`#status[data-state="${state}"]`).waitFor({ timeout: timeoutMs });
  } catch (err) {
    const now = await statusOf(page).catch(() => undefined);
    const events = (pageEvents.get(page) ?? []).slice(-40).join('\n');
    throw new Error(
      `the page did not become ${state}; its status: ${JSON.stringify(now)}; at ${(performance.now() / 1000).toFixed(1)}s, after:\n${events}`,
      { cause: err },
    );
  }
  return (await statusOf(page)).text;
}

/** The remote screen's canvas: where it is on the page and its scale (CSS px per VM px). */
async function canvasBox(page: Page, vmWidth: number) {
  const box = await page.locator('#screen canvas').first().boundingBox();
  if (!box) throw new Error('no canvas on the page');
  return { ...box, scale: box.width / vmWidth };
}

/** Share of the canvas's pixels (in a page screenshot) that are not black. */
async function nonBlackShare(png: Buffer, box: { x: number; y: number; width: number; height: number }) {
  const { data, info } = await sharp(png)
    .extract({
      left: Math.ceil(box.x),
      top: Math.ceil(box.y),
      width: Math.floor(box.width) - 1,
      height: Math.floor(box.height) - 1,
    })
    .raw()
    .toBuffer({ resolveWithObject: true });
  let lit = 0;
  for (let i = 0; i < data.length; i += info.channels) {
    if (data[i]! + data[i + 1]! + data[i + 2]! > 48) lit++;
  }
  return lit / (info.width * info.height);
}

/** Mean brightness (0–255) of one pixel of a page screenshot. */
async function brightnessAt(png: Buffer, x: number, y: number): Promise<number> {
  const { data } = await sharp(png)
    .extract({ left: Math.round(x), top: Math.round(y), width: 1, height: 1 })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return (data[0]! + data[1]! + data[2]!) / 3;
}

describe('the live view of a sandbox', () => {
  it('shows the desktop from the vnc_url alone and steers the VM with mouse and keyboard', async () => {
    const minted = json(await api('POST', on('/viewer-token')));
    expect(minted.vnc_url).toBe(`/v1/sandboxes/${sb}/vnc?token=${minted.token}`);
    const display = json(await api('GET', on('/display/info')));
    // A terminal that appends every line typed into it to ~/typed.txt.
    await api('POST', on('/exec'), {
      command:
        '(setsid xterm -T viewer-typer -geometry 60x12+380+260 -e sh -c \'while read line; do echo "$line" >> ~/typed.txt; done\' >/dev/null 2>&1 &)',
    });
    const win = await waitFor(
      async () =>
        (
          json(await api('GET', on('/display/windows'))) as {
            name: string;
            x: number;
            y: number;
            width: number;
            height: number;
          }[]
        ).find((w) => w.name === 'viewer-typer'),
      'the xterm window',
      20_000,
    );

    const { page, cspViolations } = await openPage();
    const response = await page.goto(liveViewUrl(minted.vnc_url));
    expect(response?.headers()['referrer-policy']).toBe('no-referrer');
    expect(await waitForState(page, 'connected')).toBe('connected');
    expect(await page.locator('#sandbox').textContent()).toBe(sb);

    // Scaled to fit: the whole 1280×800 screen inside the window below the status bar.
    const box = await canvasBox(page, display.width);
    expect(box.scale).toBeLessThan(1);
    expect(box.width).toBeLessThanOrEqual(VIEWPORT.width);
    expect(box.y + box.height).toBeLessThanOrEqual(VIEWPORT.height + 0.5);
    expect(box.height / box.width).toBeCloseTo(display.height / display.width, 2);

    // The xterm (white) shows where the VM has it, through the scaling.
    const center = { x: win.x + Math.round(win.width / 2), y: win.y + Math.round(win.height / 2) };
    const onPage = { x: box.x + center.x * box.scale, y: box.y + center.y * box.scale };
    const shot = await waitFor(
      async () => {
        const png = await page.screenshot();
        return (await brightnessAt(png, onPage.x, onPage.y)) > 200 ? png : undefined;
      },
      'the xterm on the canvas',
      20_000,
    );
    expect(await nonBlackShare(shot, box)).toBeGreaterThan(0.03);
    if (process.env.SANDBAY_VIEWER_SCREENSHOT) await writeFile(process.env.SANDBAY_VIEWER_SCREENSHOT, shot);

    // A click on the canvas puts the VM's pointer at the mapped point and focuses the xterm.
    await page.mouse.click(onPage.x, onPage.y);
    await waitFor(
      async () => {
        const pos = json(await api('GET', on('/mouse/position')));
        return Math.abs(pos.x - center.x) <= 2 && Math.abs(pos.y - center.y) <= 2;
      },
      `the VM pointer at ${center.x},${center.y}`,
      10_000,
    );
    // The pointer arriving is not the focus arriving: keys typed before the window manager has
    // focused the xterm are lost.
    await waitFor(
      async () =>
        (json(await api('GET', on('/display/windows'))) as { name: string; focused?: boolean }[]).some(
          (w) => w.name === 'viewer-typer' && w.focused === true,
        ),
      'the xterm focused',
      10_000,
    );
    await page.keyboard.type('typed in the browser');
    await page.keyboard.press('Enter');
    const typed = async () => {
      const r = await api('GET', on('/files?path=typed.txt'));
      return r.status === 200 ? r.body.toString('utf8') : '';
    };
    await waitFor(async () => (await typed()) === 'typed in the browser\n', 'the typed line', 10_000);

    // View only: neither a click elsewhere nor keystrokes reach the VM. The keys typed after leaving
    // view-only travel on the same socket, so once they have arrived, anything sent before them has too.
    await page.locator('#view-only').check();
    expect(await focusedTag(page)).toBe('CANVAS');
    await page.mouse.click(box.x + 20, box.y + 20);
    await page.keyboard.type('VIEWONLY');
    await page.locator('#view-only').uncheck();
    expect(await focusedTag(page)).toBe('CANVAS');
    await page.keyboard.type('after');
    await page.keyboard.press('Enter');
    const lines = await waitFor(
      async () => {
        const text = await typed();
        return text.split('\n').length > 2 ? text : undefined;
      },
      // A view-only click that reached the VM would have taken the focus from the xterm.
      'the line typed after view-only, in the still focused xterm',
      10_000,
    );
    expect(lines).toBe('typed in the browser\nafter\n');
    const pos = json(await api('GET', on('/mouse/position')));
    expect(Math.abs(pos.x - center.x) <= 2 && Math.abs(pos.y - center.y) <= 2, JSON.stringify(pos)).toBe(
      true,
    );

    expect(cspViolations).toEqual([]);
    await page.close();
  }, 120_000);

  it('says it could not connect when the token is garbage; view_only=1 presets the toggle', async () => {
    const { page, cspViolations } = await openPage();
    await page.goto(`${server.url}/view/${sb}?token=garbage&view_only=1`);
    const text = await waitForState(page, 'disconnected');
    expect(text).toContain('could not connect');
    expect(await page.locator('#view-only').isChecked()).toBe(true);
    expect(await page.locator('#reconnect').isVisible()).toBe(true);
    expect(cspViolations).toEqual([]);
    await page.close();
  }, 60_000);

  it('says so when the link has no token, without trying to connect', async () => {
    const { page } = await openPage();
    const sockets: string[] = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    await page.goto(`${server.url}/view/${sb}`);
    expect(await waitForState(page, 'disconnected')).toContain('no viewer token');
    expect(sockets).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows that the link expired when the server ends the session with 4001; reconnect tries again', async () => {
    // A genuine viewer token of this server, minted so that it expires 2 min from now (the page
    // connects long before, however loaded the machine). Once connected, the customer API's clock
    // is moved past the expiry: the server's recheck ends the session with 4001 within a second,
    // and the link is refused from then on.
    const sandbox = await server.store.get<Sandbox>({ kind: 'Sandbox', namespace: ACCOUNT, name: sb });
    const reservation = await server.store.get<Reservation>({
      kind: 'Reservation',
      namespace: ACCOUNT,
      name: sandbox!.spec.reservation!,
    });
    const tokens = new ViewerTokens(await loadViewerSecret(dir));
    const short = tokens.mint(sandbox!, reservation!, Date.now() - VIEWER_TOKEN_TTL_MS + 120_000);

    const { page } = await openPage();
    await page.goto(liveViewUrl(short.vncUrl));
    await waitForState(page, 'connected');
    clockShiftMs = short.expiresAt.getTime() - Date.now();
    onTestFinished(() => {
      clockShiftMs = 0; // the later tests' server time is the machine's again
    });
    const text = await waitForState(page, 'disconnected');
    expect(text).toContain('the link has expired');
    expect(text).toContain('4001');
    expect(await page.locator('#screen canvas').count()).toBe(0);
    // Reconnecting with the expired link opens a new socket, which the server refuses.
    const sockets: string[] = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    await page.locator('#reconnect').click();
    expect(await waitForState(page, 'disconnected')).toContain('could not connect');
    expect(sockets).toHaveLength(1);
    await page.close();
  }, 60_000);
});
