// The operator's state machines, cell by cell (Orchard's TestExplicitStateTransitions), and the
// level-triggered promise: reconciling every object again, once the fleet has settled, writes nothing.
import { describe, expect, it } from 'vitest';
import { API_VERSION, type Sandbox, type Snapshot } from '../crds/index.ts';
import type { ControllerName } from '../operator/index.ts';
import { attemptMachine, runMachine } from '../operator/evaluation/run/states.ts';
import { miniMachine } from '../operator/mini/states.ts';
import { vmMachine } from '../operator/pool/states.ts';
import { reservationMachine } from '../operator/reservation/states.ts';
import { IllegalTransitionError, type StateMachine } from '../operator/runtime/fsm.ts';
import { sandboxMachine } from '../operator/sandbox/states.ts';
import { startSimFleet, waitFor, type SimFleet } from './operator-fixtures.ts';

/** Every transition we chose, written out; any other (state, event) pair must be refused. */
const EXPECTED: Record<string, string[]> = {
  Reservation: [
    'pending --activate--> active',
    'pending --cancel--> cancelled',
    'pending --noMinis--> cancelled',
    'pending --noCredit--> cancelled',
    'active --edit--> active',
    'active --expire--> completing',
    'completing --cleaned--> completed',
  ],
  Sandbox: [
    'pending --claimWarm--> running',
    'pending --claimCold--> booting',
    'pending --refused--> failed',
    'pending --reservationEnded--> completing',
    'pending --deleted--> gone',
    'booting --booted--> running',
    'booting --fail--> failed',
    'booting --reservationEnded--> completing',
    'booting --poolEnded--> completing',
    'booting --deleted--> gone',
    'running --fail--> failed',
    'running --reservationEnded--> completing',
    'running --poolEnded--> completing',
    'running --deleted--> gone',
    'running --idleTimeout--> gone',
    'running --pause--> paused',
    'paused --resume--> running',
    'paused --fail--> failed',
    'paused --reservationEnded--> completing',
    'paused --poolEnded--> completing',
    'paused --deleted--> gone',
    'completing --deleted--> gone',
    'failed --reservationEnded--> completing',
    'failed --deleted--> gone',
  ],
  VM: [
    'cloning --clonedRun--> warm',
    'cloning --clonedAside--> stopped',
    'cloning --stopAside--> stopped',
    'cloning --hostDown--> down',
    'cloning --discard--> gone',
    'warm --claim--> occupied',
    'warm --stopAside--> stopped',
    'warm --hostDown--> down',
    'warm --reprofile--> cloning',
    'warm --lost--> cloning',
    'warm --discard--> gone',
    'occupied --release--> cloning',
    'occupied --hostDown--> down',
    'occupied --lost--> down',
    'stopped --claim--> occupied',
    'stopped --returnToPool--> warm',
    'stopped --hostDown--> down',
    'stopped --reprofile--> cloning',
    'stopped --lost--> cloning',
    'stopped --discard--> gone',
    'down --hostBack--> cloning',
    'down --release--> down',
    'down --discard--> gone',
  ],
  Mini: [
    'pending --registered--> available',
    'pending --unreachable--> down',
    'available --bind--> reserved',
    'available --unreachable--> down',
    'reserved --release--> available',
    'reserved --unreachable--> down',
    'down --answered--> available',
    'down --answeredReserved--> reserved',
    'down --release--> down',
  ],
  EvaluationRun: [
    'pending --start--> running',
    'pending --cancel--> cancelled',
    'running --finish--> completed',
    'running --cancel--> cancelled',
  ],
  EvaluationAttempt: [
    'waiting --claim--> starting',
    'waiting --error--> errored',
    'waiting --cancel--> cancelled',
    'starting --refused--> waiting',
    'starting --running--> setup',
    'starting --error--> errored',
    'starting --cancel--> cancelled',
    'setup --setUp--> acting',
    'setup --error--> errored',
    'setup --cancel--> cancelled',
    'acting --acted--> grading',
    'acting --error--> errored',
    'acting --cancel--> cancelled',
    'grading --graded--> completed',
    'grading --error--> errored',
    'grading --cancel--> cancelled',
  ],
};

const machines = [
  reservationMachine,
  sandboxMachine,
  vmMachine,
  miniMachine,
  runMachine,
  attemptMachine,
] as unknown as StateMachine<string, string>[];

describe('state machines', () => {
  for (const m of machines) {
    const expected = new Map(
      EXPECTED[m.name]!.map((line) => {
        const [, from, event, to] = /^(\w+) --(\w+)--> (\w+)$/.exec(line)!;
        return [`${from}/${event}`, to!];
      }),
    );
    const cells = m.states.flatMap((state) => m.events.map((event) => ({ state, event })));
    it.each(cells)(`${m.name}: $state on $event`, ({ state, event }) => {
      const want = expected.get(`${state}/${event}`);
      if (want === undefined) {
        expect(() => m.transition(state, event)).toThrow(IllegalTransitionError);
      } else {
        expect(m.transition(state, event)).toBe(want);
      }
    });
    it(`${m.name}: lists no transition beyond the expected ones`, () => {
      const listed = Object.entries(m.table).flatMap(([from, row]) =>
        Object.entries(row as Record<string, string>).map(([event, to]) => `${from} --${event}--> ${to}`),
      );
      expect(listed.sort()).toEqual([...EXPECTED[m.name]!].sort());
    });
  }
});

describe('level-triggered reconciles', () => {
  let f: SimFleet;

  /** Waits until no controller has work and the store's version stopped moving. */
  async function settled(): Promise<string> {
    let last = '';
    let same = 0;
    return waitFor(async () => {
      await Promise.all(Object.values(f.op.controllers).map((c) => c.queue.whenIdle()));
      const rv = (await f.store.list('Rate')).resourceVersion;
      same = rv === last ? same + 1 : 0;
      last = rv;
      return same >= 5 ? rv : undefined;
    }, 'the fleet to settle');
  }

  async function busyFleet() {
    f = await startSimFleet([
      { name: 'mini-1' },
      { name: 'mini-2' },
      { name: 'mini-3', model: 'm5-pro' },
      { name: 'mini-4' },
    ]);
    await f.account('acme', 100_000_000);
    await f.reserve('acme', 'r1', { miniCount: 3 });
    await f.reservationSettled('acme', 'r1');
    await f.poolsReady();
    const warm = await f.createSandbox('acme', { reservation: 'r1' });
    const cold = await f.createSandbox('acme', { reservation: 'r1', cpu: 7, memoryGiB: 8 });
    const eph = await f.createSandbox('acme', { reservation: 'r1', ephemeral: true });
    for (const sb of [warm, cold, eph]) await f.sandboxSettled('acme', sb.metadata.name);
    // A fork of the warm one (booted from a copy of its disk), and the ephemeral one paused.
    const fork = await f.createSandbox('acme', {
      reservation: 'r1',
      cpu: 5,
      memoryGiB: 8,
      forkOf: warm.metadata.name,
    });
    expect((await f.sandboxSettled('acme', fork.metadata.name)).status?.phase).toBe('running');
    await f.store.patch(
      { kind: 'Sandbox', namespace: 'acme', name: eph.metadata.name },
      { spec: { paused: true } },
    );
    await waitFor(
      async () =>
        (await f.store.get<Sandbox>({ kind: 'Sandbox', namespace: 'acme', name: eph.metadata.name }))?.status
          ?.phase === 'paused',
      'the ephemeral sandbox paused',
    );
    await f.createSandbox('acme', { reservation: 'r1', cpu: 11 });
    await f.store.create<Snapshot>({
      apiVersion: API_VERSION,
      kind: 'Snapshot',
      metadata: { name: 'v1', namespace: 'acme' },
      spec: { sourceSandbox: warm.metadata.name, name: 'v1' },
    });
    await f.reserve('acme', 'r2', { miniCount: 5 }); // too few Macs: cancelled
  }

  const names: ControllerName[] = ['mini', 'pool', 'sandbox', 'reservation', 'snapshot'];
  it.each(names)('reconciling every %s key again once settled changes nothing', async (name) => {
    await busyFleet();
    try {
      const before = await settled();
      const c = f.op.controllers[name];
      const keys = {
        mini: () => f.op.informers.minis.list(),
        pool: () => f.op.informers.minis.list(),
        sandbox: () => f.op.informers.sandboxes.list(),
        reservation: () => f.op.informers.reservations.list(),
        snapshot: () => f.op.informers.snapshots.list(),
      }[name]();
      expect(keys.length).toBeGreaterThan(0);
      for (const o of keys)
        c.enqueue(o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name);
      for (const o of keys)
        c.enqueue(o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name);
      expect(await settled()).toBe(before);
    } finally {
      await f.cleanup();
    }
  });
});
