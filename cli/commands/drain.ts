import { Flags } from '@oclif/core';
import { drainMini } from '../mini-schedule.ts';
import { AdminCommand } from './shared/admin-command.ts';
import { miniArgs, requireMiniKind } from './shared/mini-arg.ts';

export default class Drain extends AdminCommand {
  static override summary = 'Cordon a Mini and wait until no reservation holds it.';
  static override description =
    'Fails after --timeout naming the reservation that still holds the Mini; the Mini stays cordoned.';
  static override examples = [
    '<%= config.bin %> drain mini mini-1',
    '<%= config.bin %> drain mini mini-1 --timeout 3600',
  ];
  static override args = miniArgs;
  static override flags = {
    timeout: Flags.integer({
      description: 'seconds to wait for the reservation to end',
      default: 600,
      min: 0,
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Drain);
    requireMiniKind(args.kind);
    const drained = await drainMini(this.connect(flags), args.name, {
      timeoutMs: flags.timeout * 1000,
      onWaiting: (reservation) =>
        this.log(`mini/${args.name} cordoned; waiting for reservation ${reservation}`),
    });
    if (!drained) throw new Error(`minis "${args.name}" not found`);
    this.log(`mini/${args.name} drained`);
  }
}
