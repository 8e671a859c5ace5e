/**
 * The event store several processes share: every stream in one PostgreSQL
 * table, through pg. An append holds the stream's advisory lock for its
 * transaction, so the check of `expectedSeq` and the insert are one step for
 * every process on the database (decision (ah)).
 */
import { AppendConflict, type EventStore, type StoreChange } from "../../runtime/log/eventStore.ts";
import type { LogEvent, NewEvent } from "../../runtime/log/events.ts";
import { fromRow, toRows } from "./eventCodec.ts";
import { pg } from "./pg.ts";
import { changeFeed, channelOf, type ListenConnection, payloadOf } from "./postgresChanges.ts";
import {
  codeOf,
  connectionFailed,
  fromServer,
  PostgresConfigError,
  PostgresUnavailable,
  reasonOf,
  type ServerConfig,
  serverOf,
} from "./postgresErrors.ts";
import type { PostgresPool } from "./postgresPool.ts";
import { identifier, storable, unstorable } from "./postgresText.ts";

export { PostgresConfigError, PostgresUnavailable } from "./postgresErrors.ts";
export type { PostgresPool, PostgresPoolClient } from "./postgresPool.ts";

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
}

/** Names the migration lock among every advisory lock of the database (the one-bigint form). */
const MIGRATION_LOCK = "elyra-assistant/postgres migrate";
const COLUMNS = ["stream", "seq", "at", "type", "data"] as const;

/** `seq` from a row's text (bigint comes back as text, whatever parsers the pool set). */
const seqOf = (rows: ReadonlyArray<unknown>): number => Number((rows[0] as { seq: string }).seq);

/** A read bound as a whole seq for a bigint parameter: `seq > 2.5` is `seq > 2`, `seq <= 2.5` is `seq <= 2`. */
const bound = (seq: number): string =>
  String(Math.min(Math.max(Math.floor(seq), 0), Number.MAX_SAFE_INTEGER));

/**
 * An {@link EventStore} in PostgreSQL, for hosts in several processes (or on
 * several machines) that share one database. Give it a pg `Pool` (the store
 * leaves it open at `close`) or a connection string (the store makes its own
 * pool, and `close` ends it).
 *
 * Every stream lives in one table, `schema.table` (default
 * `public.elyra_events`): `(stream, seq)` the primary key, `at` and `type`
 * columns for looking with SQL, and the event in `data` as `jsonb`. The
 * schema and table are made on first use, in one transaction, under an
 * advisory lock, so that stores starting together do not race; a table that
 * is already there is used as it is (a role that may not create tables can
 * use one made for it).
 *
 * An append is one transaction that takes the stream's advisory lock, checks
 * the stream's last seq against `expectedSeq` and inserts, so that two
 * processes appending at the same seq cannot both pass the check: one wins,
 * the other gets `AppendConflict`. The primary key is the last guard. Events
 * are checked against `LogEvent` before anything is sent (a `NaN` is
 * refused; a NUL or half a surrogate pair, which jsonb refuses, is stored as
 * U+FFFD, and append gives back the events as stored).
 *
 * Reading skips events of a type this code does not know (a newer version's);
 * `lastSeq` still counts them. An event of a known type that does not decode
 * is an error. A connection that fails rejects with
 * {@link PostgresUnavailable}; options it cannot use throw
 * {@link PostgresConfigError}.
 *
 * @example
 * ```ts
 * import { createHost } from "elyra-assistant";
 * import { postgresStore } from "elyra-assistant/postgres";
 *
 * const store = postgresStore(process.env.DATABASE_URL ?? "postgres://127.0.0.1/crm", {
 *   schema: "assistant",
 * });
 * await store.ready(); // connects, and makes assistant.elyra_events if it is not there
 * const host = createHost(app, { model, store });
 * // on shutdown:
 * await host.close();
 * await store.close();
 * ```
 */
export const postgresStore = (
  pool: PostgresPool | string,
  options: PostgresStoreOptions = {},
): PostgresStore => {
  const schema = identifier("schema", options.schema, "public");
  const table = identifier("table", options.table, "elyra_events");
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  if (
    typeof connectTimeoutMs !== "number" ||
    !Number.isFinite(connectTimeoutMs) ||
    connectTimeoutMs <= 0
  )
    throw new PostgresConfigError({
      reason: `connectTimeoutMs must be a number of ms above 0, not ${String(connectTimeoutMs)}`,
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

  let connections: PostgresPool;
  if (owned) {
    const made = new pg.Pool({
      connectionString: pool,
      connectionTimeoutMillis: connectTimeoutMs,
      fallback_application_name: "elyra-assistant",
    });
    // A connection that breaks while idle is dropped by the pool and reported here; the next
    // query reports it to its caller. Without a listener the process would crash.
    made.on("error", () => {});
    connections = made;
  } else {
    connections = pool;
  }
  const { server, secret } = serverOf(
    owned ? { connectionString: pool } : ((pool as { options?: ServerConfig }).options ?? {}),
  );
  const unavailable = (reason: string, code: string | null = null) =>
    new PostgresUnavailable({
      server,
      reason: secret.length >= 3 ? reason.split(secret).join("***") : reason,
      code,
    });
  const unavailableFrom = (error: unknown) => unavailable(reasonOf(error), codeOf(error));

  const name = `"${schema}"."${table}"`;
  /** The first key of every stream lock: the table, so that two tables' streams never wait on each other. */
  const lockSpace = `${schema}.${table}`;
  const LOCK_STREAM = "SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))";
  const LAST_SEQ = `SELECT coalesce(max(seq), 0)::text AS seq FROM ${name} WHERE stream = $1`;
  const channel = channelOf(schema, table);
  // `seq`, `at` and `type` taken from the event itself, so that they cannot disagree with it.
  // The notification goes out at COMMIT, and only then; in the insert's statement, it costs no
  // round trip, and an insert that fails sends none.
  const INSERT = `WITH inserted AS (INSERT INTO ${name} (stream, seq, at, type, data)
    SELECT $1, (e->>'seq')::bigint, (e->>'at')::float8, e->>'_tag', e
    FROM jsonb_array_elements($2::jsonb) AS e)
    SELECT pg_notify('${channel}', $3)`;
  const SELECT = `SELECT data::text AS data FROM ${name}
    WHERE stream = $1 AND seq > $2 AND seq <= $3 ORDER BY seq`;
  const DELETE = `DELETE FROM ${name} WHERE stream = $1`;

  let closed = false;

  /** A query; a connection that failed becomes {@link PostgresUnavailable}, a query's own error is kept. */
  type Query = (text: string, values?: unknown[]) => Promise<ReadonlyArray<unknown>>;

  /** Runs `body` on a connection of the pool, given back after (ended, if it broke). */
  const withConnection = async <A>(body: (query: Query) => Promise<A>): Promise<A> => {
    if (closed) throw unavailable("the store is closed");
    const connection = await connections.connect().catch((error: unknown) => {
      throw unavailableFrom(error);
    });
    let broken = false;
    // A pg client lent out has no listener of the pool's: a connection that ends under it (the
    // server's shutdown, after the query's own error) would be an uncaught 'error'. Heard
    // here, it marks the connection broken, and the pool ends it when it is given back.
    const heard = connection as {
      on?: (event: "error", listener: () => void) => unknown;
      off?: (event: "error", listener: () => void) => unknown;
    };
    const onError = () => {
      broken = true;
    };
    heard.on?.("error", onError);
    const query: Query = async (text, values) => {
      try {
        return (await connection.query(text, values)).rows;
      } catch (error) {
        if (!connectionFailed(error)) throw error;
        broken = true;
        throw unavailableFrom(error);
      }
    };
    try {
      return await body(query);
    } finally {
      heard.off?.("error", onError);
      connection.release(broken);
    }
  };

  /** `body` in a READ COMMITTED transaction (each statement sees what committed before it). */
  const transaction = <A>(body: (query: Query) => Promise<A>): Promise<A> =>
    withConnection(async (query) => {
      await query("BEGIN ISOLATION LEVEL READ COMMITTED");
      let result: A;
      try {
        result = await body(query);
      } catch (error) {
        // A failed ROLLBACK has marked the connection broken: the pool ends it.
        await query("ROLLBACK").catch(() => {});
        throw error;
      }
      await query("COMMIT");
      return result;
    });

  const migrate = () =>
    transaction(async (query) => {
      await query("SELECT pg_advisory_xact_lock(hashtext($1)::bigint)", [MIGRATION_LOCK]);
      const columns = (
        await query(
          `SELECT a.attname::text AS name FROM pg_catalog.pg_attribute a
            JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped`,
          [schema, table],
        )
      ).map((row) => (row as { name: string }).name);
      if (columns.length > 0) {
        const missing = COLUMNS.filter((column) => !columns.includes(column));
        if (missing.length > 0)
          throw new PostgresConfigError({
            reason: `the table ${name} is there and is not an event log (it has no ${missing.join(", ")}): name another table`,
          });
        return;
      }
      // Only when missing: CREATE … IF NOT EXISTS still asks for the right to create.
      const schemas = await query("SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1", [
        schema,
      ]);
      if (schemas.length === 0) await query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      await query(`CREATE TABLE IF NOT EXISTS ${name} (
        stream text NOT NULL,
        seq bigint NOT NULL,
        at double precision NOT NULL,
        type text NOT NULL,
        data jsonb NOT NULL,
        PRIMARY KEY (stream, seq)
      )`);
      await query(
        `COMMENT ON TABLE ${name} IS 'elyra-assistant event log: one row an event; appends hold pg_advisory_xact_lock(hashtext(''${lockSpace}''), hashtext(stream))'`,
      );
    });

  let migrated: Promise<void> | undefined;
  /** Migrates once; a failed try is forgotten, so that the next call tries again. */
  const ready = (): Promise<void> => {
    migrated ??= migrate().catch((error: unknown) => {
      migrated = undefined;
      throw error;
    });
    return migrated;
  };

  const lastSeq = async (stream: string): Promise<number> => {
    await ready();
    return withConnection(async (query) => seqOf(await query(LAST_SEQ, [stream])));
  };

  const feed = changeFeed(channel, async () => {
    const connection = await connections.connect();
    if (typeof (connection as Partial<ListenConnection>).on !== "function") {
      connection.release();
      throw new PostgresConfigError({ reason: "the pool's connections cannot listen (no on)" });
    }
    return connection as unknown as ListenConnection;
  });

  const conflict = async (stream: string, expectedSeq: number) =>
    new AppendConflict({ stream, expectedSeq, actualSeq: await lastSeq(stream) });

  return {
    durable: true,
    ready,
    append: async (stream, events: ReadonlyArray<NewEvent>, expectedSeq) => {
      // No stream is at such a seq; checked first, so that it is not taken for a bad event.
      if (!Number.isSafeInteger(expectedSeq) || expectedSeq < 0)
        throw await conflict(stream, expectedSeq);
      // Encoded (and decoded back: a NaN is refused) before any connection is taken; what jsonb
      // cannot hold is written U+FFFD, and what is given back is what was stored.
      const { added, rows } = toRows(
        events.map((event) => (unstorable(event) ? storable(event) : event)),
        expectedSeq,
      );
      await ready();
      if (rows.length === 0) {
        const actualSeq = await lastSeq(stream);
        if (actualSeq !== expectedSeq) throw new AppendConflict({ stream, expectedSeq, actualSeq });
        return [];
      }
      try {
        await transaction(async (query) => {
          // Held to the end of the transaction: every other append to this stream, in any
          // process, waits here, and then sees what this one committed.
          await query(LOCK_STREAM, [lockSpace, stream]);
          const actualSeq = seqOf(await query(LAST_SEQ, [stream]));
          if (actualSeq !== expectedSeq)
            throw new AppendConflict({ stream, expectedSeq, actualSeq });
          await query(INSERT, [
            stream,
            `[${rows.map((row) => row.data).join(",")}]`,
            payloadOf(stream, expectedSeq + rows.length),
          ]);
        });
      } catch (error) {
        // The key is the last guard, should the table ever be written past the lock.
        if (fromServer(error) && codeOf(error) === "23505")
          throw await conflict(stream, expectedSeq);
        throw error;
      }
      return added;
    },
    read: async (stream, fromSeq = 0, toSeq = Number.MAX_SAFE_INTEGER) => {
      if (Number.isNaN(fromSeq) || Number.isNaN(toSeq)) return [];
      await ready();
      const rows = await withConnection((query) =>
        query(SELECT, [stream, bound(fromSeq), bound(toSeq)]),
      );
      const events: LogEvent[] = [];
      for (const row of rows) {
        const event = fromRow(JSON.parse((row as { data: string }).data));
        if (event !== undefined) events.push(event);
      }
      return events;
    },
    lastSeq,
    changes: (listener) => feed.subscribe(listener),
    drop: async (stream) => {
      await ready();
      // Under the stream's lock, so that an append in flight is not half dropped.
      await transaction(async (query) => {
        await query(LOCK_STREAM, [lockSpace, stream]);
        await query(DELETE, [stream]);
      });
    },
    close: async () => {
      if (closed) return;
      closed = true;
      feed.close();
      // pg's end waits for the connections in use to be given back.
      if (owned) await connections.end();
    },
  };
};
