// Sandbox lifecycle transitions: the spec's table (running → destroyed on delete or idle timeout,
// running → completing at end_at, a reservation's or a pool sandbox's own; completing → gone) plus
// the states it leaves "not shown": pending (written, not yet placed), booting (a cold boot, a restore
// or a fork), paused (its VM frozen, as `spec.paused` asks), failed (reason = code).
import type { SandboxPhase } from '../../crds/index.ts';
import { stateMachine } from '../runtime/fsm.ts';

/** `gone`: the resource is deleted (the API answers 404). */
export type SandboxState = SandboxPhase | 'gone';

export const SANDBOX_EVENTS = [
  /** Claimed a running warm VM of the right size. */
  'claimWarm',
  /** Claimed a VM that must resize, boot or restore. */
  'claimCold',
  /** The cold boot finished. */
  'booted',
  /** The scheduler refused, or the reservation is not active, or the snapshot is missing. */
  'refused',
  /** The boot or restore failed, or the host went down, or the VM vanished. */
  'fail',
  /** The reservation's end_at passed. */
  'reservationEnded',
  /** A pool sandbox reached its end (24 h after placement), or its credit ran out at an hour boundary. */
  'poolEnded',
  /** DELETE, or the cleanup at expiry finished. */
  'deleted',
  /** Ephemeral and idle for about 2 minutes. */
  'idleTimeout',
  /** `spec.paused` and the VM is frozen. */
  'pause',
  /** `spec.paused` cleared and the VM runs again. */
  'resume',
] as const;
export type SandboxEvent = (typeof SANDBOX_EVENTS)[number];

export const SANDBOX_STATES: readonly SandboxState[] = [
  'pending',
  'booting',
  'running',
  'paused',
  'completing',
  'failed',
  'gone',
];

export const sandboxMachine = stateMachine<SandboxState, SandboxEvent>(
  'Sandbox',
  SANDBOX_STATES,
  SANDBOX_EVENTS,
  {
    pending: {
      claimWarm: 'running',
      claimCold: 'booting',
      refused: 'failed',
      reservationEnded: 'completing',
      deleted: 'gone',
    },
    booting: {
      booted: 'running',
      fail: 'failed',
      reservationEnded: 'completing',
      poolEnded: 'completing',
      deleted: 'gone',
    },
    running: {
      fail: 'failed',
      reservationEnded: 'completing',
      poolEnded: 'completing',
      deleted: 'gone',
      idleTimeout: 'gone',
      pause: 'paused',
    },
    // Paused: not idle (the reaper skips it), still holding its place and its pool hours.
    paused: {
      resume: 'running',
      fail: 'failed',
      reservationEnded: 'completing',
      poolEnded: 'completing',
      deleted: 'gone',
    },
    completing: { deleted: 'gone' },
    failed: { reservationEnded: 'completing', deleted: 'gone' },
    gone: {},
  },
);
