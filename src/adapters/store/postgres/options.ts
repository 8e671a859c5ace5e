/**
 * What a `postgresStore` is given and what it is: its options, checked once
 * (a value it cannot use throws `PostgresConfigError`), and its interface.
 */
import type { EventStore, StoreChange } from "../../../runtime/log/eventStore.ts";
import type { WriterLeases } from "../../../runtime/log/writerLeases.ts";
import type { ThreadIndex } from "../../../runtime/threads/threadIndex.ts";
import { PostgresConfigError } from "./errors.ts";
import { HEARTBEAT_MS, LEASE_MS } from "./leases.ts";
import type { PostgresPool } from "./pool.ts";
import { MAX_TABLE } from "./schema.ts";
import { identifier } from "./text.ts";

/** Where a {@link postgresStore} keeps its table, and how it connects. */
export interface PostgresStoreOptions {
  /** The schema of the table (default `"public"`), made if it is not there. Letters, digits and `_`. */
  readonly schema?: string;
  /** The table (default `"elyra_events"`), made if it is not there. Letters, digits and `_`. */
  readonly table?: string;
  /**
   * How long a store given a connection string waits for a connection before
   * it gives up, in ms (default 10 000). A pool you give keeps its own
   * `connectionTimeoutMillis`.
   */
  readonly connectTimeoutMs?: number;
  /**
   * How long a host's heartbeat may be missed before another host may take
   * over the windows it writes, in ms (default 5 000; decision (aj)).
   */
  readonly leaseMs?: number;
  /** How often a host on the store beats its heart, in ms (default 1 000, under `leaseMs`). */
  readonly heartbeatMs?: number;
  /**
   * How long a transaction of the store may sit idle between its statements
   * before the server ends its connection (PostgreSQL's
   * `idle_in_transaction_session_timeout`, set in each of its transactions),
   * in ms (default `leaseMs`; 0 leaves the server's setting). A host paused
   * or cut off inside an append holds its window's lock only this long.
   */
  readonly idleInTransactionMs?: number;
  /**
   * How long a statement of the store's transactions waits for a lock before
   * it fails with `PostgresUnavailable` (code `55P03`), in ms (PostgreSQL's
   * `lock_timeout`; default twice `leaseMs`; 0 leaves the server's
   * setting). Longer than `idleInTransactionMs`, so that a wait behind a
   * stalled host of the store ends when the server ends that host's
   * transaction; what it bounds is a holder that is not the store's.
   */
  readonly lockTimeoutMs?: number;
  /**
   * How long one statement of the store's transactions may run, lock waits
   * included, before it fails with `PostgresUnavailable` (code `57014`), in
   * ms (PostgreSQL's `statement_timeout`; default three times `leaseMs`; 0
   * leaves the server's setting). Reads, which take no lock an append waits
   * for and may be long, are not bounded.
   */
  readonly statementTimeoutMs?: number;
  /**
   * TCP keepalive of the connections of a pool the store makes (from a
   * connection string): the first probe after this many ms of silence
   * (default `leaseMs`; 0 turns keepalive off). A pool you give keeps its own
   * `keepAlive`.
   */
  readonly keepAliveMs?: number;
}

/** A durable {@link EventStore} in PostgreSQL, shared by every process that opens it. */
export interface PostgresStore extends EventStore {
  /**
   * Connects and makes the schema and table if they are not there (once per
   * store; every other method does it on first use too). Await it at start
   * to find a database that is not there before the first window does.
   */
  readonly ready: () => Promise<void>;
  /**
   * Ends the change feed's connection, and the pool if the store made it
   * (from a connection string); a pool you gave stays open.
   */
  readonly close: () => Promise<void>;
  /**
   * Every append that commits, by any process on the table, told by
   * LISTEN/NOTIFY (decision (ai)). While anyone listens, the store holds one
   * connection of its pool for LISTEN (so a pool you give needs one more than
   * its appends use); it tells `Resync` each time it starts listening, and
   * again after that connection drops and is made again.
   */
  readonly changes: (listener: (change: StoreChange) => void) => () => void;
  /**
   * One writer per window among the hosts on the database (decision (aj)):
   * rows of `<table>_leases` with a fencing token every append is checked
   * against, a heartbeat per host in `<table>_hosts`, and messages between
   * hosts in `<table>_messages`, announced on the change feed's channel.
   */
  readonly leases: WriterLeases;
  /**
   * Erases a stream for good (`EventStore.erase`): in one transaction holding
   * the stream's advisory lock, its rows are deleted and the `Erased`
   * tombstone inserted, and the change feed told. The deleted rows' bytes
   * stay in the table's files until a `VACUUM FULL` rewrites them (a plain
   * VACUUM frees their space, and leaves what nothing was written over), and
   * in the WAL until its segments are recycled.
   */
  readonly erase: (stream: string, at: number) => Promise<void>;
  /** Each user's threads, in `<table>_threads` and `<table>_texts` beside the events. */
  readonly threads: ThreadIndex;
}

/** The options as the store uses them. */
/** How long connecting may take unless `connectTimeoutMs` is given: 10 s. */
export const CONNECT_TIMEOUT_MS = 10_000;
/** The largest bound PostgreSQL takes for its timeouts (an int of ms). */
export const MAX_BOUND_MS = 2_147_483_647;

export interface PostgresSettings {
  readonly schema: string;
  readonly table: string;
  readonly connectTimeoutMs: number;
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  /** The bounds of every wait (0: the server's setting), each derived from `leaseMs` unless given. */
  readonly idleInTransactionMs: number;
  readonly lockTimeoutMs: number;
  readonly statementTimeoutMs: number;
  readonly keepAliveMs: number;
  /** Whether the store makes (and ends) its pool: it was given a connection string. */
  readonly owned: boolean;
}

/** Checks a store's pool and options; throws {@link PostgresConfigError} for one it cannot use. */
export const settingsOf = (
  pool: PostgresPool | string,
  options: PostgresStoreOptions,
): PostgresSettings => {
  const schema = identifier("schema", options.schema, "public");
  const table = identifier("table", options.table, "elyra_events", MAX_TABLE);
  const connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  if (
    typeof connectTimeoutMs !== "number" ||
    !Number.isFinite(connectTimeoutMs) ||
    connectTimeoutMs <= 0
  )
    throw new PostgresConfigError({
      reason: `connectTimeoutMs must be a number of ms above 0, not ${String(connectTimeoutMs)}`,
    });
  const leaseMs = options.leaseMs ?? LEASE_MS;
  const heartbeatMs = options.heartbeatMs ?? Math.min(HEARTBEAT_MS, Math.floor(leaseMs / 3));
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 30)
    throw new PostgresConfigError({
      reason: `leaseMs must be a whole number of ms, at least 30, not ${String(leaseMs)}`,
    });
  if (!Number.isSafeInteger(heartbeatMs) || heartbeatMs < 10 || heartbeatMs >= leaseMs)
    throw new PostgresConfigError({
      reason: `heartbeatMs must be a whole number of ms, at least 10 and under leaseMs (${leaseMs}), not ${String(heartbeatMs)}`,
    });
  /** A bound in ms: a whole number, 0 (the server's setting) or more. */
  const bound = (name: string, value: number | undefined, fallback: number): number => {
    const ms = value ?? fallback;
    if (!Number.isSafeInteger(ms) || ms < 0 || ms > MAX_BOUND_MS)
      throw new PostgresConfigError({
        reason: `${name} must be a whole number of ms from 0 (the server's setting) to ${MAX_BOUND_MS}, not ${String(ms)}`,
      });
    return ms;
  };
  const idleInTransactionMs = bound("idleInTransactionMs", options.idleInTransactionMs, leaseMs);
  const lockTimeoutMs = bound(
    "lockTimeoutMs",
    options.lockTimeoutMs,
    Math.min(2 * leaseMs, MAX_BOUND_MS),
  );
  const statementTimeoutMs = bound(
    "statementTimeoutMs",
    options.statementTimeoutMs,
    Math.min(3 * leaseMs, MAX_BOUND_MS),
  );
  const keepAliveMs = bound("keepAliveMs", options.keepAliveMs, Math.min(leaseMs, MAX_BOUND_MS));
  const owned = typeof pool === "string";
  if (owned && pool.trim() === "")
    throw new PostgresConfigError({ reason: "the connection string is empty" });
  if (
    !owned &&
    (typeof pool !== "object" ||
      pool === null ||
      typeof pool.connect !== "function" ||
      typeof pool.end !== "function")
  )
    throw new PostgresConfigError({
      reason: "give a pg Pool or a connection string (postgres://user@host:5432/database)",
    });

  return {
    schema,
    table,
    connectTimeoutMs,
    leaseMs,
    heartbeatMs,
    idleInTransactionMs,
    lockTimeoutMs,
    statementTimeoutMs,
    keepAliveMs,
    owned,
  };
};
