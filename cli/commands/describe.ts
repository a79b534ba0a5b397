import { Args, Flags } from '@oclif/core';
import { AdminCommand } from './shared/admin-command.ts';
import { describe } from './shared/print.ts';
import { kindNamed } from './shared/resources.ts';

export default class Describe extends AdminCommand {
  static override summary = 'Show one resource in detail: metadata, spec, status and conditions.';
  static override examples = [
    '<%= config.bin %> describe mini mini-1',
    '<%= config.bin %> describe sandbox sb-0123… -n acme',
  ];
  static override args = {
    kind: Args.string({ description: 'kind: plural, singular or short name', required: true }),
    name: Args.string({ description: 'the object', required: true }),
  };
  static override flags = {
    namespace: Flags.string({ char: 'n', description: 'namespace (account)' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Describe);
    const def = kindNamed(args.kind);
    const obj = await this.connect(flags).get(def, args.name, flags.namespace);
    if (!obj) throw new Error(`${def.plural} "${args.name}" not found`);
    process.stdout.write(describe(def, obj));
  }
}
