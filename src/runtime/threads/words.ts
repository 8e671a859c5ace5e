/**
 * How thread text is read for search, the same in every store: words are
 * runs of letters and digits, lower case, without accents; a query's words
 * are found as the start of a text's words. So a query is literal: no
 * character of it is syntax to any store.
 */
import { clip } from "../clip.ts";
import {
  LIST_LIMIT,
  MAX_LIST_LIMIT,
  MAX_QUERY_CHARS,
  MAX_SEARCH_LIMIT,
  MAX_TERM_CHARS,
  MAX_TERMS,
  SEARCH_LIMIT,
  type ThreadEntry,
  type ThreadPage,
  ThreadQueryInvalid,
} from "./threadIndex.ts";

const WORD = /[\p{L}\p{N}]+/gu;
const MARKS = /\p{M}/gu;

/** One word as search compares it: decomposed, its marks dropped, lower case. */
export const normalWord = (word: string): string =>
  word.normalize("NFKD").replace(MARKS, "").toLowerCase();

/**
 * The words of `text` as search compares them, in order.
 *
 * @example
 * ```ts
 * wordsOf("Crédit-limit: 50 000!"); // ["credit", "limit", "50", "000"]
 * ```
 */
export const wordsOf = (text: string): string[] =>
  (text.match(WORD) ?? []).map(normalWord).filter((word) => word !== "");

/**
 * The words a search looks for: those of its first {@link MAX_QUERY_CHARS}
 * characters, each once, at most {@link MAX_TERMS}, each at most
 * {@link MAX_TERM_CHARS} characters. None for a query of no letter or digit.
 *
 * @example
 * ```ts
 * searchTerms('"ada" OR *; DROP'); // ["ada", "or", "drop"]
 * ```
 */
export const searchTerms = (query: string): string[] =>
  [
    ...new Set(
      wordsOf(query.slice(0, MAX_QUERY_CHARS)).map((term) => term.slice(0, MAX_TERM_CHARS)),
    ),
  ].slice(0, MAX_TERMS);

/** Whether every term starts some word of `words`. */
export const matchesAll = (words: ReadonlyArray<string>, terms: ReadonlyArray<string>): boolean =>
  terms.every((term) => words.some((word) => word.startsWith(term)));

/** How many characters of text a snippet shows before the match, and in all. */
const BEFORE = 40;
const SNIPPET_CHARS = 160;

/**
 * The words of `text` around the first word a term starts, on one line, at
 * most 160 characters, an ellipsis where it was cut; the start of the text
 * when none does.
 *
 * @example
 * ```ts
 * snippetOf("…long text… and her credit limit is 50 000", ["credit"]); // "…and her credit limit is 50 000"
 * ```
 */
export const snippetOf = (text: string, terms: ReadonlyArray<string>): string => {
  let at = 0;
  for (const match of text.matchAll(WORD)) {
    const word = normalWord(match[0]);
    if (terms.some((term) => word.startsWith(term))) {
      at = match.index;
      break;
    }
  }
  const start = Math.max(0, at - BEFORE);
  const line = text.slice(start).replace(/\s+/g, " ").trim();
  return `${start > 0 ? "…" : ""}${clip(line, SNIPPET_CHARS - (start > 0 ? 1 : 0))}`;
};

/** A limit as asked, within 1 and `max`; `fallback` when none (or not a number) is asked. */
const limitOf = (asked: number | undefined, fallback: number, max: number): number =>
  asked === undefined || !Number.isFinite(asked)
    ? fallback
    : Math.min(max, Math.max(1, Math.floor(asked)));

/** A list's page size, as asked and bounded. */
export const listLimit = (asked: number | undefined): number =>
  limitOf(asked, LIST_LIMIT, MAX_LIST_LIMIT);

/** A search's result count, as asked and bounded. */
export const searchLimit = (asked: number | undefined): number =>
  limitOf(asked, SEARCH_LIMIT, MAX_SEARCH_LIMIT);

/** Where a page ends: its last thread's last use and id. */
export interface PageEnd {
  readonly lastAt: number;
  readonly id: string;
}

/** A page's `next`, for the page after the thread `end`. */
export const pageAfter = (end: PageEnd): string =>
  btoa(encodeURIComponent(JSON.stringify([end.lastAt, end.id])));

/** Where the page `after` asks to start; throws {@link ThreadQueryInvalid} for one no page gave. */
export const pageStart = (after: string): PageEnd => {
  try {
    const parsed: unknown = JSON.parse(decodeURIComponent(atob(after)));
    if (
      Array.isArray(parsed) &&
      parsed.length === 2 &&
      typeof parsed[0] === "number" &&
      Number.isFinite(parsed[0]) &&
      typeof parsed[1] === "string"
    )
      return { lastAt: parsed[0], id: parsed[1] };
  } catch {
    // told below
  }
  throw new ThreadQueryInvalid({ message: "after: not a page's next (ask for the first page)" });
};

/** Whether a thread comes after `end` in a list: most recently used first, then by id, down. */
export const listedAfter = (thread: PageEnd, end: PageEnd): boolean =>
  thread.lastAt < end.lastAt || (thread.lastAt === end.lastAt && thread.id < end.id);

/** The order of a list: most recently used first, then by id, down. */
export const byRecentUse = (a: PageEnd, b: PageEnd): number =>
  b.lastAt - a.lastAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * A page of `limit` threads from those listed from its start (in list
 * order, at least one more than `limit` when another page follows): its
 * `next` is where the page after it starts.
 */
export const pageOf = (listed: ReadonlyArray<ThreadEntry>, limit: number): ThreadPage => {
  const threads = listed.slice(0, limit);
  const last = threads.at(-1);
  return listed.length > limit && last !== undefined
    ? { threads, next: pageAfter(last) }
    : { threads };
};
