// One operator replica of the Kubernetes-mode test, as `sandbay operator --store kube` runs it, on
// the journaled sim (test/support/journaled-sim.ts) that each new leader opens on takeover: real Macs
// outlive the replica that drove them.
//
//   node test/support/operator-replica.ts <kubeconfig> <dataDir> <identity> <journal>
//
// Prints `READY <healthUrl>`; runs until killed (SIGTERM: releases the Lease; SIGKILL: does not).
import { pino } from 'pino';
import { startOperatorProcess } from '../../operator/process.ts';
import { journaledSim } from './journaled-sim.ts';

export const REPLICA_LEASE = { leaseDurationMs: 5000, renewDeadlineMs: 3500, retryPeriodMs: 300 };

const [kubeconfig, dataDir, identity, journal] = process.argv.slice(2);
if (import.meta.main) {
  if (!kubeconfig || !dataDir || !identity || !journal) {
    throw new Error('usage: operator-replica.ts <kubeconfig> <dataDir> <identity> <journal>');
  }
  const running = await startOperatorProcess({
    store: 'kube',
    kubeconfig,
    dataDir,
    hostDriver: 'sim',
    identity,
    ...REPLICA_LEASE,
    healthPort: 0,
    logger: pino({ level: process.env.LOG_LEVEL ?? 'warn' }),
    openDrivers: async () => ({ sim: await journaledSim(journal) }),
  });
  process.stdout.write(`READY ${running.healthUrl}\n`);
  process.once('SIGTERM', () => void running.close().then(() => process.exit(0)));
}
