/**
 * A window's conversation as the app and its transports use it: the
 * interface `host.window(...)` returns, what a prompt carries, and how a
 * prompt or a selection is refused.
 */
import { Data } from "effect";
import type { Observable } from "rxjs";
import type { AnswerResult, ConfirmEcho } from "../runtime/calls/answerResult.ts";
import type { LogEvent, TurnEnd } from "../runtime/log/events.ts";
import type { PanelState } from "../runtime/log/panelItems.ts";
import type { HistoryState, UsageState } from "../runtime/log/projections.ts";
import type { LiveResult } from "../runtime/prompt/liveResult.ts";
import type { ThreadSummary } from "../runtime/threads/summary.ts";
import type { Spending } from "../runtime/usage/spending.ts";

/** What a prompt carries: the text and the route the user is on. */
export type PromptInput = string | { readonly text: string; readonly route?: string | null };

/**
 * A prompt that cannot start: a turn already runs, the app has no assistant,
 * the window failed or closed. `prompt` rejects with it; `reason` says
 * which. The HTTP host answers 409 (404 for `noAssistant`).
 *
 * @example
 * ```ts
 * const w = host.window("tab-1", { user });
 * try {
 *   await w.prompt({ text: "Which invoices are overdue?", route: "/invoices" });
 * } catch (error) {
 *   if (error instanceof PromptRefused && error.reason === "turnInProgress") showBusy();
 *   else throw error;
 * }
 * ```
 */
export class PromptRefused extends Data.TaggedError("PromptRefused")<{
  readonly reason: "turnInProgress" | "noAssistant" | "windowFailed" | "closed";
  readonly message: string;
}> {}

/** A {@link PromptRefused} for `reason`, saying `message`. */
export const promptRefused = (reason: PromptRefused["reason"], message: string): PromptRefused =>
  new PromptRefused({ reason, message });

/**
 * A window asked for by a user who does not own it: thrown by `host.window`,
 * and by a window opened again whose log names another owner. The HTTP host
 * answers 403.
 *
 * @example
 * ```ts
 * try {
 *   host.window(clientId, { user });
 * } catch (error) {
 *   if (error instanceof WindowOwnerMismatch) reply(403, "this window belongs to another user");
 *   else throw error;
 * }
 * ```
 */
export class WindowOwnerMismatch extends Data.TaggedError("WindowOwnerMismatch")<{
  readonly clientId: string;
}> {
  override get message(): string {
    return `window ${JSON.stringify(this.clientId)} belongs to another user`;
  }
}

/**
 * No thread of this user has that id: it never was, it is another user's,
 * or it was erased. One answer for all three, so that no one learns which.
 *
 * @example
 * ```ts
 * try {
 *   await host.threads.rename({ user, id, title });
 * } catch (error) {
 *   if (error instanceof ThreadNotFound) reply(404, "no such conversation");
 *   else throw error;
 * }
 * ```
 */
export class ThreadNotFound extends Data.TaggedError("ThreadNotFound")<{
  readonly id: string;
}> {
  override get message(): string {
    return `no thread ${JSON.stringify(this.id)} of this user's`;
  }
}

/**
 * A reader of a window's events that fell too far behind: more new events
 * waited for it than its feed keeps. Its transport ends the stream, and the
 * client resumes from what it has, reading the rest from the store.
 *
 * @example
 * ```ts
 * const { feed } = await assistantWindow.follow(lastEventId);
 * try {
 *   for (let batch = await feed.next(); batch; batch = await feed.next()) send(batch);
 * } catch (error) {
 *   if (!(error instanceof FeedBehind)) throw error;
 *   response.end(); // the client reconnects with its Last-Event-ID and reads the rest
 * }
 * ```
 */
export class FeedBehind extends Data.TaggedError("FeedBehind")<{
  readonly stream: string;
  readonly lastSeq: number;
  readonly maxBehind: number;
}> {
  override get message(): string {
    return `a reader of ${JSON.stringify(this.stream)} fell more than ${this.maxBehind} events behind at seq ${this.lastSeq}`;
  }
}

/** A window's events as a transport pulls them, from where a client resumes. */
export interface EventFeed {
  /**
   * The next events: the stored ones a page at a time, then each new one as
   * it comes (waiting for it); `undefined` once the window closed and all was
   * given. Fails with {@link FeedBehind} when the puller fell too far behind.
   */
  readonly next: () => Promise<ReadonlyArray<LogEvent> | undefined>;
  /** Stops the feed: a pending `next` resolves `undefined`. */
  readonly cancel: () => void;
}

/** A client's place in the window's log, and the feed from there. */
export interface Following {
  /** The client's point is not in this log (a restart, another epoch): it forgets what it has and gets it all. */
  readonly startOver: boolean;
  readonly feed: EventFeed;
  /** The id an event is sent with, for the client to resume after. */
  readonly eventId: (event: LogEvent) => string;
}

/**
 * A selection that cannot be made: a kind with no name, or ids that are not
 * strings or numbers. `select` rejects with it and nothing is recorded; the
 * HTTP host answers 400.
 *
 * @example
 * ```ts
 * const w = host.window("tab-1", { user });
 * await w.select("invoice", [7, 9]); // the next prompt's note names them
 * await w.select("", [7]).catch((error) => error instanceof SelectionRefused); // true
 * ```
 */
export class SelectionRefused extends Data.TaggedError("SelectionRefused")<{
  readonly detail: string;
}> {
  override get message(): string {
    return `selection refused: ${this.detail}`;
  }
}

/**
 * One window's conversation, as the app and its transports use it. Its
 * operations are methods, shared by every window: call them on the window
 * (`w.prompt(…)`), or bind one taken off it (`w.follow.bind(w)`).
 */
export interface AssistantWindow {
  readonly clientId: string;
  /** Resolves once the window's log is loaded (methods wait for it themselves). */
  readonly ready: Promise<void>;
  /**
   * Starts a turn and resolves with the event that ended it. `onStarted` is
   * told the turn's number once it has started, for callers that answer then.
   */
  readonly prompt: (
    input: PromptInput,
    options?: { readonly onStarted?: (turn: number) => void },
  ) => Promise<TurnEnd>;
  /** Answers a confirmation of this window, once. */
  readonly confirm: (
    confirmId: string,
    accept: boolean,
    echo?: ConfirmEcho,
  ) => Promise<AnswerResult>;
  /**
   * Opens a live query of this window's screen: a `live` command's result now
   * and after each write that changes it. The next turn's note names it.
   */
  readonly live: (command: string, args: unknown) => Observable<LiveResult>;
  /**
   * Replaces what is selected of `kind` (`[]` clears it), on `route` (the last
   * prompt's route by default). A turn from another route drops it.
   *
   * @throws {SelectionRefused} for a kind with no name or ids that are not strings or numbers.
   */
  readonly select: (
    kind: string,
    ids: ReadonlyArray<string | number>,
    options?: { readonly route?: string | null },
  ) => Promise<void>;
  /**
   * Stops the turn: the model request is aborted; a command already running
   * finishes on its own. On a shared store it stops the last turn this host
   * knew of when asked, never one started after (a stop the holder is told
   * late stops nothing).
   */
  readonly stop: () => void;
  /** Stops any turn and forgets the conversation (its log keeps a `Reset`); told late, as stop. */
  readonly reset: () => Promise<void>;
  /**
   * Names the window's thread (on one line, at most 200 characters; empty:
   * titled by its first prompt again), logged as `ThreadRenamed` by the
   * window's writer; resolves once stored.
   */
  readonly rename: (title: string) => Promise<void>;
  /** Archives the thread (`true`, the default) or brings it back (`false`), logged as `ThreadArchived`. */
  readonly archive: (archived?: boolean) => Promise<void>;
  /** What the thread's list shows of it, once the log is read and found this user's: title, times, preview, turns. */
  readonly thread: () => Promise<ThreadSummary>;
  /** The window's log events from `fromSeq` on, then each new one. */
  readonly events$: (fromSeq?: number) => Observable<LogEvent>;
  /**
   * The window's events for a transport that sends them on with backpressure
   * (the HTTP host's `GET /events`): from after `lastEventId` (an id this
   * window gave out, or a bare seq), or from the start, with `startOver` set,
   * when the log does not have that point. Stored events are read a page at a
   * time as the transport pulls; past `maxBehind` new events (4 096) waiting
   * for it, the feed fails with {@link FeedBehind}. Refused like `prompt` when
   * the window is another user's or its log cannot be read.
   */
  readonly follow: (
    lastEventId: string | undefined,
    options?: { readonly maxBehind?: number },
  ) => Promise<Following>;
  readonly panel: () => PanelState;
  readonly history: () => HistoryState;
  readonly usage: () => UsageState;
  /**
   * What the conversation used and cost, at the app's prices, since it
   * began (a reset does not unspend): read from its log a page at a time,
   * once the log is known to be this window's user's.
   */
  readonly spending: () => Promise<Spending>;
  /**
   * Resolves once the log is read and is this window's user's; rejects with
   * `WindowOwnerMismatch` when it names someone else. What reads the log's
   * folds for a request (`usage()`) waits for it first.
   */
  readonly owned: () => Promise<void>;
  /** The conversation machine's state, e.g. `"idle"` or `{ turn: "requesting" }`. */
  readonly state: () => unknown;
  /** The machine's bookkeeping that the log must agree with. */
  readonly context: () => { readonly turn: number; readonly tokensUsed: number };
  /** Whether the window was given up after repeated crashes (open it again to start afresh). */
  readonly failed: () => boolean;
  /** The seq of the last stored event. */
  readonly lastSeq: () => number;
  /** Whether the log shows a turn running: on this host, or (on a shared store) on the one writing the window. */
  readonly running: () => boolean;
  /** Waits until every event so far is stored. */
  readonly settled: () => Promise<void>;
  /** Stops the actor; a memory store forgets the log, a durable one keeps it. */
  readonly close: () => Promise<void>;
}
