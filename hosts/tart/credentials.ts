// Where the tart driver's SSH credentials live: `<dataDir>/tart/credentials/<credentialsRef>/`, a
// `user` file and an `id_ed25519` private key, both 0600. A Mini resource only names them, so that
// no key ever appears in a spec, a log line or an error message.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DriverError } from '../driver.ts';

export interface SshCredentials {
  username: string;
  privateKey: string;
}

const REF = /^[a-z0-9]([a-z0-9._-]{0,61}[a-z0-9])?$/;

export function credentialsDir(dataDir: string, ref: string): string {
  if (!REF.test(ref)) throw new DriverError('invalid_argument', `bad credentialsRef ${JSON.stringify(ref)}`);
  return join(dataDir, 'tart', 'credentials', ref);
}

export function writeCredentials(dataDir: string, ref: string, c: SshCredentials): void {
  const dir = credentialsDir(dataDir, ref);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'user'), `${c.username}\n`, { mode: 0o600 });
  writeFileSync(join(dir, 'id_ed25519'), c.privateKey, { mode: 0o600 });
}

/** Reads the credentials a Mini names; the error says which ref and file, never their content. */
export function readCredentials(dataDir: string, ref: string | undefined): SshCredentials {
  if (ref === undefined) throw new DriverError('invalid_argument', 'the Mini has no credentialsRef');
  const dir = credentialsDir(dataDir, ref);
  try {
    return {
      username: readFileSync(join(dir, 'user'), 'utf8').trim(),
      privateKey: readFileSync(join(dir, 'id_ed25519'), 'utf8'),
    };
  } catch {
    throw new DriverError(
      'not_found',
      `credentials ${ref} not found (expected ${dir}/user and ${dir}/id_ed25519)`,
    );
  }
}
