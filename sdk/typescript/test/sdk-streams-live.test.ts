// @sandbay/sdk's streaming exec, forwarded ports and clipboard against a live sandbay on the linux
// driver: each checked by its effect (output seen before the command ends, a page served from inside
// the sandbox, the clipboard read back).
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveSandbay, type LiveSandbay } from '../../../test/support/live-sandbay.ts';
import { waitFor } from '../../../test/support/wait.ts';
import { Client, SandbayConnectionError, SandbayError, type ExecEvent, type Sandbox } from '../src/index.ts';

let live: LiveSandbay;
let client: Client;
let sb: Sandbox;
const PORT = 8766;

beforeAll(async () => {
  live = await startLiveSandbay('sdkstreams');
  client = new Client({ apiKey: live.accountKey, baseUrl: live.url });
  sb = await client.create({ ephemeral: false });
}, 180_000);

afterAll(async () => {
  await live?.close();
}, 60_000);

describe('execStream', () => {
  it('hands output to onStdout/onStderr as it is written, takes stdin, and ends with the exit code', async () => {
    const seen: string[] = [];
    const s = await sb.execStream('echo ready; read x; echo "after $x"; echo oops >&2; exit 4', {
      stdin: true,
      onStdout: (d) => seen.push(d),
      onStderr: (d) => seen.push(`err:${d}`),
    });
    // The command waits on its stdin: what came so far came before its end.
    await waitFor(async () => seen.join('') === 'ready\n', 'the first line', 30_000);
    s.write('go\n');
    s.closeStdin();
    expect(await s.wait()).toEqual({
      stdout: 'ready\nafter go\n',
      stderr: 'oops\n',
      exit_code: 4,
      timed_out: false,
    });
    expect(seen.join('')).toBe('ready\nafter go\nerr:oops\n');
  });

  it('is an async iterator of stdout, stderr and exit events', async () => {
    const events: ExecEvent[] = [];
    for await (const e of await sb.execStream('echo a; echo b >&2')) events.push(e);
    expect(events.filter((e) => e.type !== 'stderr').map((e) => ('data' in e ? e.data : e))).toEqual([
      'a\n',
      { type: 'exit', exitCode: 0, timedOut: false },
    ]);
    expect(events).toContainEqual({ type: 'stderr', data: 'b\n' });
  });

  it('runs under a pty it resizes, and kills at its timeout with 124', async () => {
    let out = '';
    const s = await sb.execStream('stty size; read x; stty size', {
      tty: true,
      stdin: true,
      cols: 70,
      rows: 20,
      onStdout: (d) => (out += d),
    });
    await waitFor(async () => out.includes('20 70'), 'the first size', 30_000);
    s.resize(100, 33);
    s.write('\r');
    expect((await s.wait()).exit_code).toBe(0);
    expect(out).toMatch(/33 100\r\n$/);
    expect(await sb.execStreamed('sleep 3720', { timeout: 1 })).toMatchObject({
      exit_code: 124,
      timed_out: true,
    });
  });

  it('runs in the background until kill() hangs it up', async () => {
    const s = await sb.execStream('echo up; sleep 3721');
    let out = '';
    const reading = (async () => {
      for await (const e of s) if (e.type === 'stdout') out += e.data;
    })();
    await waitFor(async () => out === 'up\n', 'the command running', 30_000);
    s.kill();
    await expect(s.wait()).rejects.toBeInstanceOf(SandbayConnectionError);
    await expect(reading).rejects.toBeInstanceOf(SandbayConnectionError);
    await waitFor(
      async () => (await sb.exec("pgrep -f 'sleep 372[1]'")).return_code === 1,
      'the sleep hung up',
      30_000,
    );
  });

  it("refuses with the API's own error", async () => {
    const gone = client.sandbox(`sb-${'0'.repeat(32)}`);
    await expect(gone.execStream('true')).rejects.toMatchObject({ status: 404, code: 'sandbox_not_found' });
    await expect(sb.execStream('true', { timeout: 0 })).rejects.toBeInstanceOf(SandbayError);
  });
});

describe('ports and clipboard', () => {
  it('portUrl opens a server inside the sandbox from outside, with nothing but the URL', async () => {
    const server = await readFile(new URL('../../../test/fixtures/port-echo-server.py', import.meta.url));
    await sb.uploadBytes(server, 'port-echo-server.py');
    await sb.exec(`nohup /usr/bin/python3 port-echo-server.py ${PORT} >/dev/null 2>&1 &`);
    const url = await sb.portUrl(PORT, { path: '/echo?x=1' });
    expect(url).toMatch(new RegExp(`/ports/${PORT}/echo\\?x=1&sandbay_token=`));
    const res = await waitFor(
      async () => {
        const r = await fetch(url);
        return r.status === 200 ? r : undefined;
      },
      'the server',
      30_000,
    );
    expect(((await res.json()) as { path: string }).path).toBe('/echo?x=1');
  });

  it('clipboard: text and a PNG read back as set; too large is refused with its code', async () => {
    await sb.clipboard.setText('from the SDK ✓');
    expect(await sb.clipboard.get()).toEqual({ type: 'text', text: 'from the SDK ✓' });
    const png = new Uint8Array(
      await sharp({ create: { width: 5, height: 4, channels: 3, background: '#123456' } })
        .png()
        .toBuffer(),
    );
    await sb.clipboard.setImage(png);
    const got = await sb.clipboard.get({ type: 'image' });
    expect(got.type).toBe('image');
    expect(await sharp((got as { data: Uint8Array }).data).metadata()).toMatchObject({ width: 5, height: 4 });
    await expect(sb.clipboard.setText('x'.repeat(1024 * 1024 + 1))).rejects.toMatchObject({
      status: 413,
      code: 'clipboard_too_large',
    });
  });
});
