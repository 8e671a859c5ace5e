/**
 * What a `postgresStore` is given and what it is: its options, checked once
 * (a value it cannot use throws `PostgresConfigError`), and its interface.
 */
import type { EventStore, StoreChange } from "../../runtime/log/eventStore.ts";
import type { WriterLeases } from "../../runtime/log/writerLeases.ts";
import { PostgresConfigError } from "./postgresErrors.ts";
import { HEARTBEAT_MS, LEASE_MS } from "./postgresLeases.ts";
import type { PostgresPool } from "./postgresPool.ts";
import { MAX_TABLE } from "./postgresSchema.ts";
import { identifier } from "./postgresText.ts";

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
}

/** The options as the store uses them. */
/** How long connecting may take unless `connectTimeoutMs` is given: 10 s. */
export const CONNECT_TIMEOUT_MS = 10_000;

export interface PostgresSettings {
  readonly schema: string;
  readonly table: string;
  readonly connectTimeoutMs: number;
  readonly leaseMs: number;
  readonly heartbeatMs: number;
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

  return { schema, table, connectTimeoutMs, leaseMs, heartbeatMs, owned };
};
