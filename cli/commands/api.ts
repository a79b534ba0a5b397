import { Command, Flags } from '@oclif/core';
import { DRIVERS } from '../../crds/index.ts';
import { storeFlags, storeOptions, untilSignalled } from './shared/store-flags.ts';

export default class Api extends Command {
  static override summary =
    'Run the customer and admin APIs only (no operator); run any number of replicas on one store.';
  static override description =
    'Stateless: idempotency records, activity and keys live in the store. Every replica must sign viewer ' +
    'tokens with the same secret: SANDBAY_VIEWER_SECRET (base64, 32+ bytes), or a shared DATA_DIR. ' +
    'Run `sandbay operator` beside it.';
  static override examples = [
    '<%= config.bin %> api --store kube',
    '<%= config.bin %> api --store kube --kubeconfig ~/.kube/config --context prod',
  ];

  static override flags = {
    ...storeFlags,
    'data-dir': Flags.string({
      description: 'keys, TLS material (and the database with --store sqlite)',
      default: './data',
    }),
    port: Flags.integer({ description: 'customer API port', default: 8080, min: 0, max: 65535 }),
    'admin-port': Flags.integer({
      description: 'admin API port (HTTP and HTTPS)',
      default: 8081,
      min: 0,
      max: 65535,
    }),
    'host-driver': Flags.string({
      description: 'how VMs are reached',
      options: [...DRIVERS],
      default: 'linux',
    }),
    'audit-log': Flags.string({
      description: 'append an audit line per Kubernetes API request to this file',
    }),
    host: Flags.string({ description: 'address the customer listener binds', default: '127.0.0.1' }),
    'admin-host': Flags.string({
      description: 'address the admin listener binds (the admin key travels in clear only from loopback)',
      default: '127.0.0.1',
    }),
    'min-free-mib': Flags.integer({
      description: 'refuse new snapshots, recordings and uploads while less is free in the data dir',
      default: 1024,
      min: 0,
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Api);
    const { startServer } = await import('../../api/server.ts');
    const server = await startServer({
      role: 'api',
      ...storeOptions(flags),
      dataDir: flags['data-dir'],
      port: flags.port,
      adminPort: flags['admin-port'],
      hostDriver: flags['host-driver'] as (typeof DRIVERS)[number],
      host: flags.host,
      adminHost: flags['admin-host'],
      minFreeBytes: flags['min-free-mib'] * 1024 * 1024,
      ...(flags['audit-log'] !== undefined && { auditLog: flags['audit-log'] }),
    });
    const signal = await untilSignalled();
    await server.close();
    process.stderr.write(`sandbay api stopped (${signal})\n`);
  }

  protected override async catch(err: Error): Promise<void> {
    process.stderr.write(`error: ${err.message.split('\n')[0]}\n`);
    process.exitCode = 1;
  }
}
