import { Command, Flags } from '@oclif/core';
import { DRIVERS } from '../../crds/index.ts';
import { storeFlags, storeOptions } from './shared/store-flags.ts';

export default class Server extends Command {
  static override summary =
    'Run sandbay: the store, the customer and admin APIs and the operator, in one process.';
  static override description =
    'Runs until SIGINT or SIGTERM, then closes gracefully. On first start it creates DATA_DIR/admin.key ' +
    '(the admin key) and DATA_DIR/admin-tls.crt (the admin listener certificate, for kubectl).';
  static override examples = [
    '<%= config.bin %> server',
    '<%= config.bin %> server --data-dir /var/lib/sandbay --host-driver tart',
  ];

  static override flags = {
    ...storeFlags,
    'data-dir': Flags.string({ description: 'where the database, keys and blobs live', default: './data' }),
    port: Flags.integer({ description: 'customer API port', default: 8080, min: 0, max: 65535 }),
    'admin-port': Flags.integer({
      description: 'admin API port (HTTP and HTTPS)',
      default: 8081,
      min: 0,
      max: 65535,
    }),
    'host-driver': Flags.string({ description: 'how VMs are run', options: [...DRIVERS], default: 'linux' }),
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
    const { flags } = await this.parse(Server);
    // Loaded here, not at the top: the other commands start faster without the server's modules.
    const { startServer } = await import('../../api/server.ts');
    const server = await startServer({
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
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await server.close();
    process.stderr.write(`sandbay stopped (${signal})\n`);
  }

  protected override async catch(err: Error): Promise<void> {
    process.stderr.write(`error: ${err.message.split('\n')[0]}\n`);
    process.exitCode = 1;
  }
}
