// `npm run emulated-macs -- up N [--model m4] [--data-dir DIR] [--owner-pid PID]` creates N emulated
// Macs and prints their Mini resources as YAML on stdout (progress on stderr); the control plane's
// key goes to DIR/tart/credentials/emulated-macs/ (DIR: the server's --data-dir, default ./data),
// which the Minis name as their credentialsRef. The Macs stay until `down`, or with --owner-pid go
// with that process (a test's that runs this command). `npm run emulated-macs -- down` removes every
// Mac, namespace, process and file they made, and `sweep` (which `down` does too) the Macs of tests
// and benches that were killed before their cleanup. `SANDBAY_EMULATED_MACS_DIR` moves their root (default /var/lib/…).
import { parseArgs } from 'node:util';
import type { MacModel } from '../../../crds/meta.ts';
import { ownerOf } from '../../../hosts/linux/claims.ts';
import { writeCredentials } from '../../../hosts/tart/credentials.ts';
import { DEFAULT_ROOT, downAll, miniYaml, sweepAbandonedMacs, upMacs } from './macs.ts';

const CREDENTIALS_REF = 'emulated-macs';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    model: { type: 'string', default: 'm4' },
    'data-dir': { type: 'string', default: 'data' },
    'owner-pid': { type: 'string' },
  },
});
const root = process.env.SANDBAY_EMULATED_MACS_DIR ?? DEFAULT_ROOT;
const [command, count] = positionals;

if (command === 'up') {
  const n = Number(count ?? '1');
  if (!Number.isInteger(n) || n < 1 || n > 50) {
    process.stderr.write(
      'usage: emulated-macs up N (1-50) [--model m4|m4-pro|m5-pro] [--data-dir DIR] [--owner-pid PID]\n',
    );
    process.exit(2);
  }
  const ownerPid = values['owner-pid'];
  const owner =
    ownerPid !== undefined && /^[1-9][0-9]*$/.test(ownerPid) ? ownerOf(Number(ownerPid)) : undefined;
  if (ownerPid !== undefined && !owner) {
    process.stderr.write(`emulated-macs up: --owner-pid ${ownerPid}: no such process\n`);
    process.exit(2);
  }
  const fleet = await upMacs(root, n, values.model as MacModel, { owner });
  writeCredentials(values['data-dir'], CREDENTIALS_REF, { username: 'root', privateKey: fleet.privateKey });
  for (const m of fleet.macs)
    process.stderr.write(`${m.name}: ssh root@${m.address} (namespace ${m.netns})\n`);
  process.stdout.write(miniYaml(fleet.macs, CREDENTIALS_REF));
} else if (command === 'down') {
  await downAll(root);
  process.stderr.write(`removed every emulated Mac under ${root}\n`);
  await sweep();
} else if (command === 'sweep') {
  await sweep();
} else {
  process.stderr.write('usage: emulated-macs up N | down | sweep\n');
  process.exit(2);
}

async function sweep(): Promise<void> {
  const links = await sweepAbandonedMacs();
  if (links.length > 0) {
    process.stderr.write(
      `removed ${links.length} emulated Macs left by killed processes (links ${links.join(', ')})\n`,
    );
  }
}
