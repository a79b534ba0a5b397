// The dashboard end to end: a real sandbay (`startServer`, linux driver: sandboxes are real
// desktops) and Debian's Chromium driven by playwright-core through every page and flow: sign-in
// (a wrong key refused), live rates, reserve (a shortfall shown with nothing bought, the API's own
// message shown, a purchase with its key shown once), reservations (extend), a sandbox created, its
// live desktop shown and typed into through the live view, account settings (key shown, rotated),
// and the admin view on the admin listener. Screenshots of each page go to .test-output/dashboard/.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { pino } from 'pino';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expectValidAtif } from './support/atif.ts';
import { launchIsolatedChromium, type IsolatedBrowser } from './support/browser.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Rate, VM } from '../crds/index.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createLinuxDriver } from '../hosts/linux/index.ts';
import { buildDashboard } from '../scripts/build-dashboard.ts';
import { seedAccount, waitFor } from './api-harness.ts';

const SHOTS = join(import.meta.dirname, '..', '.test-output', 'dashboard');
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const CREDIT_CENTS = 10_000;

let dir: string;
let server: RunningServer;
let browser: Browser;
let isolated: IsolatedBrowser | undefined;
let context: BrowserContext;
let page: Page;
let key: string;
let sandboxId: string;

async function api(path: string, init: { method?: string; body?: unknown; key?: string } = {}) {
  const res = await fetch(`${server.url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${init.key ?? key}`,
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // bytes (a file)
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked field by field
  return { status: res.status, body: body as any, text };
}

async function shot(name: string, p: Page = page): Promise<void> {
  await p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

async function nav(label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: label }).click();
  await page.getByRole('heading', { level: 1 }).first().waitFor();
}

beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
  await buildDashboard();
  dir = await mkdtemp(join(tmpdir(), 'sandbay-dashboard-'));
  server = await startServer({
    dataDir: dir,
    port: 0,
    adminPort: 0,
    hostDriver: 'linux',
    logger: pino({ level: process.env.DASH_LOG ?? 'silent' }),
  });
  key = await seedAccount(server.store, 'dash', CREDIT_CENTS);
  await waitFor(
    async () => (await api('/v1/platforms')).body.models?.[0]?.available_minis > 0,
    'the local Mac to be for sale',
    60_000,
  );
  // In a network namespace of its own: VMs coming and going elsewhere do not fail its requests.
  isolated = await launchIsolatedChromium([server.url, server.adminUrl].map((u) => Number(new URL(u).port)));
  browser = isolated.browser;
  context = await browser.newContext({
    viewport: DESKTOP,
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  page = await context.newPage();
  page.on('dialog', (d) => void d.accept());
}, 180_000);

afterAll(async () => {
  await isolated?.close();
  await server?.close();
  if (dir) {
    const driver = createLinuxDriver({ dataDir: join(dir, 'linux'), discardOnClose: true });
    const host = driver.host({ name: 'local', address: '127.0.0.1', model: 'm4' });
    for (const vm of await host.listVms()) await host.deleteVm(vm.name);
    await driver.close();
    await rm(dir, { recursive: true, force: true });
  }
}, 120_000);

describe('the dashboard in a real browser', () => {
  it('refuses a wrong key at sign-in with one clear message and sets no cookie', async () => {
    const res = await page.goto(`${server.url}/dashboard`);
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    const input = page.getByLabel('Account key');
    await input.waitFor();
    // A malformed key never leaves the browser: the form's own validation stops it.
    await input.fill('not a key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.evaluate("document.getElementById('key').validity.patternMismatch")).toBe(true);
    // A well-formed wrong key reaches the API, whose one message is shown.
    await input.fill(`sbk_${'0'.repeat(32)}`);
    await input.press('Enter');
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('The key is invalid, revoked or expired.');
    expect(await context.cookies()).toEqual([]);
    await shot('01-sign-in-refused');
  });

  it('signs in from the keyboard and shows rates and availability, updated live', async () => {
    await page.getByLabel('Account key').fill(key);
    await page.keyboard.press('Enter');
    const m4 = page.locator('[data-testid=rates] tr[data-model=m4]');
    await m4.waitFor();
    expect(await m4.locator('[data-testid=available]').textContent()).toBe('1');
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: 'sandbay_session', httpOnly: true, sameSite: 'Strict' });
    expect(await page.evaluate('document.cookie')).toBe('');

    const before = await m4.locator('[data-testid=rate]').textContent();
    const changed = Date.now();
    await server.store.patch<Rate>({ kind: 'Rate', name: 'm4' }, { spec: { centsPerHour: 150 } });
    await m4.locator('[data-testid=rate]', { hasText: '$1.50' }).waitFor();
    console.log(`live rate: ${before} → $1.50 on the page ${Date.now() - changed} ms after the store write`);
    await shot('02-rates');
    await page.setViewportSize(PHONE);
    await shot('02-rates-phone');
    await page.setViewportSize(DESKTOP);
  });

  it('shows the total before paying; a shortfall buys nothing; the API message shows; then reserves', async () => {
    await nav('Reserve');
    await page.getByLabel('Hours (at least 24)').fill('1000');
    const shortfall = page.getByTestId('shortfall');
    await shortfall.waitFor();
    expect(await shortfall.textContent()).toContain('short by $1,400.00');
    expect(await page.getByRole('button', { name: /reserve/i }).isDisabled()).toBe(true);
    expect(await page.getByTestId('total').textContent()).toBe('$1,500.00');
    await shot('03-reserve-shortfall');
    expect((await api('/v1/reservations')).body).toEqual([]);

    // Past the browser's checks (as a script could go), the API refuses and its message is shown.
    await page.evaluate("document.querySelector('form').noValidate = true");
    await page.getByLabel('Hours (at least 24)').fill('2');
    await page.getByRole('button', { name: /reserve/i }).click();
    const apiError = page.getByTestId('api-error');
    await apiError.waitFor();
    const direct = await api('/v1/reservations', {
      method: 'POST',
      body: { hours: 2, mini_count: 1, mac_model: 'm4', vm_layout: 'split' },
    });
    expect(direct.status).toBe(400);
    expect(await apiError.textContent()).toBe(direct.body.message);
    await shot('03-reserve-api-error');
    expect((await api('/v1/reservations')).body).toEqual([]);

    await page.getByLabel('Hours (at least 24)').fill('24');
    expect(await page.getByTestId('total').textContent()).toBe('$36.00');
    expect(await page.getByTestId('credit-after').textContent()).toBe('$64.00');
    await page.getByRole('button', { name: 'Pay $36.00 and reserve' }).click();
    const shownKey = page.getByTestId('reservation-key');
    await shownKey.waitFor({ timeout: 30_000 });
    expect(await shownKey.textContent()).toMatch(/^sbk_[0-9A-Za-z]{32}$/);
    await expect.poll(() => page.getByTestId('credit').textContent()).toBe('$64.00');
    await shot('03-reserved');
  });

  it('lists the current reservation with its time left, and extends it', async () => {
    await nav('Reservations');
    const card = page.getByTestId('current-reservation');
    await card.waitFor();
    expect(await card.getByTestId('time-left').textContent()).toMatch(/^23 h \d+ min$|^1 d 0 h$/);
    await card.getByLabel('Add hours').fill('24');
    await card.getByRole('button', { name: 'Extend for $36.00' }).click();
    await expect.poll(async () => (await api('/v1/reservations')).body[0]?.hours).toBe(48);
    // The reconciler books the added hours in the ledger; the page shows the new total at once.
    await expect.poll(async () => (await api('/v1/me')).body.balance_cents).toBe(2800);
    await card.getByText('$72.00').waitFor();
    await shot('04-reservations');
  });

  it('creates a sandbox, shows its live desktop and types into it through the live view', async () => {
    // The Mac's pool clones its VMs in the background after start; a create before one is warm
    // is refused with 503 `no_warm_vm` (the page would show it): wait for a warm VM first.
    await waitFor(
      async () => (await server.store.list<VM>('VM')).items.some((vm) => vm.status?.phase === 'warm'),
      'a warm VM in the pool',
      60_000,
    );
    await nav('Sandboxes');
    await page.getByRole('button', { name: 'Create sandbox' }).click();
    await page.waitForURL(/\/dashboard\/sandboxes\/sb-[0-9a-f]{32}$/, { timeout: 90_000 });
    const id = /sb-[0-9a-f]{32}/.exec(page.url())![0];
    await page.getByTestId('vnc-status').filter({ hasText: 'connected' }).waitFor({ timeout: 30_000 });
    // The live view's WebSocket reached this host; the CSP refuses one to any other host (Chromium
    // reports the violation and never opens the socket, so no close event comes to wait on).
    await page.evaluate(`window.violations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.violations.push(e.effectiveDirective));
      try { new WebSocket('ws://127.0.0.2:9/'); } catch (e) { window.violations.push(e.name); }`);
    await expect.poll(() => page.evaluate('window.violations')).toEqual(['connect-src']);

    // A terminal in the VM that appends every line typed into it to ~/typed.txt.
    const on = (rest: string) => `/v1/sandboxes/${id}${rest}`;
    await api(on('/exec'), {
      method: 'POST',
      body: {
        command:
          '(setsid xterm -T dash-typer -geometry 60x12+380+260 -e sh -c \'while read line; do echo "$line" >> ~/typed.txt; done\' >/dev/null 2>&1 &)',
      },
    });
    const win = await waitFor(
      async () =>
        (
          (await api(on('/display/windows'))).body as {
            name: string;
            x: number;
            y: number;
            width: number;
            height: number;
          }[]
        ).find((w) => w.name === 'dash-typer'),
      'the xterm window',
      20_000,
    );
    const display = (await api(on('/display/info'))).body as { width: number };
    const canvas = page.locator('[data-testid=vnc-screen] canvas').first();
    const box = (await canvas.boundingBox())!;
    const scale = box.width / display.width;
    const center = { x: win.x + win.width / 2, y: win.y + win.height / 2 };
    await page.mouse.click(box.x + center.x * scale, box.y + center.y * scale);
    await waitFor(
      async () =>
        ((await api(on('/display/windows'))).body as { name: string; focused?: boolean }[]).some(
          (w) => w.name === 'dash-typer' && w.focused === true,
        ),
      'the xterm focused',
      10_000,
    );
    await page.keyboard.type('typed in the dashboard');
    await page.keyboard.press('Enter');
    await waitFor(
      async () => {
        const r = await api(on('/files?path=typed.txt'));
        return r.status === 200 && r.text === 'typed in the dashboard\n';
      },
      'the typed line in the VM',
      10_000,
    );
    await page.getByText('View only').click();
    await shot('05-live-view');

    sandboxId = id;
  }, 240_000);

  it('shows the account key copyable and rotates it, keeping the session', async () => {
    await nav('Account');
    const card = page.getByTestId('account-key');
    await card.getByRole('button', { name: 'Show' }).click();
    expect(await card.getByTestId('key-text').textContent()).toBe(key);
    await card.getByRole('button', { name: 'Copy key' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);
    await shot('06-account');
    await page.getByRole('button', { name: 'Rotate the account key' }).click();
    await page.getByTestId('rotated').waitFor();
    await page.getByTestId('account-key').getByRole('button', { name: 'Show' }).click();
    const fresh = await page.getByTestId('key-text').textContent();
    expect(fresh).toMatch(/^sbk_/);
    expect(fresh).not.toBe(key);
    expect((await api('/v1/me')).status).toBe(401);
    key = fresh!;
    expect((await api('/v1/me')).body.account).toBe('dash');
    await page.reload();
    await page.getByRole('heading', { name: 'Account settings' }).waitFor();
    await shot('06-account-rotated');
  });

  // A replay boots a sandbox, runs the setup and every step: the flow gets minutes, not the default minute.
  it('collects a task of several steps in the live view, lists it, downloads its ZIP, replays it with a reward', async () => {
    await nav('Tasks');
    await page.getByText('No task yet').waitFor();
    await page.getByLabel('Instruction').fill('Type hello into the terminal');
    await page.getByLabel(/^Setup script/).fill('echo ready > ~/setup.txt');
    await page.getByLabel(/^Grader/).fill('test -f ~/setup.txt');
    await page.getByRole('button', { name: 'Create task' }).click();
    await page.waitForURL(/\/dashboard\/tasks\/tk-[0-9a-f]+$/);
    const taskId = /tk-[0-9a-f]+$/.exec(page.url())![0];
    await shot('07-task-new');

    await page.getByLabel('Sandbox').selectOption(sandboxId);
    await page.getByRole('button', { name: 'Start recording' }).click();
    await page.getByTestId('vnc-status').filter({ hasText: 'connected' }).waitFor({ timeout: 60_000 });
    const on = (rest: string) => `/v1/sandboxes/${sandboxId}${rest}`;
    // The setup script ran (unrecorded) before recording began.
    expect((await api(on('/files?path=setup.txt'))).text).toBe('ready\n');
    const win = (
      (await api(on('/display/windows'))).body as {
        name: string;
        x: number;
        y: number;
        width: number;
        height: number;
      }[]
    ).find((w) => w.name === 'dash-typer')!;
    const display = (await api(on('/display/info'))).body as { width: number };
    const box = (await page.locator('[data-testid=vnc-screen] canvas').first().boundingBox())!;
    const scale = box.width / display.width;
    await page.mouse.click(box.x + (win.x + win.width / 2) * scale, box.y + (win.y + win.height / 2) * scale);
    await waitFor(
      async () =>
        ((await api(on('/display/windows'))).body as { name: string; focused?: boolean }[]).some(
          (w) => w.name === 'dash-typer' && w.focused === true,
        ),
      'the xterm focused',
      10_000,
    );
    await page.keyboard.type('hello');
    await page.keyboard.press('Enter');
    await waitFor(
      async () => (await api(on('/files?path=typed.txt'))).text.endsWith('hello\n'),
      'the typed line in the VM',
      10_000,
    );
    await expect
      .poll(async () => Number(await page.getByTestId('collected-steps').textContent()), { timeout: 15_000 })
      .toBeGreaterThanOrEqual(3);
    await shot('07-task-recording');
    await page.getByRole('button', { name: 'Stop recording and save' }).click();
    const steps = page.getByTestId('steps');
    await steps.waitFor({ timeout: 30_000 });
    // A click, "hello" (one `type` step, or several if the typing paused long enough under load), Return.
    const functions = await steps.locator('li strong').allTextContents();
    const args = await steps.locator('li code').allTextContents();
    expect(functions[0]).toBe('click');
    expect(functions.at(-1)).toBe('key');
    expect(args.at(-1)).toBe('{"key":"return"}');
    const typed = functions.flatMap((f, i) =>
      f === 'type' ? [(JSON.parse(args[i]!) as { text: string }).text] : [],
    );
    expect(typed.join('')).toBe('hello');
    expect(functions.slice(1, -1).every((f) => f === 'type')).toBe(true);
    await expect.poll(() => page.getByTestId('task-phase').textContent(), { timeout: 60_000 }).toBe('ready');
    await steps
      .locator('img')
      .first()
      .evaluate((img) => (img as unknown as { decode(): Promise<void> }).decode());
    await shot('07-task-detail');

    const downloading = page.waitForEvent('download');
    await page.getByTestId('download').click();
    const zip = await readFile((await (await downloading).path())!);
    const files = unzipSync(new Uint8Array(zip));
    expect(Object.keys(files)).toEqual(expect.arrayContaining(['trajectory.json', 'setup.sh']));
    const trajectory: unknown = JSON.parse(Buffer.from(files['trajectory.json']!).toString('utf8'));
    expectValidAtif(trajectory, Object.keys(files));
    expect(trajectory.steps.length).toBeGreaterThanOrEqual(3);

    await page.getByRole('button', { name: 'Replay this task' }).click();
    await expect
      .poll(() => page.getByTestId('replay-status').textContent(), { timeout: 180_000, interval: 1000 })
      .toBe('completed');
    expect(await page.getByTestId('replay-reward').textContent()).toBe('1');
    await shot('07-task-replayed');

    await nav('Tasks');
    const row = page.locator(`[data-testid=tasks] tr[data-id="${taskId}"]`);
    await row.waitFor();
    expect(await row.locator('td').nth(3).textContent()).toBe(String(functions.length));
    await shot('07-tasks');
  }, 240_000);

  it('deletes the sandbox from the list', async () => {
    await nav('Sandboxes');
    const row = page.locator(`[data-testid=sandboxes] tr[data-id="${sandboxId}"]`);
    await row.waitFor();
    await shot('05-sandboxes');
    await row.getByRole('button', { name: `Delete sandbox ${sandboxId}` }).click();
    await row.waitFor({ state: 'detached', timeout: 30_000 });
    expect((await api(`/v1/sandboxes/${sandboxId}`)).status).toBe(404);
  });

  it('reads at phone width: no page is wider than the screen (tables scroll inside their frame)', async () => {
    await page.setViewportSize(PHONE);
    for (const label of ['Rates', 'Reserve', 'Reservations', 'Sandboxes', 'Tasks', 'Account']) {
      await nav(label);
      await page.locator('.loading').waitFor({ state: 'detached' });
      expect(await page.evaluate('document.documentElement.scrollWidth'), label).toBeLessThanOrEqual(
        PHONE.width,
      );
      await shot(`09-phone-${label.toLowerCase()}`);
    }
    await page.setViewportSize(DESKTOP);
  });

  it('shows Macs, slots, sessions and accounts in the admin view on the admin listener', async () => {
    const admin = await context.newPage();
    await admin.goto(`${server.adminUrl}/admin/dashboard`);
    await admin.getByLabel('Admin key').fill((await readFile(server.adminKeyFile, 'utf8')).trim());
    await admin.keyboard.press('Enter');
    await admin.getByTestId('admin-macs').waitFor();
    await shot('08-admin-macs', admin);
    for (const view of ['Slots', 'Sessions', 'Accounts']) {
      await admin.getByRole('button', { name: new RegExp(`^${view}`) }).click();
      await admin.getByRole('heading', { name: view }).waitFor();
      await shot(`08-admin-${view.toLowerCase()}`, admin);
    }
    await admin
      .getByTestId('admin-accounts')
      .getByRole('cell', { name: 'dash', exact: true })
      .first()
      .waitFor();
    await admin.close();
  });
});
