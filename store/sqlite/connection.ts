// One SQLite connection through Node's built-in `node:sqlite` (DatabaseSync), with a cache of
// prepared statements, behind a promise face so that the write path can run it in a worker
// thread (sqlite/worker-connection.ts) without changing shape.
//
// Only `run` and `all` exist, never `get`: a statement stepped part of the way stays active and
// keeps the connection's implicit read transaction open, so that later reads on the same
// connection would keep seeing an old snapshot. `all` steps to the end and resets.
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';

export type SqlValue = string | number | null;

export interface Durability {
  /** SQLite `synchronous` level: FULL (the store's default) or NORMAL; see sqlite-store.ts. */
  synchronous: 'FULL' | 'NORMAL';
  /** How long a write waits for another process's write lock before failing with SQLITE_BUSY. */
  busyTimeoutMs: number;
}

/** What the store needs of a connection, wherever its statements run. */
export interface Connection {
  /** Runs a statement that returns no rows; resolves with the number of changed rows. */
  run(sql: string, params?: SqlValue[]): Promise<number>;
  /** Runs a query to completion and resolves with every row. */
  all<Row>(sql: string, params?: SqlValue[]): Promise<Row[]>;
  /** Runs one or more statements without parameters (schema, pragmas). */
  exec(sql: string): Promise<void>;
  /** Closes after the work already submitted. */
  close(): Promise<void>;
}

/** A connection whose statements run on the calling thread. */
export class SyncConnection {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();

  /** Opens (creating if needed) `file` in WAL mode with the given durability settings. */
  constructor(file: string, durability: Durability) {
    // The busy timeout is set at open: switching to WAL needs a lock another process may hold
    // for a moment.
    this.#db = new DatabaseSync(file, { timeout: durability.busyTimeoutMs });
    try {
      this.#db.exec('PRAGMA journal_mode = WAL');
      this.#db.exec(`PRAGMA synchronous = ${durability.synchronous}`);
    } catch (err) {
      this.#db.close();
      throw err;
    }
  }

  #prepared(sql: string): StatementSync {
    let stmt = this.#statements.get(sql);
    if (!stmt) {
      stmt = this.#db.prepare(sql);
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  run(sql: string, params: SqlValue[] = []): number {
    return Number(this.#prepared(sql).run(...(params as SQLInputValue[])).changes);
  }

  all<Row>(sql: string, params: SqlValue[] = []): Row[] {
    return this.#prepared(sql).all(...(params as SQLInputValue[])) as Row[];
  }

  exec(sql: string): void {
    this.#db.exec(sql);
  }

  close(): void {
    this.#statements.clear();
    if (this.#db.isOpen) this.#db.close();
  }
}

/**
 * The longest a run of back-to-back calls may hold the event loop: a loop of reads whose
 * promises resolve at once never lets timers, sockets or watch polls in, so after this much
 * work without a turn of the loop the next call waits for one (setImmediate).
 */
const SLICE_MS = 2;

/** The promise face of a SyncConnection on this thread (the store's reader). */
export function inlineConnection(file: string, durability: Durability): Connection {
  const conn = new SyncConnection(file, durability);
  let sliceStart = -Infinity;
  let turned = true;
  const turn = (): void => void (turned = true);
  const slice = async (): Promise<void> => {
    if (!turned && performance.now() - sliceStart > SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (turned) {
      turned = false;
      sliceStart = performance.now();
      setImmediate(turn);
    }
  };
  return {
    run: async (sql, params) => (await slice(), conn.run(sql, params)),
    all: async <Row>(sql: string, params?: SqlValue[]) => (await slice(), conn.all<Row>(sql, params)),
    exec: async (sql) => (await slice(), conn.exec(sql)),
    // Nothing is ever in flight: every statement has completed before its promise exists.
    close: async () => conn.close(),
  };
}

/** True for SQLITE_BUSY (any extended code): another connection held the lock past the busy timeout. */
export function isBusy(err: unknown): boolean {
  const errcode = (err as { errcode?: unknown } | null)?.errcode;
  return typeof errcode === 'number' && (errcode & 0xff) === 5;
}
