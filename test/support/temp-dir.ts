// A temp directory and its removal. Free of vitest, like the other helpers here: the benches import
// it into processes they measure.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TempDir {
  dir: string;
  cleanup(): Promise<void>;
}

export async function tempDir(prefix = 'sandbay-api-'): Promise<TempDir> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
