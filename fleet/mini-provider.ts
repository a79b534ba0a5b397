// The Mini provider's operations against sandbay's admin API (the Kubernetes-style
// /apis/sandbay.io/v1alpha1/minis). The Pulumi engine calls them in the dynamic-provider process
// (see dynamic.ts); tests call them directly against a live sandbay.
import type * as pulumi from '@pulumi/pulumi';
import { AdminClient, ClientError } from '../cli/client.ts';
import { drainMini } from '../cli/mini-schedule.ts';
import { API_VERSION, MiniKind, type MacModel, type Mini, type MiniSpec } from '../crds/index.ts';
import { leaseRefusal, type Lease } from './lease.ts';

/** What the program gives a Mini (and what the state keeps, with the read-back status). */
export interface MiniInputs {
  name: string;
  address: string;
  model: MacModel;
  driver: MiniSpec['driver'];
  credentialsRef?: string;
  schedulable: boolean;
  adminUrl: string;
  /** The admin key (a Pulumi secret): kept in state so that delete can still reach sandbay. */
  adminKey: string;
  /** PEM to trust for an https admin URL with a self-signed certificate. */
  adminCa?: string;
  drainTimeoutSeconds: number;
  /** The billed host under this Mac, when it is rented for 24 hours at least. */
  lease?: Lease;
  force: boolean;
}

export interface MiniOutputs extends MiniInputs {
  phase?: string;
  reservation?: string;
}

/** Spec fields: a change updates the Mini in place. */
const SPEC_FIELDS = ['address', 'model', 'driver', 'credentialsRef', 'schedulable'] as const;
/** A change of these is another object (or another sandbay): replaced. */
const IDENTITY_FIELDS = ['name', 'adminUrl'] as const;
/** State only: a change is an update that touches nothing in sandbay. */
const STATE_FIELDS = ['adminKey', 'adminCa', 'drainTimeoutSeconds', 'lease', 'force'] as const;

export class MiniProvider implements pulumi.dynamic.ResourceProvider<MiniInputs, MiniOutputs> {
  readonly #now: () => Date;
  readonly #pollMs: number;

  constructor(opts: { now?: () => Date; pollMs?: number } = {}) {
    this.#now = opts.now ?? (() => new Date());
    this.#pollMs = opts.pollMs ?? 2000;
  }

  async create(inputs: MiniInputs): Promise<pulumi.dynamic.CreateResult<MiniOutputs>> {
    const client = clientFor(inputs);
    try {
      const mini = await client.create<Mini>(MiniKind, {
        apiVersion: API_VERSION,
        kind: 'Mini',
        metadata: { name: inputs.name, labels: { 'app.kubernetes.io/managed-by': 'pulumi' } },
        spec: specOf(inputs),
      });
      return { id: inputs.name, outs: withStatus(inputs, mini) };
    } catch (err) {
      if (err instanceof ClientError && err.status === 409) {
        throw new Error(
          `Mac "${inputs.name}": sandbay already has a Mini of that name; adopt it (set adopt: true on ` +
            'this Mac in the stack: the Mini is imported) or delete it first',
          { cause: err },
        );
      }
      throw new Error(`Mac "${inputs.name}": registering the Mini failed: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }

  /**
   * Refresh (props: the state) and import (props: the program's inputs, with the `import` option that a
   * Mac's `adopt: true` sets): the Mini as sandbay has it now; gone if sandbay has none. `pulumi import`
   * on the command line cannot adopt a dynamic resource: the engine has no provider to ask until the
   * program declares the resource.
   */
  async read(id: string, props?: MiniOutputs): Promise<pulumi.dynamic.ReadResult<MiniOutputs>> {
    if (!props?.adminUrl) {
      throw new Error(
        `Mini "${id}": to adopt an existing Mini, declare its Mac with adopt: true and run pulumi up`,
      );
    }
    const mini = await clientFor(props).get<Mini>(MiniKind, id);
    if (!mini) return {};
    return { id, props: withStatus({ ...props, name: id, ...fromSpec(mini.spec) }, mini) };
  }

  async diff(_id: string, olds: MiniOutputs, news: MiniInputs): Promise<pulumi.dynamic.DiffResult> {
    const differs = (k: keyof MiniInputs) =>
      JSON.stringify(olds[k] ?? null) !== JSON.stringify(news[k] ?? null);
    const replaces = IDENTITY_FIELDS.filter(differs);
    const changed = [...replaces, ...SPEC_FIELDS.filter(differs), ...STATE_FIELDS.filter(differs)];
    return {
      changes: changed.length > 0,
      replaces,
      // One Mac under two names would be scheduled twice: the old Mini goes before the new one comes.
      deleteBeforeReplace: true,
    };
  }

  async update(
    id: string,
    olds: MiniOutputs,
    news: MiniInputs,
  ): Promise<pulumi.dynamic.UpdateResult<MiniOutputs>> {
    const client = clientFor(news);
    for (let attempt = 0; ; attempt++) {
      const mini = await client.get<Mini>(MiniKind, id);
      if (!mini) throw new Error(`Mac "${id}": sandbay has no Mini "${id}" any more; run \`pulumi refresh\``);
      const spec = { ...mini.spec, ...specOf(news) };
      if (JSON.stringify(spec) === JSON.stringify(mini.spec)) return { outs: withStatus(news, mini) };
      try {
        return { outs: withStatus(news, await client.replace<Mini>(MiniKind, { ...mini, spec })) };
      } catch (err) {
        if (!(err instanceof ClientError && err.status === 409) || attempt >= 5) throw err;
      }
    }
  }

  /** Refuses a young rented host; else cordons, waits for the reservation to end, deletes. */
  async delete(id: string, props: MiniOutputs): Promise<void> {
    const refusal = props.lease && leaseRefusal(`Mac "${id}"`, props.lease, this.#now(), props.force);
    if (refusal) throw new Error(refusal);
    const client = clientFor(props);
    const drained = await drainMini(client, id, {
      timeoutMs: props.drainTimeoutSeconds * 1000,
      pollMs: this.#pollMs,
    });
    if (!drained) return;
    try {
      await client.delete(MiniKind, id);
    } catch (err) {
      if (!(err instanceof ClientError && err.status === 404)) throw err;
    }
  }
}

function clientFor(i: Pick<MiniInputs, 'adminUrl' | 'adminKey' | 'adminCa'>): AdminClient {
  return new AdminClient({ server: i.adminUrl, token: i.adminKey, ...(i.adminCa && { ca: i.adminCa }) });
}

function specOf(i: MiniInputs): MiniSpec {
  return {
    address: i.address,
    model: i.model,
    driver: i.driver,
    schedulable: i.schedulable,
    ...(i.credentialsRef && { credentialsRef: i.credentialsRef }),
  };
}

function fromSpec(spec: MiniSpec): Pick<MiniInputs, (typeof SPEC_FIELDS)[number]> {
  return {
    address: spec.address,
    model: spec.model,
    driver: spec.driver,
    schedulable: spec.schedulable,
    ...(spec.credentialsRef && { credentialsRef: spec.credentialsRef }),
  };
}

function withStatus(inputs: MiniInputs, mini: Mini): MiniOutputs {
  return {
    ...inputs,
    ...(mini.status?.phase && { phase: mini.status.phase }),
    ...(mini.status?.reservation && { reservation: mini.status.reservation }),
  };
}
