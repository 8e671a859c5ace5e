/**
 * One window's log, as the running system holds it: appends go to the store
 * one at a time, in order, each stamped with the clock; the projections the
 * window needs are kept up to date; every appended event is published.
 */
import { Observable, Subject } from "rxjs";
import type { Clock } from "../runtime/clock.ts";
import type { LogEvent, NewEvent } from "../runtime/events.ts";
import { type PanelState, panelItems } from "../runtime/panelItems.ts";
import type { Projection } from "../runtime/projection.ts";
import {
  type HistoryState,
  history,
  type SelectionsState,
  type StatusState,
  selections,
  status,
  type UsageState,
  usage,
} from "../runtime/projections.ts";
import type { EventStore } from "../runtime/store.ts";

/** Several events onto an immutable state: one private replay, then shared (frozen like `apply`'s). */
const foldOnto = <S>(projection: Projection<S>, state: S, events: ReadonlyArray<LogEvent>): S =>
  Object.freeze(projection.fold(events, state));

export type { UnstampedEvent as Unstamped } from "../runtime/events.ts";

import type { UnstampedEvent as Unstamped } from "../runtime/events.ts";

export interface WindowLog {
  readonly stream: string;
  /** Appends one event after those already queued; resolves once it is stored. */
  readonly append: (event: Unstamped) => Promise<LogEvent>;
  /** Resolves when every queued append has settled. */
  readonly idle: () => Promise<void>;
  /** Reads the stored log and folds the projections from it again. */
  readonly reload: () => Promise<ReadonlyArray<LogEvent>>;
  /** Events as they are stored. */
  readonly appended$: Observable<LogEvent>;
  /** The stored events with `seq > fromSeq`, then each new one: nothing missed, nothing twice. */
  readonly events$: (fromSeq?: number) => Observable<LogEvent>;
  readonly history: () => HistoryState;
  readonly usage: () => UsageState;
  readonly status: () => StatusState;
  /** The seq of the last stored event. */
  readonly lastSeq: () => number;
  readonly panel: () => PanelState;
  /** What is selected, kind by kind, with the route each was selected on. */
  readonly selections: () => SelectionsState;
}

/**
 * A projection kept up to date on demand: an append only queues the event,
 * and a read applies what is queued, so a turn's many appends cost no fold
 * unless something reads it. A class, so the thousands of idle windows share
 * its methods.
 */
class LazyView<S> {
  readonly #projection: Projection<S>;
  #state: S;
  #queued: LogEvent[] = [];

  constructor(projection: Projection<S>) {
    this.#projection = projection;
    this.#state = projection.initial;
  }

  push(event: LogEvent): void {
    this.#queued.push(event);
  }

  reset(events: ReadonlyArray<LogEvent>): void {
    this.#state = this.#projection.fold(events);
    this.#queued = [];
  }

  read(): S {
    const queued = this.#queued;
    if (queued.length === 1)
      this.#state = this.#projection.apply(this.#state, queued[0] as LogEvent);
    else if (queued.length > 1) this.#state = foldOnto(this.#projection, this.#state, queued);
    if (queued.length > 0) this.#queued = [];
    return this.#state;
  }
}

export const windowLog = (
  store: EventStore,
  stream: string,
  clock: Clock,
  onFailure: (error: unknown) => void,
): WindowLog => {
  let queue: Promise<unknown> = Promise.resolve();
  let lastSeq = 0;
  const appended = new Subject<LogEvent>();

  const historyView = new LazyView(history);
  const usageView = new LazyView(usage);
  const statusView = new LazyView(status);
  const panelView = new LazyView(panelItems);
  const selectionsView = new LazyView(selections);
  const views = [historyView, usageView, statusView, panelView, selectionsView];

  const append = (event: Unstamped): Promise<LogEvent> => {
    const stamped = { ...event, at: clock.now() } as NewEvent;
    const written = queue.then(async () => {
      const [stored] = await store.append(stream, [stamped], lastSeq);
      if (stored === undefined) throw new Error("the store appended nothing");
      lastSeq = stored.seq;
      for (const view of views) view.push(stored);
      appended.next(stored);
      return stored;
    });
    queue = written.catch(onFailure);
    return written;
  };

  const reload = async () => {
    await queue;
    const events = await store.read(stream);
    for (const view of views) view.reset(events);
    lastSeq = events.at(-1)?.seq ?? 0;
    return events;
  };

  const events$ = (fromSeq = 0) =>
    new Observable<LogEvent>((subscriber) => {
      let last = fromSeq;
      let replaying = true;
      const buffered: LogEvent[] = [];
      const emit = (event: LogEvent) => {
        if (event.seq <= last) return;
        last = event.seq;
        subscriber.next(event);
      };
      const live = appended.subscribe((event) => (replaying ? buffered.push(event) : emit(event)));
      store.read(stream, fromSeq).then(
        (events) => {
          for (const event of events) emit(event);
          for (const event of buffered) emit(event);
          replaying = false;
          buffered.length = 0;
        },
        (error) => subscriber.error(error),
      );
      return () => live.unsubscribe();
    });

  return {
    stream,
    append,
    idle: async () => {
      await queue;
    },
    reload,
    appended$: appended.asObservable(),
    events$,
    lastSeq: () => lastSeq,
    history: () => historyView.read(),
    usage: () => usageView.read(),
    status: () => statusView.read(),
    panel: () => panelView.read(),
    selections: () => selectionsView.read(),
  };
};
