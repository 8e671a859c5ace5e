/**
 * What a thread's list shows of it, as a fold of its log: its title (the
 * owner's, or its first prompt's), when it began and was last used, a
 * preview of its last answer, its turns, whether it is archived or erased;
 * and the text of each turn, as its search finds it.
 */
import { clip } from "../clip.ts";
import { withoutInvisibles } from "../invisibles.ts";
import type { LogEvent, UnstampedEvent } from "../log/events.ts";
import { type Projection, projectionOf } from "../log/projection.ts";
import { MAX_TITLE_CHARS } from "../log/threadEvents.ts";
import type { ThreadEntry, TurnText } from "./threadIndex.ts";

/** A title taken from the first prompt is at most this many characters. */
export const TITLE_FROM_PROMPT_CHARS = 80;

/** A preview is at most this many characters of the last answer (or prompt). */
export const PREVIEW_CHARS = 160;

/** What a turn's search text keeps: its prompt then its answer, at most this many characters. */
export const TURN_TEXT_CHARS = 8_000;

export type { TurnText } from "./threadIndex.ts";

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
}

const whitespace = /\s+/g;
/** Whitespace that is not one plain space: where a text is not on one line already. */
const notOneLine = /[^\S ]| {2}/;

/**
 * Text on one line, its runs of whitespace one space each: the same string
 * when it is so already (a window's summary then shares its prompt's text
 * with the log, rather than holding a copy).
 */
const oneLine = (text: string) =>
  notOneLine.test(text) ? text.replace(whitespace, " ").trim() : text.trim();

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
        return;
      }
      case "Answered":
      case "Stopped": {
        const answer = event._tag === "Answered" ? event.text : event.partial;
        if (answer.trim() !== "") draft.preview = clip(oneLine(answer), PREVIEW_CHARS);
        return;
      }
      case "ThreadRenamed":
        // An empty name gives the thread its first prompt's title back.
        draft.renamed = event.title === "" ? null : event.title;
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

/** A turn's search text once its answer (or what was said before Stop) is known. */
export const answeredText = (prompt: string, answer: string): string =>
  clip(answer === "" ? prompt : `${prompt}\n\n${answer}`, TURN_TEXT_CHARS);

/**
 * The search text of every turn of a log, in order (its title too, as turn
 * 0, once renamed): what a thread index holds of it, made again from the log.
 *
 * @example
 * ```ts
 * for (const text of turnTextsOf(events)) await index.put(entry, text);
 * ```
 */
export const turnTextsOf = (
  events: Iterable<LogEvent>,
  /** The prompts of the pages before, by turn: a turn's answer may be on the page after its prompt. */
  prompts: Map<number, string> = new Map(),
): TurnText[] => {
  const texts = new Map<number, TurnText>();
  for (const event of events) {
    if (event._tag === "TurnStarted") prompts.set(event.turn, event.text);
    const text = turnTextOf(event, (turn) => prompts.get(turn));
    if (text !== undefined) texts.set(text.turn, text);
  }
  return [...texts.values()];
};

/** The events whose storing changes a thread's entry in its owner's list. */
const ENTRY_EVENTS: ReadonlySet<string> = new Set([
  "TurnStarted",
  "Answered",
  "Stopped",
  "Failed",
  "ThreadRenamed",
  "ThreadArchived",
]);

/**
 * Whether storing `event` changes its thread's entry: a turn begun or
 * ended, a name, an archive.
 *
 * @example
 * ```ts
 * if (changesEntry(event)) await index.put(entryOf(owner, id, summary));
 * ```
 */
export const changesEntry = (event: { readonly _tag: string }): boolean =>
  ENTRY_EVENTS.has(event._tag);

/**
 * The search text one event gives its thread: a prompt (`TurnStarted`), the
 * prompt then the answer (`Answered`, `Stopped`, when `promptOf` knows the
 * turn's prompt), the thread's name (`ThreadRenamed`, as turn 0); none for
 * any other event.
 *
 * @example
 * ```ts
 * turnTextOf(answered, () => "Who is overdue?"); // { turn: 3, text: "Who is overdue?\n\nThree are." }
 * ```
 */
export const turnTextOf = (
  event: UnstampedEvent,
  promptOf: (turn: number) => string | undefined,
): TurnText | undefined => {
  switch (event._tag) {
    case "TurnStarted":
      return { turn: event.turn, text: clip(event.text, TURN_TEXT_CHARS) };
    case "Answered":
    case "Stopped": {
      const prompt = promptOf(event.turn);
      if (prompt === undefined) return undefined;
      const answer = event._tag === "Answered" ? event.text : event.partial;
      return { turn: event.turn, text: answeredText(prompt, answer) };
    }
    case "ThreadRenamed":
      return { turn: 0, text: event.title };
    default:
      return undefined;
  }
};

/**
 * A thread's entry in its owner's list, from its summary (one with at least
 * one event: `createdAt` set).
 *
 * @example
 * ```ts
 * await index.put(entryOf("id:7", "t-1", threadSummary.fold(events)));
 * ```
 */
export const entryOf = (owner: string, id: string, summary: ThreadSummary): ThreadEntry => ({
  id,
  owner,
  title: titleOf(summary),
  createdAt: summary.createdAt ?? summary.lastAt,
  lastAt: summary.lastAt,
  preview: summary.preview,
  turns: summary.turns,
  archived: summary.archived,
  seq: summary.seq,
});

/** What the owner changes of a thread: its name (empty: its first prompt's again), or whether it is archived. */
export type ThreadChange = { readonly title: string } | { readonly archived: boolean };

/**
 * The event a change is logged as: a title on one line, without invisible
 * characters, at most `MAX_TITLE_CHARS`.
 *
 * @example
 * ```ts
 * threadChanged({ title: "  Ada's\ncredit " }); // { _tag: "ThreadRenamed", turn: 0, title: "Ada's credit" }
 * ```
 */
export const threadChanged = (
  change: ThreadChange,
): Extract<UnstampedEvent, { readonly _tag: "ThreadRenamed" | "ThreadArchived" }> =>
  "title" in change
    ? {
        _tag: "ThreadRenamed",
        turn: 0,
        title: clip(oneLine(withoutInvisibles(change.title)), MAX_TITLE_CHARS),
      }
    : { _tag: "ThreadArchived", turn: 0, archived: change.archived };
