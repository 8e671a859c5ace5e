/**
 * One window's log, as the running system holds it: appends go to the store
 * one at a time, in order, each stamped with the clock; the projections the
 * window needs are kept up to date; every appended event is published.
 */
import { Observable, Subject } from "rxjs";
import type { Clock } from "../runtime/clock.ts";
import type { LogEvent, NewEvent } from "../runtime/events.ts";
import { type PanelState, panelItems } from "../runtime/panelItems.ts";
import {
  type HistoryState,
  history,
  type StatusState,
  status,
  type UsageState,
  usage,
} from "../runtime/projections.ts";
import type { EventStore } from "../runtime/store.ts";

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
  readonly panel: () => PanelState;
}

export const windowLog = (
  store: EventStore,
  stream: string,
  clock: Clock,
  onFailure: (error: unknown) => void,
): WindowLog => {
  let queue: Promise<unknown> = Promise.resolve();
  let historyState = history.initial;
  let usageState = usage.initial;
  let statusState = status.initial;
  let panelState = panelItems.initial;
  const appended = new Subject<LogEvent>();

  const apply = (event: LogEvent) => {
    historyState = history.apply(historyState, event);
    usageState = usage.apply(usageState, event);
    statusState = status.apply(statusState, event);
    panelState = panelItems.apply(panelState, event);
  };

  const append = (event: Unstamped): Promise<LogEvent> => {
    const stamped = { ...event, at: clock.now() } as NewEvent;
    const written = queue.then(async () => {
      const [stored] = await store.append(stream, [stamped], statusState.lastSeq);
      if (stored === undefined) throw new Error("the store appended nothing");
      apply(stored);
      appended.next(stored);
      return stored;
    });
    queue = written.catch(onFailure);
    return written;
  };

  const reload = async () => {
    await queue;
    const events = await store.read(stream);
    historyState = history.fold(events);
    usageState = usage.fold(events);
    statusState = status.fold(events);
    panelState = panelItems.fold(events);
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
    history: () => historyState,
    usage: () => usageState,
    status: () => statusState,
    panel: () => panelState,
  };
};
