// The LeaseGuard's operations. A guard is declared before its host, and the host depends on it, so the
// engine diffs the guard first: a change that would replace a host younger than 24 hours fails in the
// guard's diff, at preview and before anything is created or deleted. (Destroying the host is guarded by
// the Mini's delete, which the engine runs before the host's: see mini-provider.ts.)
import type * as pulumi from '@pulumi/pulumi';
import { leaseRefusal } from './lease.ts';

export interface LeaseGuardInputs {
  /** The Mac, for messages. */
  mac: string;
  /** `aws-dedicated-host` or `scaleway-server`. */
  kind: string;
  /** The host's inputs whose change replaces it (instance type and zone). */
  host: Record<string, string>;
  force: boolean;
}

export interface LeaseGuardOutputs extends LeaseGuardInputs {
  /** When the guard, and right after it the host, was created. */
  allocatedAt: string;
}

export class LeaseGuardProvider implements pulumi.dynamic.ResourceProvider<
  LeaseGuardInputs,
  LeaseGuardOutputs
> {
  readonly #now: () => Date;

  constructor(opts: { now?: () => Date } = {}) {
    this.#now = opts.now ?? (() => new Date());
  }

  async create(inputs: LeaseGuardInputs): Promise<pulumi.dynamic.CreateResult<LeaseGuardOutputs>> {
    return {
      id: `${inputs.kind}/${inputs.mac}`,
      outs: { ...inputs, allocatedAt: this.#now().toISOString() },
    };
  }

  async diff(
    _id: string,
    olds: LeaseGuardOutputs,
    news: LeaseGuardInputs,
  ): Promise<pulumi.dynamic.DiffResult> {
    const hostChanges = JSON.stringify(sorted(olds.host)) !== JSON.stringify(sorted(news.host));
    if (hostChanges) {
      const refusal = leaseRefusal(
        `Mac "${news.mac}" (changing ${Object.keys(news.host).join('/')} replaces its host)`,
        { kind: olds.kind, allocatedAt: olds.allocatedAt },
        this.#now(),
        news.force,
      );
      if (refusal) throw new Error(refusal);
      return { changes: true, replaces: ['host'] };
    }
    return { changes: olds.force !== news.force || olds.mac !== news.mac };
  }

  async update(
    _id: string,
    olds: LeaseGuardOutputs,
    news: LeaseGuardInputs,
  ): Promise<pulumi.dynamic.UpdateResult<LeaseGuardOutputs>> {
    return { outs: { ...news, allocatedAt: olds.allocatedAt } };
  }
}

function sorted(record: Record<string, string>): [string, string][] {
  return Object.entries(record).sort(([a], [b]) => a.localeCompare(b));
}
