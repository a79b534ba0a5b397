// The tart driver's guest on an emulated Mac: exec through the Mac as jump host, and screen and
// input over the persistent RFB session to the VM's VNC server tunnelled through the Mac's SSH.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../test/support/wait.ts';
import { downAll, upMacs } from '../../test/support/emulated-mac/macs.ts';
import type { Driver, Guest } from '../driver.ts';
import { writeCredentials } from './credentials.ts';
import { createTartDriver } from './index.ts';

const root = mkdtempSync(join(tmpdir(), 'sandbay-tart-guest-'));
chmodSync(root, 0o755);
let driver: Driver;
let guest: Guest;

beforeAll(async () => {
  const fleet = await upMacs(join(root, 'macs'), 1);
  const mac = fleet.macs[0]!;
  writeCredentials(join(root, 'data'), 'g', { username: 'root', privateKey: fleet.privateKey });
  driver = createTartDriver({ dataDir: join(root, 'data') });
  const host = driver.host({ name: 'g', address: mac.address, model: 'm4', credentialsRef: 'g' });
  await host.createVm({ name: 'vm', image: 'base-macos-26', cpu: 2, memoryGiB: 4 });
  await host.startVm('vm');
  guest = host.guest('vm');
});

afterAll(async () => {
  await driver?.close();
  await downAll(join(root, 'macs'));
  rmSync(root, { recursive: true, force: true });
});

describe('tart guest on an emulated Mac', () => {
  it('runs commands as the guest user through the Mac', async () => {
    const r = await guest.exec('id -un');
    expect(r).toEqual({ stdout: 'admin\n', stderr: '', return_code: 0, timed_out: false });
    expect(await guest.exec('sleep 5', { timeoutMs: 200 })).toMatchObject({
      return_code: 124,
      timed_out: true,
    });
  });

  it('takes screenshots from the framebuffer: full PNG, region, JPEG, scaled', async () => {
    await guest.exec('(xterm -T red -bg "#ff0000" -geometry 40x10+300+300 >/dev/null 2>&1 &)');
    await waitFor(
      async () => (await guest.exec('xdotool search --name "^red$"')).return_code === 0,
      'the red window',
      20_000,
    );
    // The pixel at (400, 400), inside the red window, once it is drawn.
    const pixel = async () => {
      const png = await guest.screenshot();
      expect(await sharp(png).metadata()).toMatchObject({ format: 'png', width: 1280, height: 800 });
      const { data } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
      const at = (400 * 1280 + 400) * 3;
      return [...data.subarray(at, at + 3)].join(',');
    };
    await waitFor(async () => (await pixel()) === '255,0,0', 'red at (400, 400) in the screenshot', 20_000);
    const jpeg = await guest.screenshot({
      region: { x: 10, y: 20, width: 100, height: 50 },
      format: 'jpeg',
      quality: 50,
      scale: 0.5,
    });
    expect(await sharp(jpeg).metadata()).toMatchObject({ format: 'jpeg', width: 50, height: 25 });
  });

  it('types and clicks over RFB into an X window', async () => {
    await guest.exec(
      'rm -f typed.txt; (LANG=C.UTF-8 xterm -u8 -T typer -geometry 80x10+0+0 -e sh -c "cat > typed.txt" >/dev/null 2>&1 &)',
    );
    await waitFor(
      async () => (await guest.exec('xdotool search --class xterm')).return_code === 0,
      'the xterm window',
      20_000,
    );
    await guest.click(100, 50);
    await waitFor(
      async () => (await guest.exec('xdotool getwindowfocus getwindowname')).stdout === 'typer\n',
      'the xterm focused',
      20_000,
    );
    await guest.type('hello é\n');
    await waitFor(
      async () => (await guest.exec('cat typed.txt')).stdout === 'hello é\n',
      'the typed text',
      20_000,
    );
    expect(await guest.position()).toEqual({ x: 100, y: 50 });
  });
});
