// What every admin command shares: where the admin API is and which key to present, and errors
// printed as one line (`error: minis "x" not found`) with exit code 1, never a stack trace.
import { existsSync, readFileSync } from 'node:fs';
import { Command, Errors, Flags } from '@oclif/core';
import { AdminClient } from '../../client.ts';

export const DEFAULT_ADMIN_URL = 'http://127.0.0.1:8081';
/** Where `sandbay server` keeps the admin key and certificate when run with its default data dir. */
const DEFAULT_KEY_FILE = './data/admin.key';
const DEFAULT_CA_FILE = './data/admin-tls.crt';

export abstract class AdminCommand extends Command {
  static override baseFlags = {
    server: Flags.string({
      description: `admin API URL [env: SANDBAY_URL] (default ${DEFAULT_ADMIN_URL})`,
      helpGroup: 'CONNECTION',
    }),
    token: Flags.string({
      description: `admin key [env: SANDBAY_ADMIN_KEY] (default: the contents of ${DEFAULT_KEY_FILE})`,
      helpGroup: 'CONNECTION',
    }),
    'certificate-authority': Flags.string({
      description: `PEM file to trust for an https admin URL [env: SANDBAY_CA] (default ${DEFAULT_CA_FILE})`,
      helpGroup: 'CONNECTION',
    }),
  };

  protected connect(flags: {
    server?: string;
    token?: string;
    'certificate-authority'?: string;
  }): AdminClient {
    // An empty environment variable counts as unset.
    const env = (name: string) => process.env[name] || undefined;
    const server = flags.server ?? env('SANDBAY_URL') ?? DEFAULT_ADMIN_URL;
    const token = flags.token ?? env('SANDBAY_ADMIN_KEY') ?? readIfPresent(DEFAULT_KEY_FILE);
    if (!token) {
      this.error(
        `no admin key: pass --token, set SANDBAY_ADMIN_KEY, or run where ${DEFAULT_KEY_FILE} exists`,
      );
    }
    const caFile = flags['certificate-authority'] ?? env('SANDBAY_CA');
    const ca = caFile !== undefined ? readFileSync(caFile, 'utf8') : readIfPresent(DEFAULT_CA_FILE);
    return new AdminClient({ server, token, ...(ca !== undefined && { ca }) });
  }

  protected override async catch(err: Error & { oclif?: { exit?: number } }): Promise<void> {
    if (err instanceof Errors.ExitError) throw err;
    const oneLine = (err.message || String(err))
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .join(' ');
    process.stderr.write(`error: ${oneLine}\n`);
    process.exitCode = 1;
  }
}

function readIfPresent(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
}
