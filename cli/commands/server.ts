import { Command, Flags } from '@oclif/core';
import { listenerFlags, listenerOptions } from './shared/listener-flags.ts';
import { storeFlags, storeOptions } from './shared/store-flags.ts';
import { runUntilStopped } from './shared/until-stopped.ts';

export default class Server extends Command {
  static override summary =
    'Run sandbay: the store, the customer and admin APIs and the operator, in one process.';
  static override description =
    'Runs until SIGINT or SIGTERM, then closes gracefully within 8 s (requests in flight get 5 s; what is cut off is logged and the exit code is 1). On first start it creates DATA_DIR/admin.key ' +
    '(the admin key) and DATA_DIR/admin-tls.crt (the admin listener certificate, for kubectl).';
  static override examples = [
    '<%= config.bin %> server',
    '<%= config.bin %> server --data-dir /var/lib/sandbay --host-driver tart',
  ];

  static override flags = {
    ...storeFlags,
    'data-dir': Flags.string({ description: 'where the database, keys and blobs live', default: './data' }),
    ...listenerFlags,
    'vm-outbound-nat': Flags.boolean({
      description:
        'linux driver: VMs reach the internet through NAT on this machine (needs net.ipv4.ip_forward=1; docs/isolation.md)',
      default: false,
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Server);
    // Loaded here, not at the top: the other commands start faster without the server's modules.
    const { startServer } = await import('../../api/server.ts');
    const server = await startServer({
      ...storeOptions(flags),
      dataDir: flags['data-dir'],
      ...listenerOptions(flags),
      vmOutboundNat: flags['vm-outbound-nat'],
    });
    await runUntilStopped('sandbay', server);
  }

  protected override async catch(err: Error): Promise<void> {
    process.stderr.write(`error: ${err.message.split('\n')[0]}\n`);
    process.exitCode = 1;
  }
}
