// The store's tables. The `events` table is the write log and the source of truth for changes:
// a write inserts its events (one per changed object, resourceVersion = `rv`) and triggers apply
// each event to `objects` (the current state) and keep `refs` (owner uid → dependent) in step.
// So one multi-row INSERT per transaction writes everything, which keeps round trips to the
// writer's worker thread (sqlite/worker-connection.ts) out of the per-write cost.
//
// Invariants:
// - `events.rv` are consecutive integers; the newest is the store's resourceVersion. Compaction
//   deletes the oldest events only and always keeps the newest one, so max(rv) never goes back.
// - `objects` holds exactly the objects whose last event is not DELETED; `objects.data` is the JSON
//   of that last event. `ns` is '' for cluster-scoped kinds.
import type { Connection } from './connection.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS objects (
  kind TEXT NOT NULL,
  ns TEXT NOT NULL,
  name TEXT NOT NULL,
  rv INTEGER NOT NULL,
  owners TEXT,              -- JSON array of ownerReferences uids, NULL when none
  data TEXT NOT NULL,       -- the object as JSON
  PRIMARY KEY (kind, ns, name)
);

CREATE TABLE IF NOT EXISTS events (
  rv INTEGER PRIMARY KEY,
  type TEXT NOT NULL,       -- ADDED | MODIFIED | DELETED
  kind TEXT NOT NULL,
  ns TEXT NOT NULL,
  name TEXT NOT NULL,
  owners TEXT,
  prev_labels TEXT,         -- labels before the change (JSON), for selector watches; NULL on ADDED
  at INTEGER NOT NULL,      -- commit time, ms since epoch, for age-based compaction
  data TEXT NOT NULL        -- the object after the change (for DELETED: its last state)
);

CREATE TABLE IF NOT EXISTS refs (
  owner_uid TEXT NOT NULL,
  kind TEXT NOT NULL,
  ns TEXT NOT NULL,
  name TEXT NOT NULL,
  PRIMARY KEY (owner_uid, kind, ns, name)
) WITHOUT ROWID;

CREATE TRIGGER IF NOT EXISTS events_put AFTER INSERT ON events WHEN NEW.type <> 'DELETED' BEGIN
  INSERT INTO objects (kind, ns, name, rv, owners, data)
    VALUES (NEW.kind, NEW.ns, NEW.name, NEW.rv, NEW.owners, NEW.data)
    ON CONFLICT (kind, ns, name) DO UPDATE SET rv = excluded.rv, owners = excluded.owners, data = excluded.data;
END;

CREATE TRIGGER IF NOT EXISTS events_delete AFTER INSERT ON events WHEN NEW.type = 'DELETED' BEGIN
  DELETE FROM objects WHERE kind = NEW.kind AND ns = NEW.ns AND name = NEW.name;
END;

CREATE TRIGGER IF NOT EXISTS objects_refs_insert AFTER INSERT ON objects WHEN NEW.owners IS NOT NULL BEGIN
  INSERT OR IGNORE INTO refs (owner_uid, kind, ns, name)
    SELECT value, NEW.kind, NEW.ns, NEW.name FROM json_each(NEW.owners);
END;

CREATE TRIGGER IF NOT EXISTS objects_refs_update AFTER UPDATE OF owners ON objects
WHEN OLD.owners IS NOT NEW.owners BEGIN
  DELETE FROM refs WHERE owner_uid IN (SELECT value FROM json_each(OLD.owners))
    AND kind = OLD.kind AND ns = OLD.ns AND name = OLD.name;
  INSERT OR IGNORE INTO refs (owner_uid, kind, ns, name)
    SELECT value, NEW.kind, NEW.ns, NEW.name FROM json_each(NEW.owners);
END;

CREATE TRIGGER IF NOT EXISTS objects_refs_delete AFTER DELETE ON objects WHEN OLD.owners IS NOT NULL BEGIN
  DELETE FROM refs WHERE owner_uid IN (SELECT value FROM json_each(OLD.owners))
    AND kind = OLD.kind AND ns = OLD.ns AND name = OLD.name;
END;
`;

/** Creates the tables if missing. Safe to run from several processes at once. */
export async function migrate(conn: Connection): Promise<void> {
  await conn.exec(`BEGIN IMMEDIATE; ${SCHEMA} COMMIT;`).catch(async (err: unknown) => {
    await conn.exec('ROLLBACK').catch(() => undefined);
    throw err;
  });
}

/** One events row as the write path inserts it and the watch path reads it. */
export interface EventRow {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  kind: string;
  ns: string;
  name: string;
  owners: string | null;
  prev_labels: string | null;
  at: number;
  data: string;
}

/** Inserts any number of events in one statement: the rows travel as one JSON array parameter. */
export const INSERT_EVENTS = `
INSERT INTO events (rv, type, kind, ns, name, owners, prev_labels, at, data)
SELECT value->>0, value->>1, value->>2, value->>3, value->>4, value->>5, value->>6, value->>7, value->>8
FROM json_each(?)`;

export function eventTuple(e: EventRow): unknown[] {
  return [e.rv, e.type, e.kind, e.ns, e.name, e.owners, e.prev_labels, e.at, e.data];
}
