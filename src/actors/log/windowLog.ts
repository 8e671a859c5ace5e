/**
 * One window's log, as the running system holds it: appends go to the store
 * one at a time, in order, each stamped with the clock; the projections the
 * window needs are kept up to date; every appended event is published.
 */
import { Observable, Subject } from "rxjs";
import { StoreContractBroken } from "../../runtime/errors.ts";
import type { EventStore } from "../../runtime/log/eventStore.ts";
import type { LogEvent, NewEvent } from "../../runtime/log/events.ts";
import { type PanelState, panelItems } from "../../runtime/log/panelItems.ts";
import {
  type HistoryState,
  history,
  type SelectionsState,
  type StatusState,
  selections,
  status,
  type UsageState,
  usage,
} from "../../runtime/log/projections.ts";
import { epochOf } from "../../runtime/log/resumePoint.ts";
import { LeaseLost, type Writer } from "../../runtime/log/writerLeases.ts";
import type { Clock } from "../../runtime/ports/clock.ts";
import { type ThreadSummary, threadSummary } from "../../runtime/threads/summary.ts";
import type { EventFeed } from "../assistantWindow.ts";
import { LazyView, ViewQueue } from "../support/lazyView.ts";
import { APPEND_BATCH, type Batch, eventAt } from "./appendBatch.ts";
import { FeedOfLog } from "./feed.ts";

/** What a window's log is named in the store: the prefix, then the client id. */
export const STREAM_PREFIX = "conversation/";

/** The stream of a window's log. */
export const streamOf = (clientId: string): string => `${STREAM_PREFIX}${clientId}`;

export type { UnstampedEvent as Unstamped } from "../../runtime/log/events.ts";

import type { UnstampedEvent as Unstamped } from "../../runtime/log/events.ts";
import type { WindowLog } from "./windowLogApi.ts";

export type { WindowLog } from "./windowLogApi.ts";

/** What a log's queue and reload start from: one settled promise for every window's log. */
const SETTLED: Promise<unknown> = Promise.resolve();

/**
 * A window's log, as a class: every window has one, and the methods of
 * thousands of idle windows are shared rather than held as closures each.
 */
class LogOfWindow implements WindowLog {
  readonly stream: string;
  readonly #store: EventStore;
  readonly #clock: Clock;
  readonly #onFailure: (error: unknown, refused: ReadonlyArray<NewEvent>) => void;
  /** The lease appends are made under, on a store with leases; none there refuses them. */
  readonly #writer: (() => Writer | undefined) | undefined;
  #queue: Promise<unknown> = SETTLED;
  /** The appends gathering while the one before them is in flight: stored in one call. */
  #batch: Batch | undefined;
  #lastSeq = 0;
  #epoch: string | undefined;
  /**
   * A catch-up queued and not yet reading, and the highest seq told to it:
   * later notices join it, and it reads at least to the last seq they told.
   */
  #catchingUp:
    | {
        readonly done: Promise<"kept" | "read" | "foreign">;
        readonly told: { toSeq: number | undefined };
      }
    | undefined;
  /** Whether the log has been (or is being) read: until then there is nothing to catch up with. */
  #reading = false;
  /** Whether a reload has read the log whole once. */
  #loaded = false;
  /** The reload in flight: a catch-up waits for it (it reads the log from its start). */
  #reloading: Promise<unknown> = SETTLED;
  /**
   * What the store refused last, until the log is read again: the appends
   * queued behind a refused one are refused with it, so the stored log never
   * has a hole where an event was lost.
   */
  #refused: { readonly error: unknown } | undefined;
  readonly #appended = new Subject<LogEvent>();
  /** The events the views have not all read: queued once for all of them. */
  readonly #unread = new ViewQueue();
  readonly #history = new LazyView(history, this.#unread);
  readonly #usage = new LazyView(usage, this.#unread);
  readonly #status = new LazyView(status, this.#unread);
  readonly #panel = new LazyView(panelItems, this.#unread);
  /** Kept only when the thread is indexed as it is written: a view no one reads would hold every event queued. */
  readonly #thread: LazyView<ThreadSummary> | undefined;
  /**
   * Made at the first selection: before one, nothing is selected whatever the
   * log says, and most windows never select, so an idle window holds no view of it.
   */
  #selections: LazyView<SelectionsState> | undefined;

  constructor(
    store: EventStore,
    stream: string,
    clock: Clock,
    onFailure: (error: unknown, refused: ReadonlyArray<NewEvent>) => void,
    writer: (() => Writer | undefined) | undefined,
    summarised: boolean,
  ) {
    this.#thread = summarised ? new LazyView(threadSummary, this.#unread) : undefined;
    this.#store = store;
    this.#writer = writer;
    this.stream = stream;
    this.#clock = clock;
    this.#onFailure = onFailure;
  }

  get appended$(): Observable<LogEvent> {
    return this.#appended.asObservable();
  }

  append(event: Unstamped): Promise<LogEvent> {
    const stamped = { ...event, at: this.#clock.now() } as NewEvent;
    // Appends made while the one before them is in flight are stored together, in one call to
    // the store (one round trip and one notification on a shared one), each resolved as stored.
    const open = this.#batch;
    if (open !== undefined && open.queued === this.#queue && open.events.length < APPEND_BATCH) {
      return eventAt(open.written, open.events.push(stamped) - 1);
    }
    const batch: Batch = { events: [stamped], queued: this.#queue, written: Promise.resolve([]) };
    let fromStore = false;
    batch.written = this.#queue.then(async () => {
      if (this.#batch === batch) this.#batch = undefined;
      if (this.#refused !== undefined) throw this.#refused.error;
      fromStore = true;
      const writer = this.#writer?.();
      // On a store several hosts share, only the window's writer appends (decision (aj)).
      if (this.#writer !== undefined && writer === undefined) {
        const error = new LeaseLost({ stream: this.stream, holder: "none" });
        this.#refused = { error };
        throw error;
      }
      const { events } = batch;
      const written = await this.#store
        .append(this.stream, events, this.#lastSeq, writer)
        .catch((error: unknown) => {
          this.#refused = { error };
          throw error;
        });
      if (written.length !== events.length)
        throw new StoreContractBroken({
          port: "EventStore",
          reason: `an append of ${events.length === 1 ? "one event" : `${events.length} events`} to ${JSON.stringify(this.stream)} resolved with ${written.length === 0 ? "none" : written.length}: append must resolve with the events it wrote`,
        });
      for (const stored of written) this.#accept(stored);
      return written;
    });
    // The store's refusal is told once; the appends refused behind it are not told again.
    this.#queue = batch.written.catch((error: unknown) => {
      if (fromStore) this.#onFailure(error, batch.events);
    });
    batch.queued = this.#queue;
    this.#batch = batch;
    return eventAt(batch.written, 0);
  }

  async idle(): Promise<void> {
    await this.#queue;
  }

  catchUp(toSeq: number | undefined, owner: string): Promise<"kept" | "read" | "foreign"> {
    // Not read yet: the first reload reads everything stored by then, this append included.
    if (!this.#reading) return Promise.resolve("kept");
    if (toSeq !== undefined && toSeq <= this.#lastSeq) return Promise.resolve("kept");
    // One catch-up waits at a time: the notices of a burst of appends make one read, not one each.
    // It reads to the highest seq told: one that a catch-up reading now reaches is not the last.
    const queued = this.#catchingUp;
    if (queued !== undefined && toSeq !== undefined) {
      queued.told.toSeq = Math.max(queued.told.toSeq ?? 0, toSeq);
      return queued.done;
    }
    const told: { toSeq: number | undefined } = { toSeq };
    // In the queue, so an append of this host never runs between the read and the events kept;
    // and after a reload in flight, which reads the log from its start anyway.
    const done = Promise.all([this.#queue, this.#reloading]).then(
      async (): Promise<"kept" | "read" | "foreign"> => {
        this.#catchingUp = undefined;
        const { toSeq } = told;
        if (toSeq !== undefined && toSeq <= this.#lastSeq) return "kept";
        const from = this.#lastSeq;
        // To the end as it is now, not only to `toSeq`: the appends told after this one are read
        // too. Without a seq told, the store's own last seq, which counts rows `read` skips.
        const { events, lastSeq: end } =
          toSeq === undefined
            ? await this.#toEnd(from)
            : { events: await this.#store.read(this.stream, from), lastSeq: undefined };
        // Another user's window (two hosts each opened it for a different user), or one erased
        // (its events gone, a tombstone in their place): none of it is shown.
        if (
          events.some((e) => (e._tag === "WindowOwned" && e.owner !== owner) || e._tag === "Erased")
        )
          return "foreign";
        let read = false;
        for (const event of events)
          if (event.seq > this.#lastSeq) {
            this.#accept(event);
            read = true;
          }
        // Rows of types this code does not know are skipped, and still counted.
        this.#lastSeq = Math.max(this.#lastSeq, end ?? 0, toSeq ?? 0);
        // "read": events another writer appended, which this host had not seen.
        return read ? "read" : "kept";
      },
    );
    if (toSeq !== undefined) this.#catchingUp = { done, told };
    this.#queue = done.catch(() => undefined);
    return done;
  }

  refused(): boolean {
    return this.#refused !== undefined;
  }

  reload(): Promise<ReadonlyArray<LogEvent>> {
    this.#reading = true;
    const reloaded = this.#reload();
    this.#reloading = reloaded.catch(() => undefined);
    return reloaded;
  }

  /** The stream's last seq and its events after `from`: in one read when the store offers it. */
  async #toEnd(from: number): Promise<{ events: ReadonlyArray<LogEvent>; lastSeq: number }> {
    if (this.#store.readToEnd !== undefined) return this.#store.readToEnd(this.stream, from);
    const lastSeq = await this.#store.lastSeq(this.stream);
    return { lastSeq, events: await this.#store.read(this.stream, from) };
  }

  async #reload(): Promise<ReadonlyArray<LogEvent>> {
    await this.#queue;
    // Read before (not the window's first read): what others wrote since then is told below.
    const told = this.#loaded ? this.#lastSeq : undefined;
    // The store's own last seq, asked first: `read` skips events of types this code does not
    // know (a newer version's), so the last one read may be older than the stream's last.
    this.#refused = undefined;
    const { lastSeq: storedSeq, events } = await this.#toEnd(0);
    this.#history.reset(events);
    this.#usage.reset(events);
    this.#status.reset(events);
    this.#panel.reset(events);
    this.#thread?.reset(events);
    if (this.#selections === undefined && events.some((e) => e._tag === "SelectionChanged"))
      this.#selections = new LazyView(selections, this.#unread);
    this.#selections?.reset(events);
    this.#lastSeq = Math.max(storedSeq, events.at(-1)?.seq ?? 0);
    const first = events[0];
    this.#epoch = first === undefined ? undefined : epochOf(first.at);
    this.#loaded = true;
    // A rebuild after a crash (or a lease lost) reads what other hosts wrote since this window
    // last read its log: its streams are told it too, in order, as a catch-up would tell it.
    if (told !== undefined) for (const e of events) if (e.seq > told) this.#appended.next(e);
    return events;
  }

  events$(fromSeq = 0): Observable<LogEvent> {
    return new Observable<LogEvent>((subscriber) => {
      let last = fromSeq;
      let replaying = true;
      const buffered: LogEvent[] = [];
      const emit = (event: LogEvent) => {
        if (event.seq <= last) return;
        last = event.seq;
        subscriber.next(event);
      };
      let closed = false;
      const live = this.#appended.subscribe({
        next: (event) => (replaying ? buffered.push(event) : emit(event)),
        // The window closed: what was stored is told first, then the stream ends.
        complete: () => {
          closed = true;
          if (!replaying) subscriber.complete();
        },
      });
      this.#store.read(this.stream, fromSeq).then(
        (events) => {
          for (const event of events) emit(event);
          for (const event of buffered) emit(event);
          replaying = false;
          buffered.length = 0;
          if (closed) subscriber.complete();
        },
        (error) => subscriber.error(error),
      );
      return () => live.unsubscribe();
    });
  }

  lastSeq(): number {
    return this.#lastSeq;
  }

  epoch(): string | undefined {
    return this.#epoch;
  }

  feed(fromSeq: number, maxBehind: number): EventFeed {
    return new FeedOfLog(
      this.#store,
      this.stream,
      this.#appended,
      fromSeq,
      this.#lastSeq,
      maxBehind,
    );
  }

  close(): void {
    this.#appended.complete();
  }

  history(): HistoryState {
    return this.#history.read();
  }

  usage(): UsageState {
    return this.#usage.read();
  }

  status(): StatusState {
    return this.#status.read();
  }

  panel(): PanelState {
    return this.#panel.read();
  }

  thread(): ThreadSummary | undefined {
    return this.#thread?.read();
  }

  selections(): SelectionsState {
    return this.#selections?.read() ?? selections.initial;
  }

  /** A stored event, this host's or another's: kept, folded and published. */
  #accept(stored: LogEvent): void {
    this.#lastSeq = stored.seq;
    if (stored.seq === 1) this.#epoch = epochOf(stored.at);
    this.#push(stored);
    this.#appended.next(stored);
  }

  #push(event: LogEvent): void {
    if (this.#selections === undefined && event._tag === "SelectionChanged")
      this.#selections = new LazyView(selections, this.#unread);
    this.#unread.push(event);
  }
}

/** A window's log over a store: appends in order, projections kept on demand, events published. */
export const windowLog = (
  store: EventStore,
  stream: string,
  clock: Clock,
  /** Told each refusal of the store's, with the events it refused (not those refused behind them). */
  onFailure: (error: unknown, refused: ReadonlyArray<NewEvent>) => void,
  /** On a store with leases: the lease this host holds on the stream now, if any. */
  writer?: () => Writer | undefined,
  /** Whether the log keeps its thread's summary (its thread is indexed as it is written). */
  summarised = true,
): WindowLog => new LogOfWindow(store, stream, clock, onFailure, writer, summarised);
