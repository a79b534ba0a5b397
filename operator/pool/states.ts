// VM (slot) transitions: the spec's slot table (warm → occupied on create; occupied → cloning on
// delete or timeout; cloning → warm) plus what it leaves "not shown": stopped (kept aside, behavior
// rule 6), down (host unreachable) and the way back from each.
import type { VmPhase } from '../../crds/index.ts';
import { stateMachine } from '../runtime/fsm.ts';

export type VmState = VmPhase | 'gone';

export const VM_EVENTS = [
  /** Clone finished and there is room: boot it into the pool. */
  'clonedRun',
  /** Clone finished but the sandboxes leave no room: keep it stopped aside. */
  'clonedAside',
  /** A sandbox claimed it (warm as is, or resized/restored and booted). */
  'claim',
  /** Its sandbox was deleted, timed out or failed: the dirty VM is re-cloned. */
  'release',
  /** The sandboxes leave too little room for it. */
  'stopAside',
  /** Room returned. */
  'returnToPool',
  /** The host stopped answering. */
  'hostDown',
  /** The host answers again: the VM is rebuilt from a fresh clone. */
  'hostBack',
  /** The Mac's warm profile changed (layout change, idle Mac adopting the current profile). */
  'reprofile',
  /** The host no longer has the VM: an unclaimed one is cloned again, a claimed one is down. */
  'lost',
  /** Surplus beyond the profile. */
  'discard',
] as const;
export type VmEvent = (typeof VM_EVENTS)[number];

export const VM_STATES: readonly VmState[] = ['cloning', 'warm', 'occupied', 'stopped', 'down', 'gone'];

export const vmMachine = stateMachine<VmState, VmEvent>('VM', VM_STATES, VM_EVENTS, {
  cloning: {
    clonedRun: 'warm',
    clonedAside: 'stopped',
    stopAside: 'stopped',
    hostDown: 'down',
    discard: 'gone',
  },
  warm: {
    claim: 'occupied',
    stopAside: 'stopped',
    hostDown: 'down',
    reprofile: 'cloning',
    lost: 'cloning',
    discard: 'gone',
  },
  occupied: { release: 'cloning', hostDown: 'down', lost: 'down' },
  stopped: {
    claim: 'occupied',
    returnToPool: 'warm',
    hostDown: 'down',
    reprofile: 'cloning',
    lost: 'cloning',
    discard: 'gone',
  },
  down: { hostBack: 'cloning', release: 'down', discard: 'gone' },
  gone: {},
});
