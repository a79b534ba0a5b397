import { Command, Flags } from '@oclif/core';
import { DRIVERS } from '../../crds/index.ts';
import { storeFlags, storeOptions } from './shared/store-flags.ts';
import { runUntilStopped } from './shared/until-stopped.ts';

export default class Operator extends Command {
  static override summary =
    'Run the reconcilers only; replicas elect one leader with a coordination.k8s.io/v1 Lease.';
  static override description =
    'A follower takes over within the lease duration after the leader dies; a leader that cannot renew ' +
    'within the renew deadline stops reconciling at once. Probes: GET /healthz and /readyz on --health-port.';
  static override examples = [
    '<%= config.bin %> operator --store kube',
    '<%= config.bin %> operator --store sqlite --data-dir /var/lib/sandbay',
  ];

  static override flags = {
    ...storeFlags,
    'data-dir': Flags.string({
      description: 'blobs (and the database with --store sqlite)',
      default: './data',
    }),
    'host-driver': Flags.string({ description: 'how VMs are run', options: [...DRIVERS], default: 'linux' }),
    'vm-outbound-nat': Flags.boolean({
      description:
        'linux driver: VMs reach the internet through NAT on this machine (needs net.ipv4.ip_forward=1; docs/isolation.md)',
      default: false,
    }),
    'health-port': Flags.integer({ description: 'probe listener port', default: 8082, min: 0, max: 65535 }),
    host: Flags.string({ description: 'address the probe listener binds', default: '127.0.0.1' }),
    rates: Flags.string({
      description: 'rates file seeded into a store without Rates (default config/rates.yaml)',
    }),
    'lease-namespace': Flags.string({
      description: 'namespace of the leader Lease',
      default: 'sandbay-system',
    }),
    'lease-name': Flags.string({ description: 'name of the leader Lease', default: 'sandbay-operator' }),
    'lease-duration': Flags.integer({
      description: 'seconds a Lease holds without renewal',
      default: 15,
      min: 2,
    }),
    'renew-deadline': Flags.integer({
      description: 'seconds a leader may fail to renew before it stops',
      default: 10,
      min: 1,
    }),
    'retry-period': Flags.integer({
      description: 'milliseconds between acquire/renew attempts',
      default: 2000,
      min: 50,
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Operator);
    const { pino } = await import('pino');
    const { startOperatorProcess } = await import('../../operator/process.ts');
    const running = await startOperatorProcess({
      ...storeOptions(flags),
      dataDir: flags['data-dir'],
      hostDriver: flags['host-driver'] as (typeof DRIVERS)[number],
      vmOutboundNat: flags['vm-outbound-nat'],
      healthPort: flags['health-port'],
      host: flags.host,
      leaseNamespace: flags['lease-namespace'],
      leaseName: flags['lease-name'],
      leaseDurationMs: flags['lease-duration'] * 1000,
      renewDeadlineMs: flags['renew-deadline'] * 1000,
      retryPeriodMs: flags['retry-period'],
      ...(flags.rates !== undefined && { rates: flags.rates }),
      logger: pino({ level: process.env.LOG_LEVEL ?? 'info' }),
    });
    process.stderr.write(`sandbay operator: probes on ${running.healthUrl}\n`);
    await runUntilStopped('sandbay operator', running);
  }

  protected override async catch(err: Error): Promise<void> {
    process.stderr.write(`error: ${err.message.split('\n')[0]}\n`);
    process.exitCode = 1;
  }
}
