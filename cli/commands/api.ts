import { Command, Flags } from '@oclif/core';
import { listenerFlags, listenerOptions } from './shared/listener-flags.ts';
import { storeFlags, storeOptions } from './shared/store-flags.ts';
import { runUntilStopped } from './shared/until-stopped.ts';

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
    ...listenerFlags,
    'replica-id': Flags.string({
      description:
        'this replica, unique among the API processes on one store (default: POD_NAME, else the hostname); ' +
        'other replicas leave its Idempotency-Keys in flight while it holds its Lease',
    }),
    'replica-lease-seconds': Flags.integer({
      description: 'how long the replica Lease holds without renewal (renewed every third of it)',
      default: 15,
      min: 1,
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Api);
    const { startServer } = await import('../../api/server.ts');
    const server = await startServer({
      role: 'api',
      ...storeOptions(flags),
      dataDir: flags['data-dir'],
      ...listenerOptions(flags),
      replica: {
        ...(flags['replica-id'] !== undefined && { id: flags['replica-id'] }),
        leaseDurationMs: flags['replica-lease-seconds'] * 1000,
      },
    });
    await runUntilStopped('sandbay api', server);
  }

  protected override async catch(err: Error): Promise<void> {
    process.stderr.write(`error: ${err.message.split('\n')[0]}\n`);
    process.exitCode = 1;
  }
}
