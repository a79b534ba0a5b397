// A promise face on one `sqlite3` connection with a cache of prepared statements.
//
// Only `run` and `all` exist, never `Statement#get`: `get` stops after the first row and leaves the
// statement active, which keeps the connection's implicit read transaction open, so that later reads
// on the same connection would keep seeing an old snapshot.
import sqlite3 from 'sqlite3';

export type SqlValue = string | number | null;

export interface Durability {
  /** SQLite `synchronous` level: FULL (the store's default) or NORMAL; see sqlite-store.ts. */
  synchronous: 'FULL' | 'NORMAL';
  /** How long a write waits for another process's write lock before failing with SQLITE_BUSY. */
  busyTimeoutMs: number;
}

export class Connection {
  readonly #db: sqlite3.Database;
  readonly #statements = new Map<string, sqlite3.Statement>();
  /** Statements still running; close() lets them settle (a watch replaying history, say). */
  readonly #inFlight = new Set<Promise<unknown>>();

  private constructor(db: sqlite3.Database) {
    this.#db = db;
  }

  /** Opens (creating if needed) `file` in WAL mode with the given durability settings. */
  static async open(file: string, durability: Durability): Promise<Connection> {
    const db = await new Promise<sqlite3.Database>((resolve, reject) => {
      const opened: sqlite3.Database = new sqlite3.Database(file, (err) =>
        err ? reject(err) : resolve(opened),
      );
    });
    const conn = new Connection(db);
    try {
      // busy_timeout first: switching to WAL needs a lock another process may hold for a moment.
      db.configure('busyTimeout', durability.busyTimeoutMs);
      await conn.exec('PRAGMA journal_mode = WAL');
      await conn.exec(`PRAGMA synchronous = ${durability.synchronous}`);
      return conn;
    } catch (err) {
      await conn.close();
      throw err;
    }
  }

  #prepared(sql: string): sqlite3.Statement {
    let stmt = this.#statements.get(sql);
    if (!stmt) {
      stmt = this.#db.prepare(sql);
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  /** Runs a statement that returns no rows; resolves with the number of changed rows. */
  run(sql: string, params: SqlValue[] = []): Promise<number> {
    return this.#track(
      new Promise((resolve, reject) => {
        this.#prepared(sql).run(params, function (err) {
          if (err) reject(err);
          else resolve(this.changes);
        });
      }),
    );
  }

  /** Runs a query to completion and resolves with every row. */
  all<Row>(sql: string, params: SqlValue[] = []): Promise<Row[]> {
    return this.#track(
      new Promise((resolve, reject) => {
        this.#prepared(sql).all<Row>(params, (err, rows) => (err ? reject(err) : resolve(rows)));
      }),
    );
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#inFlight.add(work);
    const settle = () => this.#inFlight.delete(work);
    work.then(settle, settle);
    return work;
  }

  /** Runs one or more statements without parameters (schema, pragmas). */
  exec(sql: string): Promise<void> {
    return new Promise((resolve, reject) => this.#db.exec(sql, (err) => (err ? reject(err) : resolve())));
  }

  async close(): Promise<void> {
    // Closing with a statement still running fails with SQLITE_BUSY ("unfinalized statements").
    await Promise.allSettled([...this.#inFlight]);
    await Promise.all(
      [...this.#statements.values()].map((s) => new Promise<void>((resolve) => s.finalize(() => resolve()))),
    );
    this.#statements.clear();
    await new Promise<void>((resolve, reject) => this.#db.close((err) => (err ? reject(err) : resolve())));
  }
}

/** True for SQLITE_BUSY: another connection holds the lock longer than the busy timeout. */
export function isBusy(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'SQLITE_BUSY';
}
