/**
 * Projections: pure folds of a conversation's log, shared by the server and
 * the browser. Each has an `initial` state, an `apply(state, event)` for live
 * updates and a `fold(events)` that replays a whole log in one immer draft.
 */
import type { Draft } from "immer";
import { compactedHistory } from "../prompt/compaction.ts";
import type { Message } from "../prompt/model.ts";
import { isTurnEnd, tokensOf } from "./events.ts";
import { type Projection, projectionOf } from "./projection.ts";
import { inputOf } from "./stepUsage.ts";

export type { Projection } from "./projection.ts";

/**
 * What ends an answer the user stopped, in the history the model is sent.
 *
 * @example
 * ```ts
 * const stopped = (text: string) => text.endsWith(STOPPED_MARK);
 * ```
 */
export const STOPPED_MARK = "(stopped by the user)";

// ---------------------------------------------------------------- history

/** The conversation as the model is sent it between turns: text only, each user turn with its note. */
export interface HistoryState {
  readonly messages: ReadonlyArray<Message>;
  /** The turn in flight, not yet part of the history. */
  readonly open: { readonly turn: number; readonly user: string } | null;
  /** Text written in the open turn, by step. */
  readonly steps: Readonly<Record<number, string>>;
}

const userContent = (text: string, note: string | null): string =>
  note ? `${note}\n\n${text}` : text;

const close = (draft: Draft<HistoryState>, answer: string) => {
  if (draft.open === null) return;
  draft.messages.push(
    { role: "user", content: draft.open.user },
    { role: "assistant", content: answer },
  );
  draft.open = null;
  draft.steps = {};
};

/**
 * The history fold: the conversation as the model is sent it, user turns (with
 * their notes) and answers as text; a stopped or failed turn ends with a mark
 * saying so, `Compacted` puts its summary in place of the turns before the
 * ones it kept, and `Reset` empties it.
 *
 * @example
 * ```ts
 * const { messages } = history.fold(await store.read("conversation/w1", 0));
 * console.log(messages.length / 2, "turns");
 * ```
 */
export const history: Projection<HistoryState> = projectionOf<HistoryState>(
  { messages: [], open: null, steps: {} },
  (draft, event) => {
    switch (event._tag) {
      case "TurnStarted":
        draft.open = { turn: event.turn, user: userContent(event.text, event.note) };
        draft.steps = {};
        return;
      case "TextDelta":
        if (draft.open?.turn === event.turn)
          draft.steps[event.step] = (draft.steps[event.step] ?? "") + event.text;
        return;
      case "Answered":
        if (draft.open?.turn === event.turn)
          close(draft, event.text === "" ? "(no answer)" : event.text);
        return;
      case "Stopped":
        if (draft.open?.turn === event.turn)
          close(draft, event.partial === "" ? STOPPED_MARK : `${event.partial}\n\n${STOPPED_MARK}`);
        return;
      case "Failed":
        if (draft.open?.turn === event.turn) close(draft, `(the answer failed: ${event.error})`);
        return;
      case "Compacted":
        draft.messages = compactedHistory(
          draft.messages as ReadonlyArray<Message>,
          event.summary,
          event.kept,
        ) as Draft<Message>[];
        return;
      case "Reset":
        draft.messages = [];
        draft.open = null;
        draft.steps = {};
        return;
      default:
        return;
    }
  },
);

// ---------------------------------------------------------------- usage

/** Tokens used by the conversation since its last reset. */
export interface UsageState {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Input tokens read from the prompt cache. */
  readonly cacheReadTokens: number;
  /** Input tokens written to the prompt cache, of either TTL. */
  readonly cacheWriteTokens: number;
  /** What counts against the budget: every step's tokens at their cost ({@link tokensOf}). */
  readonly total: number;
  /** The input of the last step, cached or not: how much the model read last (0 after a reset). */
  readonly context: number;
}

/**
 * The usage fold: the tokens every `StepFinished` reports, added up since the
 * last `Reset`; `total` is what counts against the budget, cache reads and
 * writes at their cost.
 *
 * @example
 * ```ts
 * const { total } = usage.fold(await store.read("conversation/w1", 0));
 * if (total > 200_000) showNotice("This conversation is getting long: start a new one?");
 * ```
 */
export const usage: Projection<UsageState> = projectionOf<UsageState>(
  {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    total: 0,
    context: 0,
  },
  (draft, event) => {
    if (event._tag === "StepFinished") {
      draft.inputTokens += event.usage.inputTokens;
      draft.outputTokens += event.usage.outputTokens;
      draft.cacheReadTokens += event.usage.cacheReadTokens ?? 0;
      draft.cacheWriteTokens += event.usage.cacheWriteTokens ?? 0;
      draft.total += tokensOf(event.usage);
      draft.context = inputOf(event.usage);
    } else if (event._tag === "Reset") {
      draft.inputTokens = 0;
      draft.outputTokens = 0;
      draft.cacheReadTokens = 0;
      draft.cacheWriteTokens = 0;
      draft.total = 0;
      draft.context = 0;
    }
  },
);

// ---------------------------------------------------------------- conversation status

/** Where the conversation is: the last turn's number and whether it is still running. */
export interface StatusState {
  readonly turn: number;
  readonly running: boolean;
  readonly lastSeq: number;
}

/**
 * The status fold: the last turn's number, whether it still runs (no
 * `Answered`, `Stopped` or `Failed` yet) and the seq of the last event seen.
 *
 * @example
 * ```ts
 * let state = status.initial;
 * for (const e of received) state = status.apply(state, e);
 * stopButton.disabled = !state.running;
 * ```
 */
export const status: Projection<StatusState> = projectionOf<StatusState>(
  { turn: 0, running: false, lastSeq: 0 },
  (draft, event) => {
    draft.lastSeq = event.seq;
    if (event._tag === "TurnStarted") {
      draft.turn = event.turn;
      draft.running = true;
    } else if (isTurnEnd(event) && event.turn === draft.turn) {
      draft.running = false;
    }
  },
);

// ---------------------------------------------------------------- selections

/** What is selected, kind by kind, in the order each last changed (oldest first). */
export interface SelectionsState {
  readonly selections: ReadonlyArray<{
    readonly kind: string;
    readonly ids: ReadonlyArray<string | number>;
    readonly total?: number;
    readonly route: string | null;
  }>;
}

/**
 * Selections are kept with the route they were made on: a turn from another
 * route drops them, `Reset` drops them all, and `[]` clears a kind.
 *
 * @example
 * ```ts
 * const { selections: now } = selections.fold(await store.read("conversation/w1", 0));
 * const invoices = now.find((s) => s.kind === "invoice")?.ids ?? [];
 * ```
 */
export const selections: Projection<SelectionsState> = projectionOf<SelectionsState>(
  { selections: [] },
  (draft, event) => {
    switch (event._tag) {
      case "SelectionChanged": {
        const kept = draft.selections.filter((s) => s.kind !== event.kind);
        if (event.ids.length > 0)
          kept.push({
            kind: event.kind,
            ids: [...event.ids],
            ...(event.total === undefined ? {} : { total: event.total }),
            route: event.route,
          });
        draft.selections = kept;
        return;
      }
      case "TurnStarted":
        if (draft.selections.some((s) => s.route !== event.route))
          draft.selections = draft.selections.filter((s) => s.route === event.route);
        return;
      case "Reset":
        if (draft.selections.length > 0) draft.selections = [];
        return;
      default:
        return;
    }
  },
);
