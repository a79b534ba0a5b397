// The contract of a guest's streaming exec, forwarded ports and clipboard (hosts/driver.ts), as one
// suite every driver runs on a running VM of its own, through the deadlines every caller uses:
//
//   runGuestStreamsSuite({ name: 'sim', newDriver, hostRef, serve: (port, dir) => `serve ${port} ${dir}` });
//
// Each behaviour is checked by its effect: bytes read back from the stream, a file served over the
// forwarded connection, the clipboard read back after it was set.
import { request } from 'node:http';
import type { Duplex, Readable } from 'node:stream';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../test/support/wait.ts';
import { CLIPBOARD_TEXT_MAX_BYTES } from './clipboard.ts';
import { DriverError, type Driver, type Guest, type Host, type HostRef } from './driver.ts';
import { withDeadlines } from './guest-deadlines.ts';

export interface GuestStreamsSuiteOptions {
  name: string;
  newDriver: () => Driver | Promise<Driver>;
  hostRef: HostRef | (() => HostRef);
  /** A command that serves the files of `dir` over HTTP on 127.0.0.1:`port` in the background. */
  serve: (port: number, dir: string) => string;
  /** Whether `pgrep -f` lists the VM's processes (a real VM), to see background jobs and hang-ups. */
  processes: boolean;
}

const VM = 'streams';

/** Reads a stream as text until it ends. */
async function text(stream: Readable): Promise<string> {
  let out = '';
  for await (const chunk of stream) out += (chunk as Buffer).toString('utf8');
  return out;
}

/** Everything a stream has written so far, kept up to date (for waiting on a prompt). */
function follow(stream: Readable): { readonly text: string } {
  const seen = { text: '' };
  stream.on('data', (chunk: Buffer) => (seen.text += chunk.toString('utf8')));
  return seen;
}

/** A GET over a connection the guest gave: status and body. */
function httpGet(conn: Duplex, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ createConnection: () => conn, path, headers: { host: 'localhost' } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

export function runGuestStreamsSuite(o: GuestStreamsSuiteOptions): void {
  describe(`${o.name} driver: streaming exec, forwarded ports, clipboard`, () => {
    let driver: Driver;
    let host: Host;
    let guest: Guest;
    const stream = (command: string, opts?: Parameters<NonNullable<Guest['execStream']>>[1]) =>
      guest.execStream!(command, opts);
    const running = async (pattern: string) => (await guest.exec(`pgrep -f '${pattern}'`)).return_code === 0;

    beforeAll(async () => {
      driver = await o.newDriver();
      host = driver.host(typeof o.hostRef === 'function' ? o.hostRef() : o.hostRef);
      await host.createVm({ name: VM, image: 'base-macos-26', cpu: 2, memoryGiB: 4 });
      await host.startVm(VM);
      guest = withDeadlines(host.guest(VM));
    }, 180_000);

    afterAll(async () => {
      await host?.deleteVm(VM).catch(() => undefined);
      await driver?.close();
    }, 60_000);

    it('streams stdout and stderr apart and reports the exit code', async () => {
      const s = await stream('echo out; echo err >&2; exit 3');
      const [out, err, exit] = await Promise.all([text(s.stdout), text(s.stderr), s.exit]);
      expect({ out, err, exit }).toEqual({ out: 'out\n', err: 'err\n', exit: { code: 3, timedOut: false } });
    });

    it('hands output on as it is written, and feeds stdin to the command (end() is EOF)', async () => {
      const s = await stream('echo first; read line; echo second; cat');
      const out = follow(s.stdout);
      await waitFor(async () => out.text === 'first\n', 'the first line before any input', 30_000);
      s.stdin.write('go\n');
      await waitFor(async () => out.text === 'first\nsecond\n', 'the line after the input', 30_000);
      s.stdin.end('to cat\n');
      expect(await s.exit).toEqual({ code: 0, timedOut: false });
      expect(out.text).toBe('first\nsecond\nto cat\n');
    });

    it('runs under a terminal of the size asked, which resize() changes', async () => {
      const s = await stream('tty; stty size; read x; stty size', { pty: { cols: 100, rows: 30 } });
      const out = follow(s.stdout);
      await waitFor(async () => out.text.includes('30 100\r\n'), 'the first size', 30_000);
      expect(out.text).toMatch(/^\/dev\/pts\/\d+\r\n30 100\r\n$/);
      s.resize({ cols: 120, rows: 40 });
      s.stdin.write('\r');
      expect(await s.exit).toEqual({ code: 0, timedOut: false });
      expect(out.text).toMatch(/30 100\r\n\r\n40 120\r\n$/);
    });

    it('ends when the command exits; what it left in the background runs on', async () => {
      const s = await stream('sleep 3601 & echo started');
      expect(await text(s.stdout)).toBe('started\n');
      expect(await s.exit).toEqual({ code: 0, timedOut: false });
      if (!o.processes) return;
      expect(await running('sleep 360[1]')).toBe(true);
      await guest.exec("pkill -f 'sleep 360[1]'");
    });

    it('kills the command at its timeout: exit 124', async () => {
      const s = await stream('echo begun; sleep 3602', { timeoutMs: 1000 });
      expect(await text(s.stdout)).toBe('begun\n');
      expect(await s.exit).toEqual({ code: 124, timedOut: true });
      if (o.processes)
        await waitFor(async () => !(await running('sleep 360[2]')), 'the sleep killed', 30_000);
    });

    it('hangs the command up on close(): its exit rejects and the command is gone', async () => {
      const s = await stream('echo ready; sleep 3603');
      const out = follow(s.stdout);
      await waitFor(async () => out.text === 'ready\n', 'the command running', 30_000);
      s.close();
      await expect(s.exit).rejects.toBeInstanceOf(DriverError);
      if (o.processes)
        await waitFor(async () => !(await running('sleep 360[3]')), 'the sleep hung up', 30_000);
    });

    it('refuses an empty command and a terminal of no columns, before anything runs', async () => {
      await expect(stream(' ')).rejects.toMatchObject({ code: 'invalid_argument' });
      await expect(stream('true', { pty: { cols: 0, rows: 10 } })).rejects.toMatchObject({
        code: 'invalid_argument',
      });
    });

    it("connects to a port on the VM's loopback; a port nothing listens on is refused", async () => {
      await guest.putFile('site/hello.txt', Buffer.from('hello over a forwarded port\n'));
      const started = await guest.exec(o.serve(8000, 'site'));
      expect(started.return_code).toBe(0);
      const conn = await waitFor(
        () => guest.forwardPort!(8000).catch((e: unknown) => (isRefused(e) ? undefined : Promise.reject(e))),
        'the server listening',
        30_000,
      );
      expect(await httpGet(conn, '/hello.txt')).toEqual({
        status: 200,
        body: 'hello over a forwarded port\n',
      });
      await expect(guest.forwardPort!(8001)).rejects.toMatchObject({ code: 'refused' });
      for (const port of [0, 65536, 1.5])
        await expect(guest.forwardPort!(port)).rejects.toMatchObject({ code: 'invalid_argument' });
    });

    it('clipboard: text (Unicode) and a PNG read back as set; one over its limit is refused and changes nothing', async () => {
      const text = 'copied: héllo ✓ 日本\nsecond line';
      await guest.setClipboard!({ type: 'text', text });
      expect(await guest.getClipboard!()).toEqual({ type: 'text', text });
      const png = await sharp({
        create: { width: 4, height: 3, channels: 3, background: { r: 200, g: 10, b: 10 } },
      })
        .png()
        .toBuffer();
      await guest.setClipboard!({ type: 'image', mimeType: 'image/png', data: png });
      const image = await guest.getClipboard!('image');
      expect(image.type).toBe('image');
      const pixels = await sharp((image as { data: Buffer }).data)
        .raw()
        .toBuffer({ resolveWithObject: true });
      expect(pixels.info).toMatchObject({ width: 4, height: 3 });
      await expect(
        guest.setClipboard!({ type: 'text', text: 'x'.repeat(CLIPBOARD_TEXT_MAX_BYTES + 1) }),
      ).rejects.toMatchObject({ code: 'too_large' });
      await expect(
        guest.setClipboard!({ type: 'image', mimeType: 'image/png', data: Buffer.from('not a png') }),
      ).rejects.toMatchObject({ code: 'invalid_argument' });
      expect((await guest.getClipboard!('image')).type).toBe('image');
    }, 60_000);
  });
}

function isRefused(e: unknown): boolean {
  return e instanceof DriverError && e.code === 'refused';
}
