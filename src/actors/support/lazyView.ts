/**
 * A projection of a window's log kept up to date on demand: appends queue
 * their events, and a read folds what is queued.
 */
import type { LogEvent } from "../../runtime/log/events.ts";
import type { Projection } from "../../runtime/log/projection.ts";

/** Several events onto an immutable state: one private replay, then shared (frozen like `apply`'s). */
const foldOnto = <S>(projection: Projection<S>, state: S, events: ReadonlyArray<LogEvent>): S =>
  Object.freeze(projection.fold(events, state));

/**
 * A projection kept up to date on demand: an append only queues the event,
 * and a read applies what is queued, so a turn's many appends cost no fold
 * unless something reads it. A class, so the thousands of idle windows share
 * its methods.
 */
export class LazyView<S> {
  readonly #projection: Projection<S>;
  #state: S;
  /** Made at the first event queued: an idle window's views hold none. */
  #queued: LogEvent[] | undefined;

  constructor(projection: Projection<S>) {
    this.#projection = projection;
    this.#state = projection.initial;
  }

  push(event: LogEvent): void {
    if (this.#queued === undefined) this.#queued = [event];
    else this.#queued.push(event);
  }

  reset(events: ReadonlyArray<LogEvent>): void {
    // An empty log folds to the initial state: that one is kept, not a copy of it per window.
    this.#state = events.length === 0 ? this.#projection.initial : this.#projection.fold(events);
    this.#queued = undefined;
  }

  read(): S {
    const queued = this.#queued;
    if (queued === undefined) return this.#state;
    if (queued.length === 1)
      this.#state = this.#projection.apply(this.#state, queued[0] as LogEvent);
    else if (queued.length > 1) this.#state = foldOnto(this.#projection, this.#state, queued);
    this.#queued = undefined;
    return this.#state;
  }
}
