// Streaming exec, forwarded ports and the clipboard through the customer API on a real desktop (the
// linux driver under the real operator, the API on a real listener: test/support/live-sandbay.ts),
// with real WebSocket clients:
// `ws`, and the Kubernetes client's own exec WebSocket handler for the channel protocol.
import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { WebSocketHandler } from '@kubernetes/client-node/dist/web-socket-handler.js';
import { PassThrough, Readable } from 'node:stream';
import sharp from 'sharp';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIPBOARD_TEXT_MAX_BYTES } from '../hosts/clipboard.ts';
import { CALL_DEADLINE_MS } from '../hosts/guest-deadlines.ts';
import { startLiveSandbay, type LiveSandbay } from './support/live-sandbay.ts';
import { waitFor } from './support/wait.ts';

let live: LiveSandbay;

let base: string;
let key: string;
let sb: string;
const ECHO_PORT = 8765;

async function api(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const init: RequestInit = {
    method,
    headers: { authorization: `Bearer ${key}`, ...headers },
    redirect: 'manual',
  };
  if (body !== undefined) {
    init.body = typeof body === 'string' || Buffer.isBuffer(body) ? (body as string) : JSON.stringify(body);
    if (!headers['content-type'])
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const res = await fetch(`${base}${url}`, init);
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}
const json = (r: { bytes: Buffer }) => JSON.parse(r.bytes.toString('utf8'));
const on = (rest: string) => `/v1/sandboxes/${sb}${rest}`;
const wsUrl = (rest: string) => `${base.replace('http', 'ws')}${on(rest)}`;

/** Frames of an exec stream, by channel, and how it closed. */
interface ExecRun {
  ws: WebSocket;
  out: () => string;
  err: () => string;
  status: Promise<Record<string, unknown>>;
  closed: Promise<{ code: number; reason: string }>;
  send(channel: number, data: Buffer | string): void;
}

function openExec(
  query: string,
  headers: Record<string, string> = { authorization: `Bearer ${key}` },
): ExecRun {
  const ws = new WebSocket(wsUrl(`/exec/stream?${query}`), ['v5.channel.k8s.io'], { headers });
  let out = '';
  let err = '';
  let gotStatus: (s: Record<string, unknown>) => void;
  const status = new Promise<Record<string, unknown>>((r) => (gotStatus = r));
  ws.on('message', (data: Buffer) => {
    const body = data.subarray(1).toString('utf8');
    if (data[0] === 1) out += body;
    else if (data[0] === 2) err += body;
    else if (data[0] === 3) gotStatus(JSON.parse(body) as Record<string, unknown>);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  ws.on('error', () => undefined);
  return {
    ws,
    out: () => out,
    err: () => err,
    status,
    closed,
    send: (channel, data) =>
      ws.send(Buffer.concat([Buffer.from([channel]), typeof data === 'string' ? Buffer.from(data) : data])),
  };
}

/** The exit code a Kubernetes client reads from the status frame. */
function exitCodeOf(status: Record<string, unknown>): number {
  if (status.status === 'Success') return 0;
  const causes = (status.details as { causes: { reason: string; message: string }[] }).causes;
  return Number(causes.find((c) => c.reason === 'ExitCode')!.message);
}

/** The answer to an upgrade that is refused: its status and JSON body. */
function refusedUpgrade(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: /json/.test(String(res.headers['content-type'])) ? (JSON.parse(body) as unknown) : body,
        }),
      );
    });
    ws.on('open', () => reject(new Error('the upgrade was accepted')));
    ws.on('error', () => undefined);
  });
}

beforeAll(async () => {
  live = await startLiveSandbay('streams');
  ({ url: base, accountKey: key } = live);
  const created = await api('POST', '/v1/sandboxes', {});
  expect(created.status, created.bytes.toString()).toBe(201);
  sb = json(created).sandbox_id;
  const server = readFileSync(new URL('./fixtures/port-echo-server.py', import.meta.url));
  expect(
    (
      await api('PUT', on('/files?path=port-echo-server.py'), server, {
        'content-type': 'application/octet-stream',
      })
    ).status,
  ).toBe(204);
  const started = await api('POST', on('/exec'), {
    command: `nohup /usr/bin/python3 port-echo-server.py ${ECHO_PORT} >/dev/null 2>&1 &`,
  });
  expect(json(started).return_code).toBe(0);
  await waitFor(
    async () => (await api('GET', on(`/ports/${ECHO_PORT}/echo`))).status === 200,
    'the echo server',
    30_000,
  );
}, 180_000);

afterAll(async () => {
  await live?.close();
}, 60_000);

describe('exec stream (Kubernetes channel protocol)', () => {
  it('sends stdout and stderr on their channels and the exit code in the status frame', async () => {
    const run = openExec(`command=${encodeURIComponent('echo out; echo err >&2; exit 3')}`);
    const status = await run.status;
    expect(run.ws.protocol).toBe('v5.channel.k8s.io');
    expect([run.out(), run.err(), exitCodeOf(status)]).toEqual(['out\n', 'err\n', 3]);
    expect(status).toMatchObject({ status: 'Failure', reason: 'NonZeroExitCode' });
    expect((await run.closed).code).toBe(1000);
    const ok = openExec('command=true');
    expect(await ok.status).toEqual({ metadata: {}, status: 'Success' });
  });

  it('takes stdin frames and the v5 close of stdin as EOF', async () => {
    const run = openExec(`command=${encodeURIComponent('read a; echo "got $a"; cat')}&stdin=true`);
    await waitFor(async () => run.ws.readyState === WebSocket.OPEN, 'the socket open', 10_000);
    run.send(0, 'first\n');
    await waitFor(async () => run.out() === 'got first\n', 'the first line answered', 30_000);
    run.send(0, 'to cat\n');
    run.send(255, Buffer.from([0]));
    expect(exitCodeOf(await run.status)).toBe(0);
    expect(run.out()).toBe('got first\nto cat\n');
  });

  it('runs under a pty of the size asked, resized by channel 4', async () => {
    const run = openExec(
      `command=${encodeURIComponent('stty size; read x; stty size')}&tty=true&stdin=true&cols=90&rows=20`,
    );
    await waitFor(async () => run.out().includes('20 90'), 'the first size', 30_000);
    run.send(4, JSON.stringify({ Width: 132, Height: 43 }));
    run.send(0, '\r');
    expect(exitCodeOf(await run.status)).toBe(0);
    expect(run.out()).toMatch(/20 90\r\n\r\n43 132\r\n$/);
  });

  it('kills the command at its timeout: exit 124 with a TimedOut cause', async () => {
    const run = openExec(`command=${encodeURIComponent('sleep 3700')}&timeout=1`);
    const status = await run.status;
    expect(exitCodeOf(status)).toBe(124);
    expect((status.details as { causes: { reason: string }[] }).causes.map((c) => c.reason)).toContain(
      'TimedOut',
    );
  });

  it('hangs the command up when the client closes, and leaves what it put in the background', async () => {
    const run = openExec(
      `command=${encodeURIComponent('nohup sleep 3701 >/dev/null 2>&1 & echo ready; sleep 3702')}`,
    );
    await waitFor(async () => run.out() === 'ready\n', 'the command running', 30_000);
    run.ws.close();
    // `[x]`: the pattern does not match the shell that runs pgrep (its command line holds the pattern).
    const pgrep = async (n: number) =>
      json(
        await api('POST', on('/exec'), {
          command: `pgrep -f 'sleep ${String(n).slice(0, -1)}[${String(n).slice(-1)}]'`,
        }),
      ).return_code;
    await waitFor(async () => (await pgrep(3702)) === 1, 'the foreground sleep hung up', 30_000);
    expect(await pgrep(3701)).toBe(0);
    await api('POST', on('/exec'), { command: "pkill -f 'sleep 370[1]'" });
  });

  it("speaks to the Kubernetes client's own exec WebSocket handler", async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'sandbay', server: base, skipTLSVerify: true }],
      users: [{ name: 'agent', token: key }],
      contexts: [{ name: 'sandbay', cluster: 'sandbay', user: 'agent' }],
      currentContext: 'sandbay',
    });
    const handler = new WebSocketHandler(kc);
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let status: { status?: string; details?: unknown } | undefined;
    const path = `${on('/exec/stream')}?command=sh&command=-c&command=${encodeURIComponent('tr a-z A-Z; exit 5')}&stdin=true`;
    const ws = await handler.connect(path, null, (channel: number, buff: Buffer) => {
      const s = WebSocketHandler.handleStandardStreams(channel, buff, stdout, stderr);
      if (s) status = s as typeof status;
      return true;
    });
    WebSocketHandler.handleStandardInput(ws, Readable.from([Buffer.from('shout\n')]));
    let out = '';
    stdout.on('data', (c: Buffer) => (out += c.toString()));
    await waitFor(async () => status !== undefined, 'the status frame', 30_000);
    expect(out).toBe('SHOUT\n');
    expect(status).toMatchObject({
      status: 'Failure',
      details: { causes: [{ reason: 'ExitCode', message: '5' }] },
    });
  });

  it('refuses what is wrong before the upgrade, as JSON; a wrong frame closes with a reason', async () => {
    expect(await refusedUpgrade(wsUrl('/exec/stream?command=true'))).toMatchObject({
      status: 401,
      body: { error: 'missing_api_key' },
    });
    const auth = { authorization: `Bearer ${key}` };
    expect(await refusedUpgrade(wsUrl('/exec/stream'), auth)).toMatchObject({
      status: 400,
      body: { error: 'invalid_request' },
    });
    expect(await refusedUpgrade(wsUrl('/exec/stream?command=true&timeout=0'), auth)).toMatchObject({
      status: 400,
    });
    expect(await refusedUpgrade(wsUrl('/exec/stream?command=true&tty=true&cols=0'), auth)).toMatchObject({
      status: 400,
    });
    expect((await api('GET', on('/exec/stream?command=true'))).status).toBe(426);
    const text = openExec(`command=${encodeURIComponent('sleep 3703')}`);
    await waitFor(async () => text.ws.readyState === WebSocket.OPEN, 'the socket open', 10_000);
    text.ws.send('not a frame');
    expect(await text.closed).toMatchObject({ code: 1003 });
    const noStdin = openExec(`command=${encodeURIComponent('sleep 3704')}`);
    await waitFor(async () => noStdin.ws.readyState === WebSocket.OPEN, 'the socket open', 10_000);
    noStdin.send(0, 'x');
    expect(await noStdin.closed).toMatchObject({ code: 1008 });
  });
});

describe('forwarded ports', () => {
  it("proxies any method, path and body to the guest's server, with sandbay's credential removed", async () => {
    const r = await api('POST', on(`/ports/${ECHO_PORT}/echo?q=1`), 'hello body', {
      'content-type': 'text/plain',
      'x-custom': 'kept',
    });
    expect(r.status).toBe(200);
    const seen = json(r);
    expect(seen).toMatchObject({ method: 'POST', path: '/echo?q=1', body: 'hello body' });
    expect(seen.headers).toMatchObject({
      host: `localhost:${ECHO_PORT}`,
      'x-custom': 'kept',
      'x-forwarded-prefix': on(`/ports/${ECHO_PORT}`),
    });
    expect(seen.headers.authorization).toBeUndefined();
    expect(r.headers.get('content-security-policy')).toMatch(/^sandbox /);
  });

  it('streams a large body from the guest whole', async () => {
    const n = 20 * 1024 * 1024 + 7;
    const r = await api('GET', on(`/ports/${ECHO_PORT}/bytes?n=${n}`));
    expect([r.status, r.bytes.length]).toEqual([200, n]);
    expect(r.bytes.subarray(0, 10).toString()).toBe('0123456789');
  });

  it('is authorized like the viewer link: the token in the query, then its cookie; redirects and cookies stay under the port', async () => {
    const token = json(await api('POST', on('/viewer-token'))).token as string;
    const first = await fetch(`${base}${on(`/ports/${ECHO_PORT}/redirect`)}?sandbay_token=${token}`, {
      redirect: 'manual',
    });
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toBe(on(`/ports/${ECHO_PORT}/echo?from=redirect`));
    const cookies = first.headers.getSetCookie();
    expect(cookies).toContainEqual(
      expect.stringMatching(new RegExp(`^app=1; Path=${on(`/ports/${ECHO_PORT}`)}/`)),
    );
    const ours = cookies.find((c) => c.startsWith('sandbay_token='))!;
    expect(ours).toMatch(new RegExp(`Path=${on(`/ports/${ECHO_PORT}`)}; .*HttpOnly`));
    const cookie = ours.split(';')[0]!;
    const second = await fetch(`${base}${on(`/ports/${ECHO_PORT}/echo`)}`, {
      headers: { cookie: `${cookie}; app=1` },
    });
    expect(second.status).toBe(200);
    expect(((await second.json()) as { headers: { cookie: string } }).headers.cookie).toBe('app=1');
    // The bare port redirects to its slashed path, the token leaving the address for the cookie.
    const bare = await fetch(`${base}${on(`/ports/${ECHO_PORT}`)}?sandbay_token=${token}&x=1`, {
      redirect: 'manual',
    });
    expect([bare.status, bare.headers.get('location')]).toEqual([308, `${on(`/ports/${ECHO_PORT}`)}/?x=1`]);
  });

  it('refuses a bad port, a closed port, no credential and a wrong token with clear errors', async () => {
    for (const port of ['0', '65536', 'http'])
      expect(json(await api('GET', on(`/ports/${port}/`)))).toMatchObject({ error: 'invalid_port' });
    const closed = await api('GET', on('/ports/8799/'));
    expect([closed.status, json(closed).error]).toEqual([502, 'port_closed']);
    const anonymous = await fetch(`${base}${on(`/ports/${ECHO_PORT}/echo`)}`);
    expect([anonymous.status, ((await anonymous.json()) as { error: string }).error]).toEqual([
      401,
      'missing_api_key',
    ]);
    const forged = await fetch(`${base}${on(`/ports/${ECHO_PORT}/echo`)}?sandbay_token=x.y`);
    expect([forged.status, ((await forged.json()) as { error: string }).error]).toEqual([
      401,
      'invalid_viewer_token',
    ]);
  });

  it("relays the guest's WebSocket (its subprotocol, text and binary, its close code); a revoked link closes it with 4003", async () => {
    const ws = new WebSocket(wsUrl(`/ports/${ECHO_PORT}/ws`), ['chat', 'other'], {
      headers: { authorization: `Bearer ${key}` },
    });
    const messages: { data: string; binary: boolean }[] = [];
    ws.on('message', (data: Buffer, binary) => messages.push({ data: data.toString(), binary }));
    await new Promise((r) => ws.once('open', r));
    expect(ws.protocol).toBe('chat');
    ws.send('hello');
    ws.send(Buffer.from('bytes'));
    await waitFor(async () => messages.length === 2, 'both echoes', 10_000);
    expect(messages).toEqual([
      { data: 'hello', binary: false },
      { data: 'bytes', binary: true },
    ]);
    const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
    ws.send('close');
    expect(await closed).toBe(4321);

    const token = json(await api('POST', on('/viewer-token'))).token as string;
    const viewer = new WebSocket(wsUrl(`/ports/${ECHO_PORT}/ws?sandbay_token=${token}`));
    await new Promise((r) => viewer.once('open', r));
    const revoked = new Promise<number>((r) => viewer.on('close', (code) => r(code)));
    expect((await api('DELETE', on('/viewer-token'))).status).toBe(204);
    expect(await revoked).toBe(4003);
  });

  it("passes on the guest's refusal of an upgrade, and refuses a closed port as JSON", async () => {
    expect(
      await refusedUpgrade(wsUrl(`/ports/${ECHO_PORT}/echo`), { authorization: `Bearer ${key}` }),
    ).toMatchObject({
      status: 200,
    });
    expect(await refusedUpgrade(wsUrl('/ports/8799/ws'), { authorization: `Bearer ${key}` })).toMatchObject({
      status: 502,
      body: { error: 'port_closed' },
    });
  });

  it('passes on a refusal whose body comes after its status line', async () => {
    // The guest's stream was once closed as soon as the status line arrived: the body was lost and
    // the client never got an answer.
    expect(
      await refusedUpgrade(wsUrl(`/ports/${ECHO_PORT}/refuse?body_after_ms=500`), {
        authorization: `Bearer ${key}`,
      }),
    ).toEqual({ status: 403, body: 'refused by the guest' });
  });

  it('answers 504 when the guest never finishes its refusal, within the call deadline', async () => {
    const started = Date.now();
    expect(
      await refusedUpgrade(wsUrl(`/ports/${ECHO_PORT}/refuse?stall=1`), { authorization: `Bearer ${key}` }),
    ).toMatchObject({ status: 504, body: { error: 'guest_timeout' } });
    expect(Date.now() - started).toBeLessThan(CALL_DEADLINE_MS + 10_000);
  }, 60_000);
});

describe('clipboard', () => {
  it('reads back the text and the PNG image it was given', async () => {
    const text = 'clipboard: naïve ✓ 漢字';
    expect((await api('PUT', on('/clipboard'), { type: 'text', text })).status).toBe(204);
    expect(json(await api('GET', on('/clipboard')))).toEqual({ type: 'text', text });
    const png = await sharp({ create: { width: 3, height: 2, channels: 3, background: '#00ff00' } })
      .png()
      .toBuffer();
    expect(
      (
        await api('PUT', on('/clipboard'), {
          type: 'image',
          mime_type: 'image/png',
          data: png.toString('base64'),
        })
      ).status,
    ).toBe(204);
    const got = json(await api('GET', on('/clipboard?type=image')));
    expect(got).toMatchObject({ type: 'image', mime_type: 'image/png' });
    expect(await sharp(Buffer.from(got.data, 'base64')).metadata()).toMatchObject({ width: 3, height: 2 });
  });

  it('refuses a payload over its limit (413) or not a PNG (400), and keeps what it held', async () => {
    expect((await api('PUT', on('/clipboard'), { type: 'text', text: 'kept' })).status).toBe(204);
    const big = await api('PUT', on('/clipboard'), {
      type: 'text',
      text: 'x'.repeat(CLIPBOARD_TEXT_MAX_BYTES + 1),
    });
    expect([big.status, json(big).error]).toEqual([413, 'clipboard_too_large']);
    const notPng = await api('PUT', on('/clipboard'), {
      type: 'image',
      mime_type: 'image/png',
      data: Buffer.from('GIF89a').toString('base64'),
    });
    expect([notPng.status, json(notPng).error]).toEqual([400, 'invalid_argument']);
    const huge = await api('PUT', on('/clipboard'), {
      type: 'image',
      mime_type: 'image/png',
      data: 'A'.repeat(12 * 1024 * 1024),
    });
    expect(huge.status).toBe(413);
    expect(json(await api('GET', on('/clipboard')))).toEqual({ type: 'text', text: 'kept' });
  });

  it('act set_clipboard puts text there and pastes it into the focused window', async () => {
    await api('POST', on('/exec'), { command: 'rm -f pasted.txt; mousepad pasted.txt >/dev/null 2>&1 &' });
    await waitFor(
      async () =>
        (json(await api('GET', on('/display/windows'))) as { name: string; focused?: boolean }[]).some(
          (w) => w.name.includes('pasted.txt') && w.focused,
        ),
      'the editor focused',
      30_000,
    );
    const r = await api('POST', on('/act'), {
      action: { type: 'set_clipboard', text: 'pasted by act', paste: true },
      screenshot_after: false,
    });
    expect(json(r)).toEqual({ ok: true, action: 'set_clipboard' });
    expect(json(await api('GET', on('/clipboard')))).toEqual({ type: 'text', text: 'pasted by act' });
    await api('POST', on('/keyboard/hotkey'), { keys: 'ctrl+s' });
    await waitFor(
      async () => (await api('GET', on('/files?path=pasted.txt'))).bytes.toString() === 'pasted by act',
      'the pasted text saved',
      30_000,
    );
    await api('POST', on('/exec'), { command: 'pkill mousepad' });
  });
});
