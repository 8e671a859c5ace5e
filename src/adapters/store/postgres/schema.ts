/**
 * The tables of `postgresStore`, made on first use: the events, and beside
 * them the writer leases, the hosts' heartbeats, the messages between hosts
 * and the sequence of fencing tokens (decision (aj)), and the thread index
 * (its entries, and its turns' text with their words). Made in one
 * transaction, under an advisory lock, so that stores starting together do
 * not race; what is there is used as it is, and what is missing is made only
 * then (a role that may not create tables can use ones made for it).
 */

import { PostgresConfigError } from "./errors.ts";
import { leaseTablesDdl } from "./leases.ts";
import { threadTablesDdl } from "./threadTables.ts";

/** Names the migration lock among every advisory lock of the database (the one-bigint form). */
const MIGRATION_LOCK = "elyra-assistant/postgres migrate";
const COLUMNS = ["stream", "seq", "at", "type", "data"] as const;
/** The suffixes of the tables beside the events table. */
const BESIDE = ["_leases", "_hosts", "_messages", "_tokens", "_threads", "_texts"] as const;

type Query = (text: string, values?: unknown[]) => Promise<ReadonlyArray<unknown>>;

/** The store's names: its schema and table, and the tables beside it. */
export interface StoreNames {
  readonly schema: string;
  readonly table: string;
  /** `"schema"."table"` */
  readonly events: string;
  readonly leases: string;
  readonly hosts: string;
  readonly messages: string;
  readonly tokens: string;
  /** The thread index's entries, one row a thread. */
  readonly threads: string;
  /** The thread index's text, one row a turn, with its words for search. */
  readonly texts: string;
  /** The table's name and the suffix of each relation beside it, unquoted: `elyra_events_threads`. */
  readonly bare: (suffix: string) => string;
  /** The first key of every stream lock. */
  readonly lockSpace: string;
}

/** The names of a store on `schema.table`: the others are the table's name and a suffix. */
export const storeNames = (schema: string, table: string): StoreNames => {
  const named = (suffix: string) => `"${schema}"."${table}${suffix}"`;
  return {
    schema,
    table,
    events: named(""),
    leases: named("_leases"),
    hosts: named("_hosts"),
    messages: named("_messages"),
    tokens: named("_tokens"),
    threads: named("_threads"),
    texts: named("_texts"),
    bare: (suffix) => `${table}${suffix}`,
    lockSpace: `${schema}.${table}`,
  };
};

/**
 * The longest table name a store takes: the names of the relations beside it
 * (lease and thread tables, their indexes) add at most 9 characters.
 */
export const MAX_TABLE = 63 - "_messages".length;

/** Makes what is missing, in a transaction `query` runs in. */
export const migrate = async (query: Query, n: StoreNames): Promise<void> => {
  await query("SELECT pg_advisory_xact_lock(hashtext($1)::bigint)", [MIGRATION_LOCK]);
  const relations = new Set(
    (
      await query(
        `SELECT c.relname::text AS name FROM pg_catalog.pg_class c
          JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = $1 AND c.relname = ANY($2::text[])`,
        [n.schema, ["", ...BESIDE].map(n.bare)],
      )
    ).map((row) => (row as { name: string }).name),
  );
  const columns = (
    await query(
      `SELECT a.attname::text AS name FROM pg_catalog.pg_attribute a
        JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
        JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped`,
      [n.schema, n.table],
    )
  ).map((row) => (row as { name: string }).name);
  if (columns.length > 0) {
    const missing = COLUMNS.filter((column) => !columns.includes(column));
    if (missing.length > 0)
      throw new PostgresConfigError({
        reason: `the table ${n.events} is there and is not an event log (it has no ${missing.join(", ")}): name another table`,
      });
  }
  if (relations.size === BESIDE.length + 1) return;
  // Only when missing: CREATE … IF NOT EXISTS still asks for the right to create.
  const schemas = await query("SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1", [
    n.schema,
  ]);
  if (schemas.length === 0) await query(`CREATE SCHEMA IF NOT EXISTS "${n.schema}"`);
  if (columns.length === 0) {
    await query(`CREATE TABLE IF NOT EXISTS ${n.events} (
      stream text NOT NULL,
      seq bigint NOT NULL,
      at double precision NOT NULL,
      type text NOT NULL,
      data jsonb NOT NULL,
      PRIMARY KEY (stream, seq)
    )`);
    await query(
      `COMMENT ON TABLE ${n.events} IS 'elyra-assistant event log: one row an event; appends hold pg_advisory_xact_lock(hashtext(''${n.lockSpace}''), hashtext(stream))'`,
    );
  }
  for (const ddl of [...leaseTablesDdl(n), ...threadTablesDdl(n)]) await query(ddl);
};
