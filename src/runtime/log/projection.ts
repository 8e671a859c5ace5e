/** The shape every projection shares. */
import { type Draft, produce } from "immer";
import type { LogEvent } from "./events.ts";

/** A projection: an initial state and how one event changes it. */
export interface Projection<S> {
  readonly initial: S;
  /** One event, as an immutable update. */
  readonly apply: (state: S, event: LogEvent) => S;
  /** A whole log: the same step as `apply`, run over a private copy of `from`. */
  readonly fold: (events: Iterable<LogEvent>, from?: S) => S;
}

export const projectionOf = <S>(
  initial: S,
  step: (draft: Draft<S>, event: LogEvent) => void,
): Projection<S> => ({
  initial,
  apply: (state, event) => produce(state, (draft) => step(draft, event)),
  // A replay owns its state from start to end, so the same step runs on a private copy, with no
  // proxies: rebuilding a 1 000-turn log is a plain loop (the state is shared only once returned).
  fold: (events, from = initial) => {
    const state = structuredClone(from) as Draft<S>;
    for (const event of events) step(state, event);
    return state as S;
  },
});
