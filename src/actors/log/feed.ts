/**
 * A reader's feed of a window's log, pulled by its transport: the stored
 * events a page at a time, then the new ones, which wait (a bounded number
 * of them) until pulled.
 */
import type { Subject } from "rxjs";
import type { EventStore } from "../../runtime/log/eventStore.ts";
import type { LogEvent } from "../../runtime/log/events.ts";
import { type EventFeed, FeedBehind } from "../assistantWindow.ts";

/** Stored events read at a time by a feed, at most. */
export const FEED_PAGE = 256;

/**
 * About how many bytes of stored events a feed reads at a time: the number
 * of events in its next page follows the size of those it read last (small
 * events: up to {@link FEED_PAGE}; events of 60 KB: 4), so a reader that
 * stops reading holds about this much, whatever its events weigh.
 */
export const FEED_PAGE_BYTES = 256 * 1024;

/** The first page's number of events, before any size is known. */
const FIRST_PAGE = 16;

/** The JSON text of stored events a feed measured, until its transport frames them (then let go). */
const measured = new WeakMap<LogEvent, string>();

/**
 * An event's JSON text: the feed's own, when it measured it as it read it
 * (read once: it is let go then), else made now.
 */
export const eventText = (event: LogEvent): string => {
  const text = measured.get(event);
  if (text === undefined) return JSON.stringify(event);
  measured.delete(event);
  return text;
};

/**
 * One reader's feed of a log: the stored events up to where the log was when
 * it opened, a page per pull, then the events appended since, which wait here
 * (at most `maxBehind` of them) until pulled.
 */
export class FeedOfLog implements EventFeed {
  readonly #store: EventStore;
  readonly #stream: string;
  readonly #maxBehind: number;
  /** The seq of the last event given. */
  #last: number;
  /** Where the stored part ends: later events come through `#waiting`. */
  readonly #storedTo: number;
  /** Where the next page starts. */
  #readFrom: number;
  /** How many events the next page reads: from the size of the last. */
  #pageEvents = FIRST_PAGE;
  #waiting: LogEvent[] = [];
  #ended = false;
  #behind = false;
  #wake: (() => void) | undefined;
  readonly #live: { unsubscribe: () => void };

  constructor(
    store: EventStore,
    stream: string,
    appended: Subject<LogEvent>,
    fromSeq: number,
    storedTo: number,
    maxBehind: number,
  ) {
    this.#store = store;
    this.#stream = stream;
    this.#maxBehind = maxBehind;
    this.#last = fromSeq;
    this.#readFrom = fromSeq;
    this.#storedTo = storedTo;
    this.#live = appended.subscribe({
      next: (event) => {
        if (this.#behind) return;
        if (this.#waiting.length >= this.#maxBehind) {
          // The reader is too far behind: what waits is let go, and the feed fails when pulled.
          this.#behind = true;
          this.#waiting = [];
        } else this.#waiting.push(event);
        this.#wake?.();
      },
      complete: () => {
        this.#ended = true;
        this.#wake?.();
      },
    });
  }

  async next(): Promise<ReadonlyArray<LogEvent> | undefined> {
    if (this.#readFrom < this.#storedTo) {
      const to = Math.min(this.#readFrom + this.#pageEvents, this.#storedTo);
      const page = await this.#store.read(this.#stream, this.#readFrom, to);
      this.#readFrom = to;
      this.#pageEvents = nextPageEvents(page);
      return this.#fresh(page);
    }
    if (this.#behind)
      throw new FeedBehind({
        stream: this.#stream,
        lastSeq: this.#last,
        maxBehind: this.#maxBehind,
      });
    if (this.#waiting.length === 0 && !this.#ended)
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    this.#wake = undefined;
    if (this.#behind)
      throw new FeedBehind({
        stream: this.#stream,
        lastSeq: this.#last,
        maxBehind: this.#maxBehind,
      });
    if (this.#waiting.length === 0) return undefined;
    const waiting = this.#waiting;
    this.#waiting = [];
    return this.#fresh(waiting);
  }

  cancel(): void {
    this.#live.unsubscribe();
    this.#ended = true;
    this.#wake?.();
  }

  /** The events after the last one given, in order, each once. */
  #fresh(events: ReadonlyArray<LogEvent>): ReadonlyArray<LogEvent> {
    const fresh: LogEvent[] = [];
    for (const event of events)
      if (event.seq > this.#last) {
        this.#last = event.seq;
        fresh.push(event);
      }
    return fresh;
  }
}

/** The next page's number of events, from the size of `page` (each event's text kept for its frame). */
const nextPageEvents = (page: ReadonlyArray<LogEvent>): number => {
  if (page.length === 0) return FIRST_PAGE;
  let bytes = 0;
  for (const event of page) {
    const text = JSON.stringify(event);
    measured.set(event, text);
    bytes += text.length;
  }
  const each = Math.max(1, bytes / page.length);
  return Math.max(1, Math.min(FEED_PAGE, Math.floor(FEED_PAGE_BYTES / each)));
};
