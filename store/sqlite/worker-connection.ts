// A Connection whose statements run in a worker thread (sqlite/connection-worker.ts).
//
// The store's writer lives here: node:sqlite is synchronous, and a write's COMMIT waits for an
// fsync (synchronous=FULL) or, with another process writing, up to the busy timeout for the
// lock. On the main thread that would stall every request and watch for that long; in the
// worker the event loop goes on, and writes that arrive meanwhile gather into the next group
// commit (write-queue.ts), as they did behind the `sqlite3` package's thread pool.
import { Worker } from 'node:worker_threads';
import type { Connection, Durability, SqlValue } from './connection.ts';

export interface Request {
  id: number;
  method: 'run' | 'all' | 'exec' | 'close';
  sql: string;
  params?: SqlValue[];
}

export interface Reply {
  id: number;
  ok: boolean;
  value?: unknown;
  error?: { message: string; code?: string; errcode?: number; errstr?: string };
}

// Built to JavaScript, this module and the worker's both end in .js; run from source, in .ts.
const WORKER_URL = new URL(
  `./connection-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

/** Opens `file` in a new worker thread; rejects as the open itself would (bad path, locked). */
export async function workerConnection(file: string, durability: Durability): Promise<Connection> {
  const worker = new Worker(WORKER_URL, { workerData: { file, durability } });
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let failure: Error | undefined;

  const settleAll = (err: Error): void => {
    failure ??= err;
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  };
  worker.on('message', (reply: Reply) => {
    const w = waiting.get(reply.id);
    if (!w) return;
    waiting.delete(reply.id);
    // The worker keeps the process alive only while a caller waits for it, as a file handle would.
    if (waiting.size === 0) worker.unref();
    if (reply.ok) w.resolve(reply.value);
    else w.reject(toError(reply.error));
  });
  worker.on('error', (err) => settleAll(err));
  worker.on('exit', (code) => settleAll(new Error(`the SQLite worker thread exited (code ${code})`)));

  const call = (req: Omit<Request, 'id'>): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (failure) return reject(failure);
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ ...req, id } satisfies Request);
    });

  // The worker opens the file as it starts and reports with id 0.
  const opened = new Promise((resolve, reject) => waiting.set(0, { resolve, reject }));
  try {
    await opened;
  } catch (err) {
    await worker.terminate();
    throw err;
  }
  let closed: Promise<void> | undefined;
  return {
    run: (sql, params) => call({ method: 'run', sql, params }) as Promise<number>,
    all: <Row>(sql: string, params?: SqlValue[]) => call({ method: 'all', sql, params }) as Promise<Row[]>,
    exec: (sql) => call({ method: 'exec', sql }) as Promise<void>,
    // Requests run in order, so the close runs after every one submitted before it.
    close: () =>
      (closed ??= (async () => {
        await call({ method: 'close', sql: '' });
        await worker.terminate();
      })()),
  };
}

function toError(e: Reply['error']): Error {
  return Object.assign(new Error(e?.message ?? 'SQLite worker error'), {
    code: e?.code,
    errcode: e?.errcode,
    errstr: e?.errstr,
  });
}
