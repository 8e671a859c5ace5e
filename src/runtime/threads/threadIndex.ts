/**
 * The thread index port: each user's threads as their list shows them, and
 * the text of their turns as their search finds it. A projection of the
 * logs, kept by the store beside them (SQLite FTS5, PostgreSQL `tsvector`,
 * a scan in memory): written by the host that writes a thread, rebuilt from
 * the log when the thread opens, and erased with it.
 */
import { Data } from "effect";

/** One turn's text, as the thread's search reads it (turn 0: the thread's name). */
export interface TurnText {
  readonly turn: number;
  readonly text: string;
}

/** A thread as its owner's list shows it. */
export interface ThreadEntry {
  /** The thread's id: the key its log is kept under. */
  readonly id: string;
  /** Whose it is: the host's `userKey` of its owner. */
  readonly owner: string;
  readonly title: string;
  readonly createdAt: number;
  readonly lastAt: number;
  /** The start of its last answer (or prompt), on one line. */
  readonly preview: string;
  readonly turns: number;
  readonly archived: boolean;
  /** The seq of its log's event this entry was made at: an entry of a lower seq never replaces it. */
  readonly seq: number;
}

/** A thread a search found, with the words around the first match in the turn that matched. */
export interface ThreadHit extends ThreadEntry {
  readonly snippet: string;
}

/** One page of a user's threads, most recently used first; `next` asks for the page after it. */
export interface ThreadPage {
  readonly threads: ReadonlyArray<ThreadEntry>;
  /** Where the next page starts (pass it as `after`); absent on the last page. */
  readonly next?: string;
}

/** Which of a user's threads to list. */
export interface ThreadListQuery {
  /** Archived threads (true) or the others (false, the default). */
  readonly archived?: boolean | undefined;
  /** A page's `next`: the threads listed after it. */
  readonly after?: string | undefined;
  /** At most this many (default {@link LIST_LIMIT}, at most {@link MAX_LIST_LIMIT}). */
  readonly limit?: number | undefined;
}

/** What to search a user's threads for. */
export interface ThreadSearchQuery {
  /**
   * Words (their letters and digits; everything else is a space, so a query
   * is literal text, never syntax), each found as a word's start, all in one
   * turn. At most {@link MAX_QUERY_CHARS} characters and {@link MAX_TERMS}
   * words are read.
   */
  readonly text: string;
  /** At most this many threads (default {@link SEARCH_LIMIT}, at most {@link MAX_SEARCH_LIMIT}). */
  readonly limit?: number | undefined;
}

/** A page of a list holds 20 threads unless asked otherwise. */
export const LIST_LIMIT = 20;
/**
 * A page of a list holds at most 100 threads.
 *
 * @example
 * ```ts
 * const page = await index.list(owner, { limit: Math.min(asked, MAX_LIST_LIMIT) });
 * ```
 */
export const MAX_LIST_LIMIT = 100;
/** A search finds 20 threads unless asked otherwise. */
export const SEARCH_LIMIT = 20;
/**
 * A search finds at most 50 threads.
 *
 * @example
 * ```ts
 * const found = await index.search(owner, { text, limit: MAX_SEARCH_LIMIT });
 * ```
 */
export const MAX_SEARCH_LIMIT = 50;
/**
 * How much of a search's text is read, in characters.
 *
 * @example
 * ```ts
 * input.maxLength = MAX_QUERY_CHARS; // the search box takes no more than is read
 * ```
 */
export const MAX_QUERY_CHARS = 256;
/** How many of a search's words are read. */
export const MAX_TERMS = 8;
/** How much of one word is read, in characters. */
export const MAX_TERM_CHARS = 64;

/**
 * Where the app's code asked a thread index for something it cannot give:
 * a page's `after` that no page gave.
 *
 * @example
 * ```ts
 * try {
 *   await index.list(owner, { after: "not-a-page" });
 * } catch (error) {
 *   if (error instanceof ThreadQueryInvalid) console.log(error.message);
 * }
 * ```
 */
export class ThreadQueryInvalid extends Data.TaggedError("ThreadQueryInvalid")<{
  readonly message: string;
}> {}

/**
 * Where each user's threads are listed and searched. `put` writes a thread's
 * entry (and, when given, one turn's text), unless the index holds one of a
 * higher `seq`, or another owner's under that id; `get`, `list` and `search`
 * give only `owner`'s; `remove` takes a thread's entry and every text of it
 * away (for good: its bytes too, where the store can say so).
 */
export interface ThreadIndex {
  readonly put: (entry: ThreadEntry, text?: TurnText) => Promise<void>;
  readonly get: (owner: string, id: string) => Promise<ThreadEntry | undefined>;
  readonly list: (owner: string, query?: ThreadListQuery) => Promise<ThreadPage>;
  readonly search: (owner: string, query: ThreadSearchQuery) => Promise<ReadonlyArray<ThreadHit>>;
  readonly remove: (owner: string, id: string) => Promise<void>;
}
