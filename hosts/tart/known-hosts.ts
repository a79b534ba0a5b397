// Host keys pinned on first use: the first key a Mac (or a guest, per boot) presents is recorded;
// any other key later is refused. A Mac's record lives in `<dataDir>/tart/known_hosts/<mini>`, so a
// control-plane restart keeps it; an operator who re-installs a Mac deletes that file.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const fingerprint = (key: Buffer) => createHash('sha256').update(key).digest('base64');

/** A verifier for ssh2's hostVerifier that pins the Mac's key in `dir/name`. */
export function pinnedOnDisk(dir: string, name: string): (key: Buffer) => boolean {
  const file = join(dir, name);
  return (key) => {
    const seen = fingerprint(key);
    let known: string | undefined;
    try {
      known = readFileSync(file, 'utf8').trim();
    } catch {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(file, `${seen}\n`, { mode: 0o600 });
      return true;
    }
    return known === seen;
  };
}

/** A verifier that pins in memory (a guest's key, for the life of one boot). */
export function pinnedInMemory(): (key: Buffer) => boolean {
  let known: string | undefined;
  return (key) => {
    const seen = fingerprint(key);
    known ??= seen;
    return known === seen;
  };
}
