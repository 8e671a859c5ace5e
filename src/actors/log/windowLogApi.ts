/**
 * What a window's log offers the window: appends in order, catching up with
 * other writers, its streams and feeds, and the projections it keeps.
 */
import type { Observable } from "rxjs";
import type { LogEvent, UnstampedEvent as Unstamped } from "../../runtime/log/events.ts";
import type { PanelState } from "../../runtime/log/panelItems.ts";
import type {
  HistoryState,
  SelectionsState,
  StatusState,
  UsageState,
} from "../../runtime/log/projections.ts";
import type { ThreadSummary } from "../../runtime/threads/summary.ts";
import type { EventFeed } from "../assistantWindow.ts";

/** One window's log, as the running system holds it (`windowLog` makes it). */
export interface WindowLog {
  readonly stream: string;
  /**
   * Appends one event after those already queued; resolves once it is stored.
   * Appends made while the one before them is in flight are stored in one
   * call to the store (up to {@link APPEND_BATCH}). Once the store refuses
   * one, the ones after it are refused too, until `reload`.
   */
  readonly append: (event: Unstamped) => Promise<LogEvent>;
  /** Resolves when every queued append has settled. */
  readonly idle: () => Promise<void>;
  /** Whether the store refused an append since the log was last read: appends are refused until `reload`. */
  readonly refused: () => boolean;
  /**
   * Reads what other processes appended after the last seq this log has (up
   * to `toSeq` when given), and keeps and publishes it as if appended here.
   * When what was read names another owner than `owner` (`WindowOwned`), or
   * is an erased log's tombstone, nothing of it is kept or published, and it
   * resolves `"foreign"`.
   */
  readonly catchUp: (
    toSeq: number | undefined,
    owner: string,
  ) => Promise<"kept" | "read" | "foreign">;
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
  /** Which log this is (from when its first event was stored); none while it has none. */
  readonly epoch: () => string | undefined;
  /**
   * The stored events with `seq > fromSeq`, read a page at a time as they are
   * pulled, then each new one: nothing missed, nothing twice. New events wait
   * for the puller; past `maxBehind` of them the feed fails with `FeedBehind`.
   */
  readonly feed: (fromSeq: number, maxBehind: number) => EventFeed;
  /** Completes every stream of the log, and each one subscribed after: the window closed. */
  readonly close: () => void;
  readonly panel: () => PanelState;
  /**
   * What the thread's list shows of it (title, times, preview, turns,
   * archived or erased), when the log keeps it: a log whose thread is not
   * indexed as it is written keeps none.
   */
  readonly thread: () => ThreadSummary | undefined;
  /** What is selected, kind by kind, with the route each was selected on. */
  readonly selections: () => SelectionsState;
}
