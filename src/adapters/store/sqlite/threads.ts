/**
 * The thread index of `sqliteStore`, in the store's own file: each thread's
 * entry in `threads`, each turn's text in `thread_texts`, and the words of
 * each text in the FTS5 table `thread_words`, which a search matches.
 */
import { createHash } from "node:crypto";
import type Database from "better-sqlite3";
import type { TurnText } from "../../../runtime/threads/summary.ts";
import type {
  ThreadEntry,
  ThreadHit,
  ThreadIndex,
  ThreadListQuery,
  ThreadPage,
  ThreadSearchQuery,
} from "../../../runtime/threads/threadIndex.ts";
import {
  listLimit,
  pageOf,
  pageStart,
  searchLimit,
  searchTerms,
  snippetOf,
  wordsOf,
} from "../../../runtime/threads/words.ts";

/**
 * The index's tables, made when missing, so a file an older version wrote
 * gains them. `thread_words` holds the normalized words of each turn's text
 * (`wordsOf(text).join(" ")`), split by FTS5's `ascii` tokenizer: only
 * spaces separate them, as words hold only letters and digits, so FTS5's
 * terms are exactly the words `searchTerms` compares. Its `secure-delete`
 * option makes a delete take a text's words out of the index itself (not
 * only mark them deleted), so that with `PRAGMA secure_delete` their bytes go.
 * `thread_texts.word_row` is the rowid of the text's words in `thread_words`.
 */
export const THREADS_SCHEMA = `CREATE TABLE IF NOT EXISTS threads (
  id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  title TEXT NOT NULL,
  created_at REAL NOT NULL,
  last_at REAL NOT NULL,
  preview TEXT NOT NULL,
  turns INTEGER NOT NULL,
  archived INTEGER NOT NULL,
  seq INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS threads_by_use ON threads (owner, archived, last_at DESC, id DESC);
CREATE TABLE IF NOT EXISTS thread_texts (
  id TEXT NOT NULL,
  turn INTEGER NOT NULL,
  text TEXT NOT NULL,
  word_row INTEGER NOT NULL,
  PRIMARY KEY (id, turn)
);
CREATE VIRTUAL TABLE IF NOT EXISTS thread_words USING fts5(
  words, id UNINDEXED, turn UNINDEXED, tokenize = 'ascii', detail = 'none'
);
INSERT INTO thread_words (thread_words, rank) SELECT 'secure-delete', 1
  WHERE NOT EXISTS (SELECT 1 FROM thread_words_config WHERE k = 'secure-delete' AND v = 1);`;

/** A row of `threads`, as SQLite gives it. */
interface EntryRow {
  readonly id: string;
  readonly owner: string;
  readonly title: string;
  readonly createdAt: number;
  readonly lastAt: number;
  readonly preview: string;
  readonly turns: number;
  readonly archived: number;
  readonly seq: number;
}

const ENTRY_COLUMNS = `t.id, t.owner, t.title, t.created_at AS createdAt, t.last_at AS lastAt,
  t.preview, t.turns, t.archived, t.seq`;

const entryOf = (row: EntryRow): ThreadEntry => ({
  id: row.id,
  owner: row.owner,
  title: row.title,
  createdAt: row.createdAt,
  lastAt: row.lastAt,
  preview: row.preview,
  turns: row.turns,
  archived: row.archived !== 0,
  seq: row.seq,
});

/**
 * How many of a user's most recent matching turns a search reads: its time
 * is bounded by them, whatever the user's history (and a thread whose last
 * match is older than them is not found).
 */
export const MAX_SCANNED_TURNS = 5_000;

/**
 * The word each text's words begin with that names its owner: letters and
 * digits (a hash of the owner's key), so a search matches the owner's texts
 * alone, and no word a person writes is one (the owner is checked again
 * through `threads`).
 */
const ownerWord = (owner: string): string =>
  `o${createHash("sha256").update(owner).digest("hex").slice(0, 32)}`;

/** An FTS5 query that finds, among `owner`'s texts, every term as a word's start: `"term"*` each. */
const matchOf = (owner: string, terms: ReadonlyArray<string>): string =>
  [`"${ownerWord(owner)}"`, ...terms.map((term) => `"${term.replaceAll('"', '""')}"*`)].join(" ");

/**
 * A {@link ThreadIndex} over the tables of {@link THREADS_SCHEMA} in `db`
 * (which must have made them), its statements prepared once. Each `put` and
 * `remove` is one transaction; `removed` is called after a `remove` that took
 * something away, once it has committed (the store empties its WAL then).
 *
 * @example
 * ```ts
 * const index = sqliteThreads(db, () => db.pragma("wal_checkpoint(TRUNCATE)"));
 * await index.put(entry, { turn: 1, text: "Ada's credit limit" });
 * ```
 */
export const sqliteThreads = (db: Database.Database, removed: () => void): ThreadIndex => {
  const held = db.prepare<[string], { readonly owner: string; readonly seq: number }>(
    "SELECT owner, seq FROM threads WHERE id = ?",
  );
  const upsert = db.prepare<
    [string, string, string, number, number, string, number, number, number]
  >(
    `INSERT INTO threads (id, owner, title, created_at, last_at, preview, turns, archived, seq)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET title = excluded.title, created_at = excluded.created_at,
       last_at = excluded.last_at, preview = excluded.preview, turns = excluded.turns,
       archived = excluded.archived, seq = excluded.seq`,
  );
  const wordRowOf = db
    .prepare<[string, number], number>(
      "SELECT word_row FROM thread_texts WHERE id = ? AND turn = ?",
    )
    .pluck();
  const insertWords = db.prepare<[string, string, number]>(
    "INSERT INTO thread_words (words, id, turn) VALUES (?, ?, ?)",
  );
  const updateWords = db.prepare<[string, number]>(
    "UPDATE thread_words SET words = ? WHERE rowid = ?",
  );
  const insertText = db.prepare<[string, number, string, number | bigint]>(
    "INSERT INTO thread_texts (id, turn, text, word_row) VALUES (?, ?, ?, ?)",
  );
  const updateText = db.prepare<[string, string, number]>(
    "UPDATE thread_texts SET text = ? WHERE id = ? AND turn = ?",
  );
  const getEntry = db.prepare<[string, string], EntryRow>(
    `SELECT ${ENTRY_COLUMNS} FROM threads t WHERE t.id = ? AND t.owner = ?`,
  );
  const firstPage = db.prepare<[string, number, number], EntryRow>(
    `SELECT ${ENTRY_COLUMNS} FROM threads t WHERE t.owner = ? AND t.archived = ?
     ORDER BY t.last_at DESC, t.id DESC LIMIT ?`,
  );
  const pageAfterEnd = db.prepare<[string, number, number, number, string, number], EntryRow>(
    `SELECT ${ENTRY_COLUMNS} FROM threads t WHERE t.owner = ? AND t.archived = ?
       AND (t.last_at < ? OR (t.last_at = ? AND t.id < ?))
     ORDER BY t.last_at DESC, t.id DESC LIMIT ?`,
  );
  // Each thread's latest turn whose words match, then the owner's threads among them, in use order.
  const found = db.prepare<[string, string, number], EntryRow & { readonly text: string }>(
    `WITH recent AS (
       SELECT id, turn FROM thread_words WHERE thread_words MATCH ? ORDER BY rowid DESC LIMIT ${MAX_SCANNED_TURNS}
     ), hits AS (
       SELECT id, max(turn) AS turn FROM recent GROUP BY id
     )
     SELECT ${ENTRY_COLUMNS}, x.text FROM hits h
       JOIN threads t ON t.id = h.id
       JOIN thread_texts x ON x.id = h.id AND x.turn = h.turn
     WHERE t.owner = ?
     ORDER BY t.last_at DESC, t.id DESC LIMIT ?`,
  );
  const deleteWords = db.prepare<[string]>(
    "DELETE FROM thread_words WHERE rowid IN (SELECT word_row FROM thread_texts WHERE id = ?)",
  );
  const deleteTexts = db.prepare<[string]>("DELETE FROM thread_texts WHERE id = ?");
  const deleteEntry = db.prepare<[string, string]>(
    "DELETE FROM threads WHERE id = ? AND owner = ?",
  );

  const write = db.transaction((entry: ThreadEntry, text: TurnText | undefined) => {
    const kept = held.get(entry.id);
    if (kept !== undefined && (kept.owner !== entry.owner || entry.seq < kept.seq)) return;
    upsert.run(
      entry.id,
      entry.owner,
      entry.title,
      entry.createdAt,
      entry.lastAt,
      entry.preview,
      entry.turns,
      entry.archived ? 1 : 0,
      entry.seq,
    );
    if (text === undefined) return;
    const words = [ownerWord(entry.owner), ...wordsOf(text.text)].join(" ");
    const row = wordRowOf.get(entry.id, text.turn);
    if (row === undefined) {
      const wordRow = insertWords.run(words, entry.id, text.turn).lastInsertRowid;
      insertText.run(entry.id, text.turn, text.text, wordRow);
    } else {
      updateWords.run(words, row);
      updateText.run(text.text, entry.id, text.turn);
    }
  });

  // Whether the thread was `owner`'s, and so taken away.
  const take = db.transaction((owner: string, id: string): boolean => {
    if (held.get(id)?.owner !== owner) return false;
    deleteWords.run(id);
    deleteTexts.run(id);
    deleteEntry.run(id, owner);
    return true;
  });

  return {
    put: async (entry, text) => {
      write.immediate(entry, text);
    },
    get: async (owner, id) => {
      const row = getEntry.get(id, owner);
      return row === undefined ? undefined : entryOf(row);
    },
    list: async (owner, query: ThreadListQuery = {}): Promise<ThreadPage> => {
      const end = query.after === undefined ? undefined : pageStart(query.after);
      const limit = listLimit(query.limit);
      const archived = query.archived === true ? 1 : 0;
      // One more than the page: whether a next page is there.
      const rows =
        end === undefined
          ? firstPage.all(owner, archived, limit + 1)
          : pageAfterEnd.all(owner, archived, end.lastAt, end.lastAt, end.id, limit + 1);
      return pageOf(rows.map(entryOf), limit);
    },
    search: async (owner, query: ThreadSearchQuery): Promise<ReadonlyArray<ThreadHit>> => {
      const terms = searchTerms(query.text);
      if (terms.length === 0) return [];
      return found
        .all(matchOf(owner, terms), owner, searchLimit(query.limit))
        .map((row) => ({ ...entryOf(row), snippet: snippetOf(row.text, terms) }));
    },
    remove: async (owner, id) => {
      if (take.immediate(owner, id)) removed();
    },
  };
};
