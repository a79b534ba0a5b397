import { AdminCommand } from './shared/admin-command.ts';
import { miniArgs, requireMiniKind } from './shared/mini-arg.ts';
import { setSchedulable } from '../mini-schedule.ts';

export default class Uncordon extends AdminCommand {
  static override summary = 'Let reservations onto a Mini again (spec.schedulable=true).';
  static override examples = ['<%= config.bin %> uncordon mini mini-1'];
  static override args = miniArgs;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Uncordon);
    requireMiniKind(args.kind);
    await setSchedulable(this.connect(flags), args.name, true);
    this.log(`mini/${args.name} uncordoned`);
  }
}
