// Leader election over a coordination.k8s.io/v1 Lease in the store, as client-go's leaderelection
// does it: a candidate takes the Lease when its holder has not renewed it for a lease duration (as
// this candidate observed it, on its own clock: no clock skew between replicas matters); the leader
// renews it every retry period and steps down at once when it could not renew within the renew
// deadline, which is shorter than the lease duration, so that it has stopped before anyone else can
// take over. Every write is conditional on the Lease's resourceVersion: two candidates never both win.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { LEASE_API_VERSION, type Lease } from '../../crds/index.ts';
import { isStoreError, type Store } from '../../store/store.ts';
import { silentLogger, type Logger } from './logger.ts';

export interface LeaderElectionOptions {
  store: Store;
  namespace: string;
  name: string;
  /** This replica; default `hostname-pid-random`. */
  identity?: string;
  /** How long a Lease holds without renewal. Default 15 s (client-go's default). */
  leaseDurationMs?: number;
  /** A leader that has not renewed for this long steps down. Default 10 s; < leaseDurationMs. */
  renewDeadlineMs?: number;
  /** Between attempts to acquire or renew. Default 2 s. */
  retryPeriodMs?: number;
  /** Called on winning the Lease; what it starts runs until onStoppedLeading. */
  onStartedLeading: () => void | Promise<void>;
  /** Called at once on losing the Lease (or on stop while leading). */
  onStoppedLeading: () => void | Promise<void>;
  logger?: Logger;
}

export function defaultIdentity(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/** A MicroTime as Kubernetes writes it: RFC 3339 with microseconds. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class LeaderElector {
  readonly identity: string;
  readonly #opts: Required<Omit<LeaderElectionOptions, 'logger' | 'identity'>>;
  readonly #log: Logger;
  #leading = false;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;
  #observed: { holder: string; renewTime: string; rv: string } | undefined;
  #observedAt = 0;
  #lastRenew = 0;
  #deadline: NodeJS.Timeout | undefined;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;

  constructor(opts: LeaderElectionOptions) {
    this.identity = opts.identity ?? defaultIdentity();
    this.#opts = {
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      ...opts,
    };
    if (this.#opts.renewDeadlineMs >= this.#opts.leaseDurationMs) {
      throw new Error('leader election: the renew deadline must be shorter than the lease duration');
    }
    this.#log = (opts.logger ?? silentLogger).child({ lease: `${opts.namespace}/${opts.name}` });
  }

  get isLeader(): boolean {
    return this.#leading;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Stops; a leader steps down and releases the Lease so that a follower takes over at once. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#wake?.();
    await this.#loop;
    if (this.#leading) {
      await this.#stepDown('stopping');
      await this.#release();
    }
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      const now = Date.now();
      let held = false;
      try {
        held = await this.#tryAcquireOrRenew(now);
      } catch (err) {
        this.#log.warn({ err: (err as Error).message }, 'lease: acquire or renew failed');
      }
      if (this.#stopped) break;
      if (held) {
        this.#lastRenew = now;
        // A renew that hangs (the store unreachable) must not keep a leader leading: the deadline
        // fires on its own.
        clearTimeout(this.#deadline);
        this.#deadline = setTimeout(
          () => void this.#stepDown('renew deadline passed'),
          this.#opts.renewDeadlineMs,
        );
        if (!this.#leading) {
          this.#leading = true;
          this.#log.info({ identity: this.identity }, 'lease: became leader');
          await this.#opts.onStartedLeading();
        }
      } else if (this.#leading) {
        const anotherHolder = this.#observed && this.#observed.holder !== this.identity;
        if (anotherHolder || Date.now() - this.#lastRenew >= this.#opts.renewDeadlineMs) {
          await this.#stepDown(
            anotherHolder ? `taken by ${this.#observed?.holder}` : 'renew deadline passed',
          );
        }
      }
      await this.#sleep(this.#leading ? this.#renewDelay() : this.#opts.retryPeriodMs);
    }
  }

  /** While leading, also wakes at the renew deadline so that stepping down is never late. */
  #renewDelay(): number {
    const untilDeadline = this.#lastRenew + this.#opts.renewDeadlineMs - Date.now();
    return Math.max(0, Math.min(this.#opts.retryPeriodMs, untilDeadline));
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
      this.#timer = setTimeout(resolve, ms);
    });
  }

  async #stepDown(why: string): Promise<void> {
    clearTimeout(this.#deadline);
    if (!this.#leading) return;
    this.#leading = false;
    this.#log.warn({ identity: this.identity, why }, 'lease: lost leadership; stopping at once');
    await this.#opts.onStoppedLeading();
  }

  async #tryAcquireOrRenew(now: number): Promise<boolean> {
    const { store, namespace, name } = this.#opts;
    const key = { kind: 'Lease', namespace, name };
    const current = await store.get<Lease>(key);
    const durationSeconds = Math.ceil(this.#opts.leaseDurationMs / 1000);
    if (!current) {
      try {
        const created = await store.create<Lease>({
          apiVersion: LEASE_API_VERSION,
          kind: 'Lease',
          metadata: { name, namespace },
          spec: {
            holderIdentity: this.identity,
            leaseDurationSeconds: durationSeconds,
            acquireTime: microTime(now),
            renewTime: microTime(now),
            leaseTransitions: 0,
          },
        });
        this.#observe(created, now);
        return true;
      } catch (err) {
        if (isStoreError(err, 'AlreadyExists')) return false;
        throw err;
      }
    }
    const spec = current.spec ?? {};
    const record = {
      holder: spec.holderIdentity ?? '',
      renewTime: spec.renewTime ?? '',
      rv: current.metadata.resourceVersion ?? '',
    };
    if (!this.#observed || this.#observed.rv !== record.rv) this.#observe(current, now);
    const heldByOther = record.holder !== '' && record.holder !== this.identity;
    // The holder's own duration counts, on this replica's clock since the record last changed.
    const durationMs = (spec.leaseDurationSeconds ?? durationSeconds) * 1000;
    if (heldByOther && this.#observedAt + durationMs > now) return false;
    const mine = record.holder === this.identity;
    try {
      const updated = await store.update<Lease>({
        ...current,
        spec: {
          ...spec,
          holderIdentity: this.identity,
          leaseDurationSeconds: durationSeconds,
          acquireTime: mine && spec.acquireTime ? spec.acquireTime : microTime(now),
          renewTime: microTime(now),
          leaseTransitions: (spec.leaseTransitions ?? 0) + (mine ? 0 : 1),
        },
      });
      this.#observe(updated, now);
      return true;
    } catch (err) {
      if (isStoreError(err, 'Conflict')) return false;
      throw err;
    }
  }

  #observe(lease: Lease, now: number): void {
    this.#observed = {
      holder: lease.spec?.holderIdentity ?? '',
      renewTime: lease.spec?.renewTime ?? '',
      rv: lease.metadata.resourceVersion ?? '',
    };
    this.#observedAt = now;
  }

  /** Gives the Lease up (as client-go's ReleaseOnCancel): followers need not wait out the duration. */
  async #release(): Promise<void> {
    const { store, namespace, name } = this.#opts;
    try {
      const current = await store.get<Lease>({ kind: 'Lease', namespace, name });
      if (!current || current.spec?.holderIdentity !== this.identity) return;
      await store.update<Lease>({
        ...current,
        spec: {
          ...current.spec,
          holderIdentity: '',
          leaseDurationSeconds: 1,
          renewTime: microTime(Date.now()),
        },
      });
    } catch (err) {
      this.#log.warn({ err: (err as Error).message }, 'lease: release failed');
    }
  }
}
