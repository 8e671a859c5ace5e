/**
 * The tables of `postgresStore`'s thread index, as DDL: each thread's entry,
 * each turn's text with its words and their generated `tsvector`.
 */

/**
 * The DDL of the thread tables, run in the store's migration. Ids compare
 * byte by byte (`COLLATE "C"`), whatever the database's collation, so that
 * a list's order and its pages are the same on every server; a turn's text
 * goes with its thread (`ON DELETE CASCADE`).
 */
export const threadTablesDdl = (n: {
  /** The two tables, quoted: `"schema"."table_threads"`, `"schema"."table_texts"`. */
  readonly threads: string;
  readonly texts: string;
  readonly schema: string;
  /** The table's name and a suffix, unquoted: `elyra_events_by_use`. */
  readonly bare: (suffix: string) => string;
}): string[] => [
  `CREATE TABLE IF NOT EXISTS ${n.threads} (
    id text COLLATE "C" PRIMARY KEY,
    owner text NOT NULL,
    title text NOT NULL,
    created_at double precision NOT NULL,
    last_at double precision NOT NULL,
    preview text NOT NULL,
    turns integer NOT NULL,
    archived boolean NOT NULL,
    seq bigint NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS "${n.bare("_by_use")}"
    ON ${n.threads} (owner, archived, last_at DESC, id DESC)`,
  `CREATE TABLE IF NOT EXISTS ${n.texts} (
    id text COLLATE "C" NOT NULL REFERENCES ${n.threads} (id) ON DELETE CASCADE,
    turn integer NOT NULL,
    text text NOT NULL,
    words text NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', words)) STORED,
    PRIMARY KEY (id, turn)
  )`,
  `CREATE INDEX IF NOT EXISTS "${n.bare("_by_word")}" ON ${n.texts} USING gin (tsv)`,
];
