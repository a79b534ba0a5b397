import { AdminCommand } from './shared/admin-command.ts';
import { miniArgs, requireMiniKind } from './shared/mini-arg.ts';
import { setSchedulable } from '../mini-schedule.ts';

export default class Cordon extends AdminCommand {
  static override summary =
    'Keep new reservations off a Mini (spec.schedulable=false); its current reservation stays.';
  static override examples = ['<%= config.bin %> cordon mini mini-1'];
  static override args = miniArgs;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Cordon);
    requireMiniKind(args.kind);
    await setSchedulable(this.connect(flags), args.name, false);
    this.log(`mini/${args.name} cordoned`);
  }
}
