/**
 * The thread index of `postgresStore`, in two tables beside its events:
 * `<table>_threads`, one row a thread as its owner's list shows it, and
 * `<table>_texts`, one row a turn's text, with its words (as `wordsOf`
 * reads them, joined by spaces) and a `tsvector` PostgreSQL makes of them
 * under a GIN index. A search's words are made a `tsquery` here, each a
 * prefix (`word:*`), all of them in one turn, and sent as a parameter: no
 * character of a query is syntax to the server.
 */
import type { TurnText } from "../../../runtime/threads/summary.ts";
import {
  MAX_TERM_CHARS,
  type ThreadEntry,
  type ThreadHit,
  type ThreadIndex,
  type ThreadListQuery,
  type ThreadPage,
  type ThreadSearchQuery,
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
import type { Connections } from "./connections.ts";
import { PostgresUnavailable } from "./errors.ts";
import { storable } from "./text.ts";

/** How long one search may run before the server cancels it, in ms: 2 s. */
export const SEARCH_TIMEOUT_MS = 2_000;

/** What the index is lent by its store. */
export interface ThreadTables {
  readonly threads: string;
  readonly texts: string;
  /** Makes the store's tables, once. */
  readonly ready: () => Promise<void>;
  readonly withConnection: Connections["withConnection"];
  readonly transaction: Connections["transaction"];
  /** BEGIN with the bounds of every wait, the lock bounds included. */
  readonly begin: string;
  readonly unavailable: Connections["unavailable"];
}

/**
 * The words of a turn's text as its row keeps them: `wordsOf`, each cut to
 * {@link MAX_TERM_CHARS} (the longest a search's word is, so every search
 * finds what it found before: a word of a query is a prefix of a word iff it
 * is one of its cut), joined by spaces. Cut, none is past the 2 047 bytes
 * over which `to_tsvector` leaves a word out.
 */
export const wordsOfText = (text: string): string =>
  wordsOf(text)
    .map((word) => word.slice(0, MAX_TERM_CHARS))
    .join(" ");

/** A row's columns (of `t`), numbers as text: what the pool's type parsers make of them does not matter. */
const COLUMNS = `t.id, t.owner, t.title, t.created_at::text AS created_at,
  t.last_at::text AS last_at, t.preview, t.turns::text AS turns, t.archived, t.seq::text AS seq`;

interface EntryRow {
  readonly id: string;
  readonly owner: string;
  readonly title: string;
  readonly created_at: string;
  readonly last_at: string;
  readonly preview: string;
  readonly turns: string;
  readonly archived: boolean;
  readonly seq: string;
}

const entryOf = (row: EntryRow): ThreadEntry => ({
  id: row.id,
  owner: row.owner,
  title: row.title,
  createdAt: Number(row.created_at),
  lastAt: Number(row.last_at),
  preview: row.preview,
  turns: Number(row.turns),
  archived: row.archived === true,
  seq: Number(row.seq),
});

/**
 * The `tsquery` of a search's terms: each a prefix, all of them. Terms are
 * letters and digits only (`searchTerms`), so none holds an operator.
 *
 * @example
 * ```ts
 * tsqueryOf(["cred", "lim"]); // "cred:* & lim:*"
 * ```
 */
export const tsqueryOf = (terms: ReadonlyArray<string>): string =>
  terms.map((term) => `${term}:*`).join(" & ");

/**
 * The {@link ThreadIndex} in the store's thread tables. `put` is one
 * statement: the entry is written unless the row under its id is another
 * owner's or of a higher seq (`ON CONFLICT … DO UPDATE … WHERE`), and the
 * turn's text only if the entry was. A NUL or half a surrogate pair, which
 * PostgreSQL's text refuses, is kept as U+FFFD. `remove` deletes the row, and
 * its texts with it; their bytes stay in the table's files until `VACUUM`
 * (plain VACUUM frees their space for reuse, `VACUUM FULL` rewrites the
 * files without them).
 */
export const postgresThreads = (t: ThreadTables): ThreadIndex => {
  const UPSERT = `INSERT INTO ${t.threads} AS t
      (id, owner, title, created_at, last_at, preview, turns, archived, seq)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
    ON CONFLICT (id) DO UPDATE SET title = EXCLUDED.title, created_at = EXCLUDED.created_at,
      last_at = EXCLUDED.last_at, preview = EXCLUDED.preview, turns = EXCLUDED.turns,
      archived = EXCLUDED.archived, seq = EXCLUDED.seq
    WHERE t.owner = EXCLUDED.owner AND t.seq <= EXCLUDED.seq
    RETURNING t.id`;
  const PUT_TEXT = `WITH kept AS (${UPSERT})
    INSERT INTO ${t.texts} (id, turn, text, words) SELECT id, $10::integer, $11::text, $12::text FROM kept
    ON CONFLICT (id, turn) DO UPDATE SET text = EXCLUDED.text, words = EXCLUDED.words`;
  const GET = `SELECT ${COLUMNS} FROM ${t.threads} t WHERE t.id = $1 AND t.owner = $2`;
  const LIST = `SELECT ${COLUMNS} FROM ${t.threads} t WHERE t.owner = $1 AND t.archived = $2
    ORDER BY t.last_at DESC, t.id DESC LIMIT $3`;
  const LIST_AFTER = `SELECT ${COLUMNS} FROM ${t.threads} t WHERE t.owner = $1 AND t.archived = $2
      AND (t.last_at, t.id) < ($4::double precision, $5::text COLLATE "C")
    ORDER BY t.last_at DESC, t.id DESC LIMIT $3`;
  // Each thread once, with its latest turn that matches; then the most recently used first.
  const SEARCH = `SELECT ${COLUMNS}, t.matched FROM (
      SELECT DISTINCT ON (e.id) e.*, x.text AS matched
      FROM ${t.texts} x JOIN ${t.threads} e ON e.id = x.id
      WHERE e.owner = $1 AND x.tsv @@ to_tsquery('simple', $2)
      ORDER BY e.id, x.turn DESC
    ) AS t ORDER BY t.last_at DESC, t.id DESC LIMIT $3`;
  const REMOVE = `DELETE FROM ${t.threads} WHERE id = $1 AND owner = $2`;
  const BEGIN_SEARCH = `${t.begin}; SET LOCAL statement_timeout = ${SEARCH_TIMEOUT_MS}`;

  const run = async (text: string, values: unknown[]): Promise<ReadonlyArray<unknown>> => {
    await t.ready();
    return t.withConnection((query) => query(text, values));
  };

  return {
    put: async (entry: ThreadEntry, text?: TurnText) => {
      const values: unknown[] = [
        entry.id,
        entry.owner,
        storable(entry.title),
        entry.createdAt,
        entry.lastAt,
        storable(entry.preview),
        entry.turns,
        entry.archived,
        entry.seq,
      ];
      if (text === undefined) {
        await run(UPSERT, values);
        return;
      }
      const kept = storable(text.text);
      await run(PUT_TEXT, [...values, text.turn, kept, wordsOfText(kept)]);
    },
    get: async (owner, id) => {
      const [row] = (await run(GET, [id, owner])) as ReadonlyArray<EntryRow>;
      return row === undefined ? undefined : entryOf(row);
    },
    list: async (owner, query: ThreadListQuery = {}): Promise<ThreadPage> => {
      const end = query.after === undefined ? undefined : pageStart(query.after);
      const limit = listLimit(query.limit);
      const archived = query.archived ?? false;
      // One more than the page: whether another page follows.
      const rows = (await (end === undefined
        ? run(LIST, [owner, archived, limit + 1])
        : run(LIST_AFTER, [owner, archived, limit + 1, end.lastAt, end.id]))) as EntryRow[];
      return pageOf(rows.map(entryOf), limit);
    },
    search: async (owner, query: ThreadSearchQuery): Promise<ReadonlyArray<ThreadHit>> => {
      const terms = searchTerms(query.text);
      if (terms.length === 0) return [];
      await t.ready();
      let rows: ReadonlyArray<EntryRow & { readonly matched: string }>;
      try {
        rows = (await t.transaction(
          (q) => q(SEARCH, [owner, tsqueryOf(terms), searchLimit(query.limit)]),
          BEGIN_SEARCH,
        )) as ReadonlyArray<EntryRow & { readonly matched: string }>;
      } catch (error) {
        if (error instanceof PostgresUnavailable && error.code === "57014")
          throw t.unavailable(`a search ran past ${SEARCH_TIMEOUT_MS} ms`, "57014");
        throw error;
      }
      return rows.map((row) => ({ ...entryOf(row), snippet: snippetOf(row.matched, terms) }));
    },
    remove: async (owner, id) => {
      await run(REMOVE, [id, owner]);
    },
  };
};
