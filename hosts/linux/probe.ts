// Readiness probes run from inside the driver's process: a spawned probe per check costs ~200 ms per
// clone cycle. A service is ready when it greets a TCP client (RFB, SSH both speak first).
import { connect } from 'node:net';
import { DriverError } from '../driver.ts';
import { delay, type TrackedProcess } from './runner.ts';

/** Connects once and resolves whether the peer's first bytes start with `greeting`. */
export function greets(host: string, port: number, greeting: string, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect({ host, port, noDelay: true });
    let got = '';
    const done = (ok: boolean) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    sock.on('data', (b: Buffer) => {
      got += b.toString('latin1');
      if (got.length >= greeting.length) done(got.startsWith(greeting));
    });
    sock.on('error', () => done(false));
    sock.on('close', () => done(false));
  });
}

/**
 * Whether a connection is accepted, over TCP to host:port or to a unix socket's path (the server
 * listens; it may speak later). A socket file alone does not say that: it exists from `bind`, before
 * `listen`.
 */
export function accepts(
  to: { host: string; port: number } | { path: string },
  timeoutMs = 500,
): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = 'path' in to ? connect({ path: to.path }) : connect({ ...to, noDelay: true });
    const done = (ok: boolean) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    sock.on('connect', () => done(true));
    sock.on('error', () => done(false));
  });
}

/**
 * Waits until `probe` succeeds, failing early with the process's own error when `proc` dies first
 * and with `timeout` after `timeoutMs`. Polls because a listening socket gives no event to wait on.
 */
export async function waitReady(
  what: string,
  proc: TrackedProcess | undefined,
  probe: () => Promise<boolean>,
  timeoutMs: number,
  intervalMs = 10,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc && !proc.alive) throw proc.diedError();
    if (await probe()) return;
    if (proc && !proc.alive) throw proc.diedError();
    if (Date.now() >= deadline)
      throw new DriverError('timeout', `${what} not ready within ${timeoutMs} ms`, proc?.label);
    await delay(intervalMs);
  }
}
