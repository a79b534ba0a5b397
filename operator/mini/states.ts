// Mini (host) transitions. The spec shows only that a slot can be `down`; these are ours.
import { stateMachine } from '../runtime/fsm.ts';

export type MiniPhase = 'pending' | 'available' | 'reserved' | 'down';

export const MINI_EVENTS = [
  /** The host answered its first probe. */
  'registered',
  /** A reservation bound it. */
  'bind',
  /** Its reservation ended or was cancelled. */
  'release',
  /** Consecutive probes failed. */
  'unreachable',
  /** A down host answered again (no reservation holds it). */
  'answered',
  /** A down host answered again and a reservation holds it. */
  'answeredReserved',
] as const;
export type MiniEvent = (typeof MINI_EVENTS)[number];

export const MINI_STATES: readonly MiniPhase[] = ['pending', 'available', 'reserved', 'down'];

export const miniMachine = stateMachine<MiniPhase, MiniEvent>('Mini', MINI_STATES, MINI_EVENTS, {
  pending: { registered: 'available', unreachable: 'down' },
  available: { bind: 'reserved', unreachable: 'down' },
  reserved: { release: 'available', unreachable: 'down' },
  down: { answered: 'available', answeredReserved: 'reserved', release: 'down' },
});
