/**
 * Projections of a window's log kept up to date on demand: appends queue
 * their events, once for all the log's views, and a read folds what that
 * view has not read yet.
 */
import type { LogEvent } from "../../runtime/log/events.ts";
import type { Projection } from "../../runtime/log/projection.ts";

/** Several events onto an immutable state: one private replay, then shared (frozen like `apply`'s). */
const foldOnto = <S>(projection: Projection<S>, state: S, events: ReadonlyArray<LogEvent>): S =>
  Object.freeze(projection.fold(events, state));

const NONE: ReadonlyArray<LogEvent> = [];

/**
 * The events appended and not yet read by every view over them: each one is
 * queued once for all the views, and the queue is let go once each view has
 * read it (after a turn, one array for the log rather than one per view).
 */
export class ViewQueue {
  #events: LogEvent[] | undefined;
  /** How many events were queued before the first one held. */
  #from = 0;
  /** How many events were queued in all. */
  #count = 0;
  /** The views over the queue, and how many of them have not read the last event. */
  #views = 0;
  #behind = 0;

  /** A new view, that has read all queued so far: its place in the queue. */
  join(): number {
    this.#views++;
    return this.#count;
  }

  push(event: LogEvent): void {
    if (this.#events === undefined) {
      this.#events = [event];
      this.#from = this.#count;
    } else this.#events.push(event);
    this.#count++;
    this.#behind = this.#views;
  }

  /** What a view at `seen` has not read; it has read all once this returns (at `count`). */
  since(seen: number): ReadonlyArray<LogEvent> {
    const events = this.#events;
    if (seen === this.#count || events === undefined) return NONE;
    const pending = seen === this.#from ? events : events.slice(seen - this.#from);
    this.#caughtUp();
    return pending;
  }

  /** A view at `seen` skips what it has not read (it read the log whole): now at `count`. */
  skip(seen: number): void {
    if (seen !== this.#count) this.#caughtUp();
  }

  get count(): number {
    return this.#count;
  }

  #caughtUp(): void {
    this.#behind--;
    if (this.#behind === 0) this.#events = undefined;
  }
}

/**
 * A projection kept up to date on demand: an append only queues the event,
 * and a read applies what is queued, so a turn's many appends cost no fold
 * unless something reads it. A class, so the thousands of idle windows share
 * its methods.
 */
export class LazyView<S> {
  readonly #projection: Projection<S>;
  readonly #queue: ViewQueue;
  #state: S;
  /** Its place in the queue: how many of its events it has read. */
  #seen: number;

  constructor(projection: Projection<S>, queue: ViewQueue) {
    this.#projection = projection;
    this.#queue = queue;
    this.#state = projection.initial;
    this.#seen = queue.join();
  }

  reset(events: ReadonlyArray<LogEvent>): void {
    // An empty log folds to the initial state: that one is kept, not a copy of it per window.
    this.#state = events.length === 0 ? this.#projection.initial : this.#projection.fold(events);
    this.#queue.skip(this.#seen);
    this.#seen = this.#queue.count;
  }

  read(): S {
    const queued = this.#queue.since(this.#seen);
    this.#seen = this.#queue.count;
    if (queued.length === 1)
      this.#state = this.#projection.apply(this.#state, queued[0] as LogEvent);
    else if (queued.length > 1) this.#state = foldOnto(this.#projection, this.#state, queued);
    return this.#state;
  }
}
