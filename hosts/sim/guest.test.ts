import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import * as tar from 'tar';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IMAGES } from '../../crds/index.ts';
import { FakeClock } from '../../operator/runtime/clock.ts';
import { DriverError, type Guest, type Host } from '../driver.ts';
import { createSimDriver, type SimDriver } from './index.ts';

const instant = { cloneMs: 0, bootMs: 0, resizeMs: 0, stopMs: 0, deleteMs: 0, exportMs: 0, importMs: 0 };
const ADDRESS = '10.0.0.1';

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function code(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  return e instanceof DriverError ? e.code : `no DriverError: ${String(e)}`;
}

let clock: FakeClock;
let sim: SimDriver;
let host: Host;
let guest: Guest;
beforeEach(async () => {
  clock = new FakeClock();
  sim = createSimDriver({ clock, timings: instant });
  host = sim.host({ name: 'mini-1', address: ADDRESS, model: 'm4' });
  await host.createVm({ name: 'vm-a', image: IMAGES.split.name, cpu: 5, memoryGiB: 8 });
  await host.startVm('vm-a');
  guest = host.guest('vm-a');
});
afterEach(() => sim.close());

describe('sim guest shell', () => {
  it('exec echoes deterministic results', async () => {
    expect(await guest.exec('echo hi')).toEqual({
      stdout: 'hi\n',
      stderr: '',
      return_code: 0,
      timed_out: false,
    });
    expect((await guest.exec('hostname && whoami')).stdout).toBe('vm-a\nsandbay\n');
    expect((await guest.exec('echo \'a  b\' "c"')).stdout).toBe('a  b c\n');
  });

  it('runs sequences, redirections and exit codes like a shell', async () => {
    expect((await guest.exec('false || echo fallback; exit 3')).return_code).toBe(3);
    expect((await guest.exec('false && echo never')).stdout).toBe('');
    await guest.exec('mkdir -p work && echo one > work/f.txt && echo two >> work/f.txt');
    expect((await guest.exec('cat ~/work/f.txt')).stdout).toBe('one\ntwo\n');
    expect((await guest.exec('cd work; ls; test -f f.txt')).stdout).toBe('f.txt\n');
  });

  it('answers 127 for commands it does not have', async () => {
    const r = await guest.exec('python3 -c "print(1)"');
    expect(r).toMatchObject({ return_code: 127, stderr: 'sim: command not found: python3\n' });
    expect((await guest.exec('ls | wc -l')).return_code).toBe(2);
  });

  it('a sleep past the timeout ends with timed_out and 124', async () => {
    const run = guest.exec('sleep 5', { timeoutMs: 1000 });
    await new Promise((r) => setImmediate(r));
    clock.advance(1000);
    expect(await run).toMatchObject({ timed_out: true, return_code: 124 });
  });
});

describe('sim guest files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sim-files-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('stores files in memory: put, get, and relative paths resolve against the home', async () => {
    await guest.putFile('docs/a.txt', Buffer.from('alpha'));
    expect((await bytesOf(await guest.getFile('/Users/sandbay/docs/a.txt'))).toString()).toBe('alpha');
    expect(await code(guest.getFile('missing.txt'))).toBe('not_found');
    expect(await code(guest.getFile('docs'))).toBe('invalid_argument');
    expect(await code(guest.putFile('bad\nname', Buffer.from('')))).toBe('invalid_argument');
  });

  it('unpacks a real tar archive and packs a directory back', async () => {
    mkdirSync(join(dir, 'src/sub'), { recursive: true });
    writeFileSync(join(dir, 'src/top.txt'), 'top');
    writeFileSync(join(dir, 'src/sub/deep.txt'), 'deep');
    // tar's own stream is a Minipass; the API hands the driver a Node Readable.
    await guest.putDir(
      'project',
      Readable.from(tar.create({ cwd: join(dir, 'src'), portable: true }, ['.'])),
    );
    expect((await guest.exec('cat project/sub/deep.txt')).stdout).toBe('deep');

    const out = join(dir, 'out');
    mkdirSync(out);
    const archive = await bytesOf(await guest.getDir('project'));
    writeFileSync(join(dir, 'p.tar'), archive);
    await tar.extract({ file: join(dir, 'p.tar'), cwd: out });
    const listed: string[] = [];
    await tar.list({ file: join(dir, 'p.tar'), onReadEntry: (e) => listed.push(e.path) });
    expect(listed).toEqual(expect.arrayContaining(['./', './sub/', './top.txt', './sub/deep.txt']));
  });
});

describe('sim guest screen and input', () => {
  it('screenshots return a valid PNG of the screen size, regions and JPEG too', async () => {
    const png = await guest.screenshot();
    expect(await sharp(png).metadata()).toMatchObject({ format: 'png', width: 1280, height: 800 });
    const region = await guest.screenshot({
      region: { x: 10, y: 10, width: 100, height: 50 },
      showCursor: true,
    });
    expect(await sharp(region).metadata()).toMatchObject({ width: 100, height: 50 });
    const jpeg = await guest.screenshot({ format: 'jpeg', quality: 50, scale: 0.5 });
    expect(await sharp(jpeg).metadata()).toMatchObject({ format: 'jpeg', width: 640, height: 400 });
    expect(await code(guest.screenshot({ region: { x: 1200, y: 0, width: 100, height: 10 } }))).toBe(
      'invalid_argument',
    );
  });

  it('moves the pointer, records typed text, and checks points and keys', async () => {
    await guest.click(100, 200, { double: true });
    expect(await guest.position()).toEqual({ x: 100, y: 200 });
    await guest.drag({ x: 1, y: 1 }, { x: 30, y: 40 });
    expect(await guest.position()).toEqual({ x: 30, y: 40 });
    await guest.type('hello');
    await guest.hotkey('cmd+shift+t');
    await guest.press('return', ['cmd']);
    expect(sim.inspect(ADDRESS)?.vms[0]).toMatchObject({ typed: 'hello', cursor: { x: 30, y: 40 } });
    expect(await code(guest.click(1280, 0))).toBe('invalid_argument');
    expect(await code(guest.press('nokey'))).toBe('invalid_argument');
    expect(await code(guest.press('a', ['hyper']))).toBe('invalid_argument');
    expect(await code(guest.hotkey('cmd++t'))).toBe('invalid_argument');
    expect(await code(guest.scroll(5, 5, 'down', -1))).toBe('invalid_argument');
  });

  it('reports the display and a window tree that claims no applications', async () => {
    expect(await guest.displayInfo()).toEqual({ width: 1280, height: 800, scale: 1 });
    expect(await guest.windows()).toEqual([expect.objectContaining({ role: 'display', children: [] })]);
  });

  it('has no VNC server or sshd, and says so', async () => {
    expect(await code(guest.vnc())).toBe('not_found');
    expect(await code(guest.ssh())).toBe('not_found');
  });

  it('tracks the last activity on the injected clock', async () => {
    const before = clock.now();
    clock.advance(5000);
    await guest.move(1, 1);
    expect((await guest.lastActivity())?.getTime()).toBe(before + 5000);
  });

  it('a stopped VM answers no guest calls', async () => {
    await host.stopVm('vm-a');
    expect(await code(guest.exec('echo hi'))).toBe('not_found');
    expect(() => host.guest('vm-a')).toThrow(/not running/);
  });
});

describe('sim guest recordings', () => {
  it('tracks a recording and serves an MP4 of its duration', async () => {
    const rec = await guest.startRecording('demo');
    expect(rec).toMatchObject({ name: 'demo', state: 'recording' });
    clock.advance(2500);
    const stopped = await guest.stopRecording(rec.id);
    expect(stopped).toMatchObject({ state: 'stopped', duration_s: 2.5 });
    const mp4 = await bytesOf(await guest.downloadRecording(rec.id));
    expect(mp4.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(mp4.length).toBe(stopped.bytes);
    expect(await guest.listRecordings()).toHaveLength(1);
    await guest.deleteRecording(rec.id);
    expect(await guest.getRecording(rec.id)).toBeUndefined();
    expect(await code(guest.stopRecording(rec.id))).toBe('not_found');
  });

  it('runs at most two recordings at once, and a stop of the VM ends them', async () => {
    const a = await guest.startRecording();
    await guest.startRecording();
    expect(await code(guest.startRecording())).toBe('capacity');
    expect(await code(guest.downloadRecording(a.id))).toBe('invalid_argument');
    await host.stopVm('vm-a');
    await host.startVm('vm-a');
    expect((await guest.listRecordings()).map((r) => r.state)).toEqual(['stopped', 'stopped']);
  });
});
