import { Args, Flags } from '@oclif/core';
import type { AnyResource, KindDefinition } from '../../crds/index.ts';
import { ClientError, type AdminClient } from '../client.ts';
import { AdminCommand } from './shared/admin-command.ts';
import { kindNamed, objectRef, readManifests } from './shared/resources.ts';

export default class Delete extends AdminCommand {
  static override summary = 'Delete resources by kind and name, or those named in manifests.';
  static override description =
    'An object with finalizers is marked for deletion and goes away once its reconciler has cleaned up.';
  static override examples = [
    '<%= config.bin %> delete mini mini-1',
    '<%= config.bin %> delete sandbox sb-0123… -n acme',
    '<%= config.bin %> delete -f mini.yaml',
  ];
  static override args = {
    kind: Args.string({ description: 'kind: plural, singular or short name' }),
    name: Args.string({ description: 'the object' }),
  };
  static override flags = {
    filename: Flags.string({
      char: 'f',
      description: 'delete the objects of a file, directory, or - (stdin)',
    }),
    namespace: Flags.string({ char: 'n', description: 'namespace (account)' }),
    'ignore-not-found': Flags.boolean({ description: 'treat a missing object as deleted' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Delete);
    const client = this.connect(flags);
    const targets: { def: KindDefinition; name: string; namespace?: string }[] = [];
    if (flags.filename !== undefined) {
      if (args.kind !== undefined) throw new Error('give either -f FILE or KIND NAME, not both');
      for (const { def, obj } of readManifests(flags.filename, flags.namespace)) {
        targets.push({
          def,
          name: obj.metadata.name,
          ...(obj.metadata.namespace && { namespace: obj.metadata.namespace }),
        });
      }
    } else {
      if (args.kind === undefined || args.name === undefined) throw new Error('give KIND NAME, or -f FILE');
      targets.push({
        def: kindNamed(args.kind),
        name: args.name,
        ...(flags.namespace && { namespace: flags.namespace }),
      });
    }
    for (const target of targets) {
      const outcome = await deleteOne(client, target, flags['ignore-not-found']);
      if (outcome) this.log(`${objectRef(target.def, { metadata: { name: target.name } })} ${outcome}`);
    }
  }
}

async function deleteOne(
  client: AdminClient,
  target: { def: KindDefinition; name: string; namespace?: string },
  ignoreNotFound: boolean,
): Promise<string | undefined> {
  let after: AnyResource;
  try {
    after = await client.delete(target.def, target.name, target.namespace);
  } catch (err) {
    if (ignoreNotFound && err instanceof ClientError && err.status === 404) return undefined;
    throw err;
  }
  const finalizers = after.metadata?.deletionTimestamp ? (after.metadata.finalizers ?? []) : [];
  return finalizers.length > 0 ? `marked for deletion (waiting for ${finalizers.join(', ')})` : 'deleted';
}
