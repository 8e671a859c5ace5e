/**
 * What a thread's list shows of it, as a fold of its log: its title (the
 * owner's, or its first prompt's), when it began and was last used, a
 * preview of its last answer, its turns, whether it is archived or erased,
 * and the text of its last turn (what its search finds).
 */
import { clip } from "../clip.ts";
import { type Projection, projectionOf } from "../log/projection.ts";

/** A title taken from the first prompt is at most this many characters. */
export const TITLE_FROM_PROMPT_CHARS = 80;

/** A preview is at most this many characters of the last answer (or prompt). */
export const PREVIEW_CHARS = 160;

/** What a turn's search text keeps: its prompt then its answer, at most this many characters. */
export const TURN_TEXT_CHARS = 8_000;

/** One turn's text, as the thread's search reads it. */
export interface TurnText {
  readonly turn: number;
  readonly text: string;
}

/** The fold's state: what a thread's entry in its owner's list is made from. */
export interface ThreadSummary {
  /** What the owner named it; null while they have not. */
  readonly renamed: string | null;
  /** The thread's first prompt, clipped: its title until it is renamed. */
  readonly firstPrompt: string | null;
  /** When its first event was written; null while it has none. */
  readonly createdAt: number | null;
  /** When its last event was written. */
  readonly lastAt: number;
  readonly preview: string;
  /** Turns started. */
  readonly turns: number;
  readonly archived: boolean;
  /** Whether the log is an erased one's tombstone. */
  readonly erased: boolean;
  /** The seq of the last event folded: a later entry replaces an earlier one, never the reverse. */
  readonly seq: number;
  /** The last turn's text, as far as it went. */
  readonly last: TurnText | null;
}

const whitespace = /\s+/g;

/** Text on one line, its runs of whitespace one space each. */
const oneLine = (text: string) => text.replace(whitespace, " ").trim();

/**
 * The thread summary fold.
 *
 * @example
 * ```ts
 * const summary = threadSummary.fold(await store.read("conversation/t-1", 0));
 * console.log(titleOf(summary), summary.turns, "turns");
 * ```
 */
export const threadSummary: Projection<ThreadSummary> = projectionOf<ThreadSummary>(
  {
    renamed: null,
    firstPrompt: null,
    createdAt: null,
    lastAt: 0,
    preview: "",
    turns: 0,
    archived: false,
    erased: false,
    seq: 0,
    last: null,
  },
  (draft, event) => {
    draft.seq = event.seq;
    draft.createdAt ??= event.at;
    draft.lastAt = Math.max(draft.lastAt, event.at);
    switch (event._tag) {
      case "TurnStarted": {
        draft.turns += 1;
        draft.firstPrompt ??= clip(oneLine(event.text), TITLE_FROM_PROMPT_CHARS);
        draft.preview = clip(oneLine(event.text), PREVIEW_CHARS);
        draft.last = { turn: event.turn, text: clip(event.text, TURN_TEXT_CHARS) };
        return;
      }
      case "Answered":
      case "Stopped": {
        const answer = event._tag === "Answered" ? event.text : event.partial;
        if (answer.trim() !== "") draft.preview = clip(oneLine(answer), PREVIEW_CHARS);
        if (draft.last !== null && draft.last.turn === event.turn)
          draft.last.text = clip(`${draft.last.text}\n\n${answer}`, TURN_TEXT_CHARS);
        return;
      }
      case "ThreadRenamed":
        draft.renamed = event.title;
        return;
      case "ThreadArchived":
        draft.archived = event.archived;
        return;
      case "Erased":
        draft.erased = true;
        return;
      default:
        return;
    }
  },
);

/**
 * A thread's title: the owner's name for it, else its first prompt (clipped
 * to {@link TITLE_FROM_PROMPT_CHARS}), else empty (a client shows its own
 * word for an untitled thread).
 *
 * @example
 * ```ts
 * titleOf(threadSummary.fold(events)); // "Set Ada's credit limit to 50 000"
 * ```
 */
export const titleOf = (summary: ThreadSummary): string =>
  summary.renamed ?? summary.firstPrompt ?? "";
