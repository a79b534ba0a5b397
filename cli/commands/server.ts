import { Command, Flags } from '@oclif/core';
import { getPriority, setPriority } from 'node:os';
import { DEFAULT_SERVER_NICE } from '../../api/server-nice.ts';
import { listenerFlags, listenerOptions } from './shared/listener-flags.ts';
import { storeFlags, storeOptions } from './shared/store-flags.ts';
import { runUntilStopped } from './shared/until-stopped.ts';
import { vmNetworkFlags, vmNetworkOptions } from './shared/vm-network-flags.ts';

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
    ...vmNetworkFlags,
    priority: Flags.integer({
      description:
        "the server's nice level: ahead of the desktops it serves, so a call's few milliseconds of server work never wait behind a booting desktop (below 0 needs root; the VMs' programs run at 0)",
      default: DEFAULT_SERVER_NICE,
      min: -20,
      max: 19,
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Server);
    // Before any thread or child exists: each inherits the nice of the thread that makes it.
    try {
      setPriority(flags.priority);
    } catch (err) {
      process.stderr.write(`sandbay: keeps its nice level ${getPriority()}: ${(err as Error).message}\n`);
    }
    // Loaded here, not at the top: the other commands start faster without the server's modules.
    const { startServer } = await import('../../api/server.ts');
    const server = await startServer({
      ...storeOptions(flags),
      dataDir: flags['data-dir'],
      ...listenerOptions(flags),
      ...vmNetworkOptions(flags),
    });
    await runUntilStopped('sandbay', server);
  }

  protected override async catch(err: Error): Promise<void> {
    process.stderr.write(`error: ${err.message.split('\n')[0]}\n`);
    process.exitCode = 1;
  }
}
