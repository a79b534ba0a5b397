// One leader-election replica for bench/kube.ts: contends for a Lease on a SQLite store file and
// prints `LEADING <ms since epoch>` when it wins. Runs until killed.
//   node bench/leader-child.ts <db file> <identity> <leaseMs> <renewMs> <retryMs>
import { LeaderElector } from '../operator/runtime/leader.ts';
import { openSqliteStore } from '../store/sqlite-store.ts';

const [file, identity, lease, renew, retry] = process.argv.slice(2);
const store = await openSqliteStore({ file: file!, pollIntervalMs: 20 });
new LeaderElector({
  store,
  namespace: 'bench',
  name: 'bench-leader',
  identity: identity!,
  leaseDurationMs: Number(lease),
  renewDeadlineMs: Number(renew),
  retryPeriodMs: Number(retry),
  onStartedLeading: () => void process.stdout.write(`LEADING ${Date.now()}\n`),
  onStoppedLeading: () => undefined,
}).start();
process.stdout.write('READY\n');
