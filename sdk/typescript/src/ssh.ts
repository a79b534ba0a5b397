// exec_ssh: a command over SSH through the API's SSH WebSocket (`GET …/ssh`, the VM's sshd byte for
// byte), logged in with the VM's own credentials (`GET …/ssh/credentials`). Needs an SSH client, so
// it loads the optional peer dependency `ssh2` (Node, Bun) and `node:stream` on first use; the rest
// of the SDK never does. The WebSocket is the runtime's own, given the Authorization header (the
// WHATWG constructor takes no headers; Node's and Bun's accept them in the second argument).
import type { ExecResult, SshCredentials } from './types.ts';

interface Channel {
  on(event: 'data', cb: (b: Uint8Array) => void): Channel;
  on(event: 'close', cb: (code: number | null, signal?: string) => void): Channel;
  stderr: { on(event: 'data', cb: (b: Uint8Array) => void): void };
}
interface SshClient {
  on(event: 'ready', cb: () => void): SshClient;
  on(event: 'error', cb: (err: Error) => void): SshClient;
  exec(cmd: string, cb: (err: Error | undefined, ch: Channel) => void): void;
  connect(o: { sock: unknown; username: string; privateKey: string; readyTimeout: number }): void;
  end(): void;
}
interface DuplexLike {
  push(chunk: Uint8Array | null): boolean;
  destroy(err?: Error): void;
}
type DuplexCtor = new (o: {
  read(): void;
  write(chunk: Uint8Array, enc: string, cb: (err?: Error | null) => void): void;
  final(cb: () => void): void;
}) => DuplexLike;

type WebSocketWithHeaders = new (
  url: string,
  init: { headers: Record<string, string>; protocols?: string[] },
) => WebSocket;

async function load<T>(name: string, why: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (err) {
    throw new Error(`exec_ssh needs ${why}`, { cause: err });
  }
}

export async function execOverSsh(
  wsUrl: string,
  apiKey: string,
  creds: SshCredentials,
  command: string,
  timeoutS: number,
): Promise<ExecResult> {
  const ssh2 = await load<{ Client: new () => SshClient; default?: { Client: new () => SshClient } }>(
    'ssh2',
    'the ssh2 package (npm install ssh2)',
  );
  const Client = ssh2.Client ?? ssh2.default!.Client;
  const { Duplex } = await load<{ Duplex: DuplexCtor }>('node:stream', 'node:stream (Node, Deno or Bun)');
  const WS = globalThis.WebSocket as unknown as WebSocketWithHeaders;
  const ws = new WS(wsUrl, { headers: { authorization: `Bearer ${apiKey}` } });
  ws.binaryType = 'arraybuffer';
  const sock = new Duplex({
    read() {},
    write(chunk, _enc, cb) {
      ws.send(chunk);
      cb();
    },
    final(cb) {
      ws.close();
      cb();
    },
  });
  // Listening before the upgrade completes: sshd speaks first, its banner may come with the 101.
  ws.addEventListener('message', (e) => sock.push(new Uint8Array(e.data as ArrayBuffer)));
  ws.addEventListener('close', () => sock.push(null));
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve(), { once: true });
    ws.addEventListener('error', () => reject(new Error(`exec_ssh: the SSH WebSocket did not open`)), {
      once: true,
    });
  });
  const client = new Client();
  try {
    return await new Promise<ExecResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        client.end();
        resolve({ stdout, stderr, return_code: 124, timed_out: true });
      }, timeoutS * 1000);
      let stdout = '';
      let stderr = '';
      const out = new TextDecoder();
      const err = new TextDecoder();
      client
        .on('error', (e) => {
          clearTimeout(timer);
          reject(e);
        })
        .on('ready', () =>
          client.exec(command, (e, ch) => {
            if (e) {
              clearTimeout(timer);
              return reject(e);
            }
            ch.on('data', (b) => (stdout += out.decode(b, { stream: true })));
            ch.stderr.on('data', (b) => (stderr += err.decode(b, { stream: true })));
            ch.on('close', (code) => {
              clearTimeout(timer);
              resolve({ stdout, stderr, return_code: code ?? -1, timed_out: false });
            });
          }),
        );
      client.connect({ sock, username: creds.username, privateKey: creds.private_key, readyTimeout: 30_000 });
    });
  } finally {
    client.end();
    ws.close();
  }
}
