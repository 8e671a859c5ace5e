/** The shape every projection shares. */
import { type Draft, produce } from "immer";
import type { LogEvent } from "./events.ts";

/** A projection: an initial state and how one event changes it. */
export interface Projection<S> {
  readonly initial: S;
  /** One event, as an immutable update. */
  readonly apply: (state: S, event: LogEvent) => S;
  /** A whole log, in one draft. */
  readonly fold: (events: Iterable<LogEvent>, from?: S) => S;
}

export const projectionOf = <S>(
  initial: S,
  step: (draft: Draft<S>, event: LogEvent) => void,
): Projection<S> => ({
  initial,
  apply: (state, event) => produce(state, (draft) => step(draft, event)),
  fold: (events, from = initial) =>
    produce(from, (draft) => {
      for (const event of events) step(draft, event);
    }),
});
