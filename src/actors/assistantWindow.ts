/**
 * A window's conversation as the app and its transports use it: the
 * interface `host.window(...)` returns, what a prompt carries, and how a
 * prompt or a selection is refused.
 */
import { Data } from "effect";
import type { Observable } from "rxjs";
import type { LogEvent, TurnEnd } from "../runtime/log/events.ts";
import type { PanelState } from "../runtime/log/panelItems.ts";
import type { HistoryState, UsageState } from "../runtime/log/projections.ts";
import type { AnswerResult } from "./confirmationBroker.ts";
import type { LiveResult } from "./liveQueries.ts";

/** What a prompt carries: the text and the route the user is on. */
export type PromptInput = string | { readonly text: string; readonly route?: string | null };

/** A prompt that cannot start: a turn already runs, the app has no assistant, the window failed or closed. */
export class PromptRefused extends Data.TaggedError("PromptRefused")<{
  readonly reason: "turnInProgress" | "noAssistant" | "windowFailed" | "closed";
  readonly message: string;
}> {}

/** A selection that cannot be made: a kind with no name, or ids that are not strings or numbers. */
export class SelectionRefused extends Data.TaggedError("SelectionRefused")<{
  readonly detail: string;
}> {
  override get message(): string {
    return `selection refused: ${this.detail}`;
  }
}

/** One window's conversation, as the app and its transports use it. */
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
    echo?: { readonly tool?: string; readonly args?: unknown },
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
  /** Stops the turn: the model request is aborted; a command already running finishes on its own. */
  readonly stop: () => void;
  /** Stops any turn and forgets the conversation (its log keeps a `Reset`). */
  readonly reset: () => Promise<void>;
  /** The window's log events from `fromSeq` on, then each new one. */
  readonly events$: (fromSeq?: number) => Observable<LogEvent>;
  readonly panel: () => PanelState;
  readonly history: () => HistoryState;
  readonly usage: () => UsageState;
  /** The conversation machine's state, e.g. `"idle"` or `{ turn: "requesting" }`. */
  readonly state: () => unknown;
  /** The machine's bookkeeping that the log must agree with. */
  readonly context: () => { readonly turn: number; readonly tokensUsed: number };
  /** Whether the window was given up after repeated crashes (open it again to start afresh). */
  readonly failed: () => boolean;
  /** The seq of the last stored event. */
  readonly lastSeq: () => number;
  /** Waits until every event so far is stored. */
  readonly settled: () => Promise<void>;
  /** Stops the actor; a memory store forgets the log, a durable one keeps it. */
  readonly close: () => Promise<void>;
}
