// Where recordings live: `<dataDir>/recordings/<id>.mp4` beside `<id>.json` (its RecordingInfo plus
// the recorder's pid while it runs). dataDir belongs to root, not to the VM user, so nothing inside
// the VM can read, replace or delete a recording.
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { RecordingInfo } from '../driver.ts';

export interface RecordingMeta extends RecordingInfo {
  /** The recorder process while `state` is `recording`. */
  pid?: number;
}

const ID = /^rec-[0-9a-f]{24}$/;

export function newRecordingId(): string {
  return `rec-${randomBytes(12).toString('hex')}`;
}

export function isRecordingId(id: unknown): id is string {
  return typeof id === 'string' && ID.test(id);
}

export class RecordingStore {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'recordings');
  }

  async ensureDir(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
  }

  video(id: string): string {
    return join(this.dir, `${id}.mp4`);
  }

  async read(id: string): Promise<RecordingMeta | undefined> {
    if (!isRecordingId(id)) return undefined;
    try {
      return JSON.parse(await readFile(join(this.dir, `${id}.json`), 'utf8')) as RecordingMeta;
    } catch {
      return undefined;
    }
  }

  /** Atomic: a reader sees the old or the new record, never half of one. */
  async write(meta: RecordingMeta): Promise<void> {
    const file = join(this.dir, `${meta.id}.json`);
    const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(temp, JSON.stringify(meta), { mode: 0o600 });
    await rename(temp, file);
  }

  async list(): Promise<RecordingMeta[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    const ids = names.filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5));
    const metas = await Promise.all(ids.map((id) => this.read(id)));
    return metas
      .filter((m): m is RecordingMeta => m !== undefined)
      .sort((a, b) => a.started_at.localeCompare(b.started_at));
  }

  async remove(id: string): Promise<void> {
    await rm(this.video(id), { force: true });
    await rm(join(this.dir, `${id}.json`), { force: true });
  }
}

/** The API's view of a record: without the recorder's pid. */
export function publicInfo(meta: RecordingMeta): RecordingInfo {
  const { pid: _pid, ...info } = meta;
  return info;
}
