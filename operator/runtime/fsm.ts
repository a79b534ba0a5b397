// State machines as transition tables (Orchard's fsm.go): a table maps (state, event) to the next
// state, and a reconciler moves an object only through `transition()`, which refuses a move the
// table does not list. A test walks every cell of every table.

export type TransitionTable<S extends string, E extends string> = Record<S, Partial<Record<E, S>>>;

export class IllegalTransitionError extends Error {
  constructor(machine: string, from: string, event: string) {
    super(`${machine}: no transition from ${from} on ${event}`);
    this.name = 'IllegalTransitionError';
  }
}

export interface StateMachine<S extends string, E extends string> {
  readonly name: string;
  readonly states: readonly S[];
  readonly events: readonly E[];
  readonly table: TransitionTable<S, E>;
  /** The next state, or throws IllegalTransitionError. */
  transition(from: S, event: E): S;
  /** The next state, or undefined when the table has no such move. */
  next(from: S, event: E): S | undefined;
}

export function stateMachine<S extends string, E extends string>(
  name: string,
  states: readonly S[],
  events: readonly E[],
  table: TransitionTable<S, E>,
): StateMachine<S, E> {
  const next = (from: S, event: E): S | undefined => table[from]?.[event];
  return {
    name,
    states,
    events,
    table,
    next,
    transition(from, event) {
      const to = next(from, event);
      if (to === undefined) throw new IllegalTransitionError(name, from, event);
      return to;
    },
  };
}
