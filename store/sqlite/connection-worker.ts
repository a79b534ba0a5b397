// The worker thread behind workerConnection(): one SyncConnection, one request at a time, in the
// order they arrive. Its blocking calls (fsync at COMMIT, the busy wait for another process's
// write lock) stall this thread only, never the event loop of the store's process.
import { parentPort, workerData } from 'node:worker_threads';
import { SyncConnection, type Durability, type SqlValue } from './connection.ts';
import type { Reply, Request } from './worker-connection.ts';

const port = parentPort;
if (!port) throw new Error('connection-worker.ts runs as a worker thread');
const { file, durability } = workerData as { file: string; durability: Durability };

let conn: SyncConnection | undefined;
try {
  conn = new SyncConnection(file, durability);
  port.postMessage({ id: 0, ok: true, value: undefined } satisfies Reply);
} catch (err) {
  port.postMessage({ id: 0, ok: false, error: plainError(err) } satisfies Reply);
}

port.on('message', (req: Request) => {
  try {
    const db = conn as SyncConnection;
    const params = req.params as SqlValue[];
    let value: unknown;
    if (req.method === 'run') value = db.run(req.sql, params);
    else if (req.method === 'all') value = db.all(req.sql, params);
    else if (req.method === 'exec') value = db.exec(req.sql);
    else db.close(); // then the main thread terminates this thread
    port.postMessage({ id: req.id, ok: true, value } satisfies Reply);
  } catch (err) {
    port.postMessage({ id: req.id, ok: false, error: plainError(err) } satisfies Reply);
  }
});

/** The fields of an error that cross the thread boundary (structured clone keeps only message). */
function plainError(err: unknown): Reply['error'] {
  const e = err as { message?: unknown; code?: unknown; errcode?: unknown; errstr?: unknown };
  return {
    message: String(e.message ?? err),
    code: typeof e.code === 'string' ? e.code : undefined,
    errcode: typeof e.errcode === 'number' ? e.errcode : undefined,
    errstr: typeof e.errstr === 'string' ? e.errstr : undefined,
  };
}
