// Every call on a guest has a deadline, whatever the driver does. A guest is the tenant's: its X
// server, sshd session or file server may stop answering (a grab, a SIGSTOP, a FIFO where a file
// was), and a wait on it must end. Drivers bound their own waits (X requests, SSH opens, SFTP
// requests); this wrapper is the net under all of them, for every caller (the API's routes and
// proxies, the operator's replays and reaper): a call that outlives its deadline fails with
// DriverError `timeout` (the API's 504 `guest_timeout`), and the guest is told to `abandon()` what
// it holds for the VM (its connections: everything still waiting on them fails at once, and their
// slots, locks and buffers are freed). The driver's own promise is left to settle and ignored.
//
// Streams are bounded by progress, not by length (a 2 GB upload may take minutes): a transfer fails
// when the VM has held it for `STALL_MS` — data waiting for the VM to take it, or the reader waiting
// for data from the VM — never because the client on the other end is slow.
import { PassThrough, Readable } from 'node:stream';
import { DriverError, type ExecOptions, type ExecStream, type Guest } from './driver.ts';

/** The longest any call waits on the VM when nothing else says otherwise. */
export const CALL_DEADLINE_MS = 30_000;
/** A transfer (upload, download, tar stream) fails when the VM holds it this long. */
export const STALL_MS = 60_000;
/** An exec may run for its timeout; then the driver kills its process group and closes the channel. */
const EXEC_GRACE_MS = 15_000;
const EXEC_DEFAULT_TIMEOUT_MS = 120_000;
/** Slow calls that legitimately take longer: the accessibility tree, finishing a recording. */
const SLOW_CALL_MS = 60_000;

type AnyFn = (...args: unknown[]) => unknown;

/** What each method may take, from its arguments (ms). */
const DEADLINES: Partial<Record<keyof Guest, (args: unknown[]) => number>> = {
  exec: (args) =>
    ((args[1] as ExecOptions | undefined)?.timeoutMs ?? EXEC_DEFAULT_TIMEOUT_MS) + EXEC_GRACE_MS,
  // A keystroke per character, each after `delay` ms.
  type: (args) => CALL_DEADLINE_MS + String(args[0] ?? '').length * ((Number(args[1]) || 0) + 10),
  windows: () => SLOW_CALL_MS,
  startRecording: () => SLOW_CALL_MS,
  stopRecording: () => SLOW_CALL_MS,
  listRecordings: () => SLOW_CALL_MS,
  getRecording: () => SLOW_CALL_MS,
  deleteRecording: () => SLOW_CALL_MS,
};

// A streaming exec (execStream) and a forwarded connection (forwardPort) are bounded here only until
// they open (CALL_DEADLINE_MS): once open they live as long as their client wants (a terminal idle
// for an hour, a WebSocket that carries one message a day), so no deadline or stall rule can tell a
// quiet stream from a held one. The VM cannot hold them anyway: the SSH connection under them sends
// keepalives, and a VM that stops answering those loses the connection and every stream on it; the
// API's side pings its clients and caps how many streams a sandbox holds (api/ws/stream-liveness.ts).

/** Methods whose answer is a stream from the VM: it is guarded against stalls once it is handed out. */
const STREAM_RESULTS = new Set<keyof Guest>(['getFile', 'getDir', 'downloadRecording']);
/** Methods taking a stream to the VM (argument 1): it is guarded, and the call has no overall deadline. */
const STREAM_ARGS = new Set<keyof Guest>(['putFile', 'putDir']);
/** Not calls on the VM: the guest's own bookkeeping, passed through. */
const PASS_THROUGH = new Set<string>(['abandon', 'close']);

const wrapped = new WeakMap<Guest, Guest>();

/** `guest` with every call bounded (one wrapper per guest: callers may compare them). */
export function withDeadlines(guest: Guest): Guest {
  const known = wrapped.get(guest);
  if (known) return known;
  const proxy = new Proxy(guest, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string' || PASS_THROUGH.has(prop)) return value;
      const method = prop as keyof Guest;
      return (...args: unknown[]) => bounded(target, method, (value as AnyFn).bind(target), args);
    },
  });
  wrapped.set(guest, proxy);
  return proxy;
}

function bounded(guest: Guest, method: keyof Guest, call: AnyFn, args: unknown[]): Promise<unknown> {
  const abandon = () => guest.abandon?.();
  if (STREAM_ARGS.has(method) && args[1] !== undefined) {
    const guard = stallGuard(`${method} of ${String(args[0])}`, abandon);
    const input = Buffer.isBuffer(args[1]) ? Readable.from([args[1]]) : (args[1] as Readable);
    const guarded = guard.feed(input);
    return Promise.race([Promise.resolve(call(args[0], guarded, ...args.slice(2))), guard.failed]).finally(
      guard.stop,
    );
  }
  const ms = DEADLINES[method]?.(args) ?? CALL_DEADLINE_MS;
  const work = Promise.resolve(call(...args));
  return new Promise((resolve, reject) => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      abandon();
      reject(new DriverError('timeout', `the VM did not answer ${method} within ${ms / 1000} s`, method));
    }, ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        if (late) {
          // Too late to hand out: a stream that came after the deadline is closed.
          if (value instanceof Readable) value.destroy();
          else if (method === 'execStream') (value as ExecStream).close();
          return;
        }
        resolve(
          STREAM_RESULTS.has(method) && value instanceof Readable
            ? guardResult(method, value, abandon)
            : value,
        );
      },
      (err: unknown) => {
        clearTimeout(timer);
        if (!late) reject(err as Error);
      },
    );
  });
}

/**
 * A download from the VM, failed once the VM has held a waiting reader for STALL_MS (`abandon` is
 * called first). Also the API's guard on a forwarded port's HTTP response.
 */
export function guardResult(method: string, source: Readable, abandon: () => void): Readable {
  const out = new PassThrough();
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      // The reader is slow (our buffer is full): not the VM's doing. Look again later.
      if (out.readableLength >= out.readableHighWaterMark || out.isPaused()) return arm();
      abandon();
      out.destroy(
        new DriverError('timeout', `${method}: the VM sent nothing for ${STALL_MS / 1000} s`, method),
      );
    }, STALL_MS);
  };
  source.on('data', arm);
  source.on('error', (err) => out.destroy(err));
  out.on('close', () => {
    clearTimeout(timer);
    source.destroy();
  });
  source.pipe(out);
  arm();
  return out;
}

/**
 * An upload to the VM: what the driver reads goes through `feed`'s stream; `failed` rejects once
 * data has waited for the VM for STALL_MS (or the upload ended and the VM has not finished with it).
 */
function stallGuard(what: string, abandon: () => void) {
  let timer: NodeJS.Timeout | undefined;
  let reject: (err: Error) => void = () => {};
  const failed = new Promise<never>((_, r) => (reject = r));
  failed.catch(() => {});
  let pass: PassThrough | undefined;
  let inputDone = false;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      // Nothing waits for the VM: the client is slow to send. Look again later.
      if (pass && pass.readableLength === 0 && !inputDone) return arm();
      abandon();
      const err = new DriverError(
        'timeout',
        `${what}: the VM took nothing for ${STALL_MS / 1000} s`,
        'upload',
      );
      pass?.destroy(err);
      reject(err);
    }, STALL_MS);
  };
  return {
    failed,
    feed(input: Readable): Readable {
      pass = new PassThrough();
      input.on('end', () => {
        inputDone = true;
        arm();
      });
      pass.on('data', arm);
      // What the driver reads (the `data` above fires as it takes each chunk).
      const toDriver = new PassThrough();
      // pipe() does not carry errors: a failed upload (a body past the limit, a stall) must reach
      // the driver as a failed stream, and an error with no listener would crash the process.
      const fail = (err: Error) => {
        pass?.destroy(err);
        toDriver.destroy(err);
      };
      input.on('error', fail);
      pass.on('error', fail);
      pass.pipe(toDriver);
      toDriver.on('close', () => pass?.destroy());
      input.pipe(pass);
      arm();
      return toDriver;
    },
    stop: () => clearTimeout(timer),
  };
}
