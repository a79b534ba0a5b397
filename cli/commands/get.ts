import { Args, Flags } from '@oclif/core';
import type { Table } from '../../api/kube/table.ts';
import type { AnyResource, KindDefinition } from '../../crds/index.ts';
import type { AdminClient, Selection } from '../client.ts';
import { AdminCommand } from './shared/admin-command.ts';
import { asList, formatTable, toJson, toYaml, type Output } from './shared/print.ts';
import { kindNamed, objectRef } from './shared/resources.ts';

export default class Get extends AdminCommand {
  static override summary = 'Show resources: a table of the kind’s printer columns, or YAML/JSON.';
  static override description =
    'Namespaced kinds (reservations, sandboxes, …) are listed across all accounts unless -n names one.';
  static override examples = [
    '<%= config.bin %> get minis',
    '<%= config.bin %> get mini mini-1 -o yaml',
    '<%= config.bin %> get sandboxes -n acme -w',
    '<%= config.bin %> get reservations -A -o wide',
  ];
  static override args = {
    kind: Args.string({
      description: 'kind: plural, singular or short name (minis, mini, sb, …)',
      required: true,
    }),
    name: Args.string({ description: 'one object' }),
  };
  static override flags = {
    output: Flags.string({
      char: 'o',
      description: 'output format',
      options: ['yaml', 'json', 'wide', 'name'],
    }),
    watch: Flags.boolean({
      char: 'w',
      description: 'after printing, keep printing changes until interrupted',
    }),
    namespace: Flags.string({ char: 'n', description: 'namespace (account)' }),
    'all-namespaces': Flags.boolean({ char: 'A', description: 'every namespace', exclusive: ['namespace'] }),
    selector: Flags.string({ char: 'l', description: 'label selector, e.g. rack=a,tier!=gold' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Get);
    const def = kindNamed(args.kind);
    const client = this.connect(flags);
    const output = (flags.output ?? 'table') as Output;
    const selection: Selection = {
      ...(def.scope === 'Namespaced' &&
        !flags['all-namespaces'] &&
        flags.namespace && { namespace: flags.namespace }),
      ...(flags.selector && { labelSelector: flags.selector }),
      ...(args.name !== undefined && { fieldSelector: `metadata.name=${args.name}` }),
    };
    const withNamespace = def.scope === 'Namespaced' && selection.namespace === undefined;
    if (output === 'table' || output === 'wide') {
      const table = await this.fetchTable(client, def, selection, args.name);
      const headers = table.rows.length > 0;
      const { widths } = this.printTable(table, { wide: output === 'wide', withNamespace, headers });
      if (!flags.watch) return;
      await this.watch(client, def, selection, table.metadata.resourceVersion ?? '0', true, (object) => {
        this.printTable(object as Table, { wide: output === 'wide', withNamespace, headers: false, widths });
      });
      return;
    }
    const { items, resourceVersion } = await this.fetchObjects(client, def, selection, args.name);
    if (items.length === 0 && args.name === undefined) process.stderr.write('No resources found.\n');
    else this.printObjects(def, items, output, args.name === undefined ? 'list' : 'single');
    if (flags.watch) {
      await this.watch(client, def, selection, resourceVersion, false, (object) =>
        this.printObjects(def, [object as AnyResource], output, 'event'),
      );
    }
  }

  private async fetchTable(client: AdminClient, def: KindDefinition, selection: Selection, name?: string) {
    const { fieldSelector: _byName, ...rest } = selection;
    const table = await client.table(def, name === undefined ? rest : { ...rest, name });
    if (table.rows.length === 0) process.stderr.write('No resources found.\n');
    return table;
  }

  private async fetchObjects(client: AdminClient, def: KindDefinition, selection: Selection, name?: string) {
    if (name === undefined) {
      const list = await client.list(def, selection);
      return { items: list.items, resourceVersion: list.metadata.resourceVersion };
    }
    const obj = await client.get(def, name, selection.namespace);
    if (!obj) throw new Error(`${def.plural} "${name}" not found`);
    return { items: [obj], resourceVersion: obj.metadata.resourceVersion ?? '0' };
  }

  private printTable(table: Table, format: Parameters<typeof formatTable>[1]) {
    const { lines, widths } = formatTable(table, format);
    for (const line of lines) this.log(line);
    return { widths };
  }

  /** `list`: one List document; `single`: the object; `event`: the object after a `---` separator. */
  private printObjects(
    def: KindDefinition,
    items: AnyResource[],
    output: Output,
    mode: 'list' | 'single' | 'event',
  ) {
    if (output === 'name') {
      for (const item of items) this.log(objectRef(def, item));
      return;
    }
    const value = mode === 'list' ? asList(items) : items[0];
    if (output === 'json') process.stdout.write(toJson(value));
    else process.stdout.write(`${mode === 'event' ? '---\n' : ''}${toYaml(value)}`);
  }

  /** Prints each change until SIGINT/SIGTERM (exit 0) or the server ends the stream. */
  private async watch(
    client: AdminClient,
    def: KindDefinition,
    selection: Selection,
    resourceVersion: string,
    table: boolean,
    print: (object: unknown) => void,
  ): Promise<void> {
    const handle = client.watch(def, { ...selection, resourceVersion, table }, (_type, object) =>
      print(object),
    );
    const stop = () => handle.stop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    try {
      await handle.done;
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
  }
}
