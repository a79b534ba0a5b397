// Shared fixtures of the operator's tests: a real SQLite store in a temp dir, and waits on a
// predicate with a deadline (never a sleep).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openSqliteStore, type SqliteStore, type SqliteStoreOptions } from '../store/sqlite-store.ts';
import { waitFor } from './support/wait.ts';

export interface TempStore {
  store: SqliteStore;
  dir: string;
  cleanup(): Promise<void>;
}

export async function tempStore(opts: Partial<SqliteStoreOptions> = {}): Promise<TempStore> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sandbay-op-'));
  const store = await openSqliteStore({ file: path.join(dir, 'store.db'), synchronous: 'NORMAL', ...opts });
  return {
    store,
    dir,
    async cleanup() {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export { waitFor };

// ---- a sim fleet under a running operator ----

import {
  API_VERSION,
  type Account,
  type MacModel,
  type Mini,
  type Reservation,
  type Sandbox,
  type VmLayout,
  type VM,
} from '../crds/index.ts';
import { createSimDriver, type SimDriver, type SimDriverOptions } from '../hosts/sim/index.ts';
import { startOperator, type RunningOperator, type StartOperatorOptions } from '../operator/index.ts';
import { FakeClock } from '../operator/runtime/clock.ts';
import { createAccount } from './support/accounts.ts';

export const ZERO_TIMINGS = {
  cloneMs: 0,
  bootMs: 0,
  resizeMs: 0,
  stopMs: 0,
  deleteMs: 0,
  exportMs: 0,
  importMs: 0,
};

export interface MiniDecl {
  name: string;
  model?: MacModel;
  layout?: VmLayout;
  /** A pool Mac (`spec.pool`). */
  pool?: boolean;
}

export interface SimFleet extends TempStore {
  sim: SimDriver;
  op: RunningOperator;
  clock: FakeClock;
  /** Creates an account with `balanceCents` of granted credit. */
  account(name: string, balanceCents: number): Promise<Account>;
  addMini(decl: MiniDecl): Promise<Mini>;
  addressOf(mini: string): string;
  reserve(ns: string, name: string, spec: Partial<Reservation['spec']>): Promise<Reservation>;
  /** Waits until the reservation leaves pending; returns it. */
  reservationSettled(ns: string, name: string): Promise<Reservation>;
  createSandbox(
    ns: string,
    spec: Partial<Sandbox['spec']> & { reservation: string },
    name?: string,
  ): Promise<Sandbox>;
  /** Waits until the sandbox is running or failed. */
  sandboxSettled(ns: string, name: string): Promise<Sandbox>;
  vms(mini?: string): Promise<VM[]>;
  /** Waits until no VM is claimed by the sandbox (a failed or deleted sandbox has let its VM go). */
  released(ns: string, name: string): Promise<void>;
  /**
   * Waits until every Mini's free slots hold warm VMs of its profile (or stopped ones, if allowed),
   * for `timeoutMs` (default 10 s).
   */
  poolsReady(minis?: string[], opts?: { allowStopped?: boolean; timeoutMs?: number }): Promise<void>;
  stopOperator(): Promise<void>;
  /** Starts the operator again on the same store, Macs and clock (after stopOperator: a restart). */
  restartOperator(): Promise<void>;
}

let sandboxSeq = 0;
export function sandboxId(): string {
  return `sb-${(++sandboxSeq).toString(16).padStart(8, '0')}${Math.random().toString(16).slice(2, 10).padEnd(8, '0')}${'0'.repeat(16)}`;
}

export async function startSimFleet(
  minis: MiniDecl[],
  opts: { sim?: SimDriverOptions; operator?: Partial<StartOperatorOptions>; clock?: FakeClock } = {},
): Promise<SimFleet> {
  const t = await tempStore();
  const clock = opts.clock ?? new FakeClock();
  const sim = createSimDriver({ timings: ZERO_TIMINGS, ...opts.sim });
  const addresses = new Map<string, string>();
  const operatorOptions: StartOperatorOptions = {
    store: t.store,
    drivers: { sim },
    blobDir: path.join(t.dir, 'blobs'),
    clock,
    settings: { heartbeatMs: 60_000, probeRetryMs: 1_000 },
    ...opts.operator,
  };
  const fleet: SimFleet = {
    ...t,
    sim,
    clock,
    op: undefined as unknown as RunningOperator,
    account(name, balanceCents) {
      return createAccount(t.store, name, balanceCents, new Date(clock.now()));
    },
    async addMini(decl) {
      const address = `10.0.${Math.floor(addresses.size / 250)}.${(addresses.size % 250) + 1}`;
      addresses.set(decl.name, address);
      return t.store.create<Mini>({
        apiVersion: API_VERSION,
        kind: 'Mini',
        metadata: { name: decl.name },
        spec: {
          address,
          model: decl.model ?? 'm4',
          driver: 'sim',
          schedulable: true,
          ...(decl.layout !== undefined && { defaultLayout: decl.layout }),
          ...(decl.pool !== undefined && { pool: decl.pool }),
        },
      });
    },
    addressOf(mini) {
      return addresses.get(mini)!;
    },
    reserve(ns, name, spec) {
      return t.store.create<Reservation>({
        apiVersion: API_VERSION,
        kind: 'Reservation',
        metadata: { name, namespace: ns },
        spec: { hours: 24, miniCount: 1, macModel: 'm4', vmLayout: 'split', ...spec },
      });
    },
    reservationSettled(ns, name) {
      return waitFor(async () => {
        const r = await t.store.get<Reservation>({ kind: 'Reservation', namespace: ns, name });
        return r?.status?.phase && r.status.phase !== 'pending' ? r : undefined;
      }, `reservation ${ns}/${name} to leave pending`);
    },
    createSandbox(ns, spec, name = sandboxId()) {
      return t.store.create<Sandbox>({
        apiVersion: API_VERSION,
        kind: 'Sandbox',
        metadata: { name, namespace: ns },
        spec: { ephemeral: false, ...spec },
      });
    },
    sandboxSettled(ns, name) {
      return waitFor(async () => {
        const s = await t.store.get<Sandbox>({ kind: 'Sandbox', namespace: ns, name });
        return s?.status?.phase === 'running' || s?.status?.phase === 'failed' ? s : undefined;
      }, `sandbox ${name} to run or fail`);
    },
    async vms(mini) {
      const { items } = await t.store.list<VM>('VM');
      return items.filter((vm) => mini === undefined || vm.spec.mini === mini);
    },
    async released(ns, name) {
      await waitFor(
        async () => !(await fleet.vms()).some((vm) => vm.spec.sandbox === `${ns}/${name}`),
        `sandbox ${name} to release its VM`,
      );
    },
    async poolsReady(names, { allowStopped = false, timeoutMs } = {}) {
      await waitFor(
        async () => {
          const { items } = await t.store.list<Mini>('Mini');
          const vms = await fleet.vms();
          // A claim by a sandbox being deleted (or gone) is a release still to come, not a held slot.
          const live = new Set(
            (await t.store.list<Sandbox>('Sandbox')).items
              .filter((s) => !s.metadata.deletionTimestamp)
              .map((s) => `${s.metadata.namespace}/${s.metadata.name}`),
          );
          if (vms.some((vm) => vm.spec.sandbox && !live.has(vm.spec.sandbox))) return false;
          return items
            .filter((m) => names === undefined || names.includes(m.metadata.name))
            .every((m) => {
              const profile = m.status?.warmProfile;
              if (!profile || m.status?.phase === 'down') return false;
              const mine = vms.filter(
                (vm) => vm.spec.mini === m.metadata.name && !vm.metadata.deletionTimestamp,
              );
              const free = mine.filter((vm) => !vm.spec.sandbox);
              const held = new Set(mine.filter((vm) => vm.spec.sandbox).map((vm) => vm.spec.slot));
              return (
                free.length + held.size === profile.length &&
                free.every(
                  (vm) => vm.status?.phase === 'warm' || (allowStopped && vm.status?.phase === 'stopped'),
                ) &&
                profile.every(
                  (slot, i) =>
                    held.has(i) ||
                    free.some(
                      (vm) =>
                        vm.spec.slot === i &&
                        vm.spec.cpu === slot.cpu &&
                        vm.spec.memoryGiB === slot.memoryGiB,
                    ),
                )
              );
            });
        },
        'warm pools to match their profiles',
        timeoutMs,
      );
    },
    async stopOperator() {
      await fleet.op.stop();
    },
    async restartOperator() {
      fleet.op = await startOperator(operatorOptions);
    },
    async cleanup() {
      await fleet.op?.stop();
      await sim.close();
      await t.cleanup();
    },
  };
  for (const m of minis) await fleet.addMini(m);
  fleet.op = await startOperator(operatorOptions);
  return fleet;
}

export interface ReservedFleetOptions {
  model?: MacModel;
  layout?: VmLayout;
  minis?: number;
  creditCents?: number;
  fleet?: Parameters<typeof startSimFleet>[1];
}

/**
 * `minis` sim Macs of one model, reserved whole by account `acme` as reservation `r1`: active, warm
 * pools filled. A fleet that fails to get there is cleaned up before the error is thrown.
 */
export async function startReservedFleet(opts: ReservedFleetOptions = {}): Promise<SimFleet> {
  const { model = 'm4', layout = 'split', minis = 1, creditCents = 100_000_000, fleet = {} } = opts;
  const f = await startSimFleet(
    Array.from({ length: minis }, (_, i) => ({ name: `mini-${i + 1}`, model })),
    fleet,
  );
  try {
    await f.account('acme', creditCents);
    await f.reserve('acme', 'r1', { macModel: model, vmLayout: layout, miniCount: minis });
    const phase = (await f.reservationSettled('acme', 'r1')).status?.phase;
    if (phase !== 'active') throw new Error(`reservation acme/r1 is ${phase}, not active`);
    await f.poolsReady();
    return f;
  } catch (err) {
    await f.cleanup();
    throw err;
  }
}
