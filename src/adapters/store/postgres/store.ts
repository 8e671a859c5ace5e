/**
 * The event store several processes share: every stream in one PostgreSQL
 * table, through pg. An append holds the stream's advisory lock for its
 * transaction, so the check of `expectedSeq` and the insert are one step for
 * every process on the database (decision (ah)).
 */
import { AppendConflict, type EventStore } from "../../../runtime/log/eventStore.ts";
import type { LogEvent, NewEvent } from "../../../runtime/log/events.ts";
import { LeaseLost, type Writer, type WriterLeases } from "../../../runtime/log/writerLeases.ts";
import { fromRow, toRows } from "../eventCodec.ts";
import { type AppendOutcome, appendStatement, outcomeOf } from "./append.ts";
import { changeFeed, channelOf, type ListenConnection, payloadOf } from "./changes.ts";
import { postgresConnections, type Query } from "./connections.ts";
import { postgresErase } from "./erase.ts";
import { codeOf, fromServer, PostgresConfigError, PostgresWriterRequired } from "./errors.ts";
import { holdsSql, postgresLeases } from "./leases.ts";
import { type PostgresStore, type PostgresStoreOptions, settingsOf } from "./options.ts";
import type { PostgresPool } from "./pool.ts";
import { migrate, storeNames } from "./schema.ts";
import { storable, unstorable } from "./text.ts";
import { postgresThreads } from "./threads.ts";

export {
  PostgresConfigError,
  PostgresUnavailable,
  PostgresWriterRequired,
} from "./errors.ts";
export type { PostgresStore, PostgresStoreOptions } from "./options.ts";
export type { PostgresPool, PostgresPoolClient } from "./pool.ts";

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
 * `erase` deletes a stream's rows and inserts its tombstone under the same
 * lock, and tells the change feed as an append does. `threads` is the
 * thread index, in `<table>_threads` and `<table>_texts` beside the events
 * (search by PostgreSQL's `tsvector`, under a GIN index).
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
  const settings = settingsOf(pool, options);
  const { schema, table, leaseMs, heartbeatMs } = settings;
  let closed = false;
  const pooled = postgresConnections(pool, settings, () => closed);
  const { withConnection, transaction } = pooled;
  const connections = pooled.pool;

  const names = storeNames(schema, table);
  const name = names.events;
  /** The first key of every stream lock: the table, so that two tables' streams never wait on each other. */
  const lockSpace = names.lockSpace;
  const LOCK_STREAM = "SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))";
  const LAST_SEQ = `SELECT coalesce(max(seq), 0)::text AS seq FROM ${name} WHERE stream = $1`;
  /** The last seq, and whether the writer ($2 holder, $3 token) holds the lease: one round trip. */
  const LAST_SEQ_HELD = `SELECT coalesce(max(seq), 0)::text AS seq, ${holdsSql(names.leases)} AS held
    FROM ${name} WHERE stream = $1`;
  const channel = channelOf(schema, table);
  /** The last seq, and who holds the stream's lease now if its holder is alive: for an append with no writer. */
  const LAST_SEQ_FREE = `SELECT coalesce(max(seq), 0)::text AS seq,
    (SELECT l.holder FROM ${names.leases} l JOIN ${names.hosts} h ON h.holder = l.holder
     WHERE l.stream = $1 AND h.expires_at > clock_timestamp()) AS holder
    FROM ${name} WHERE stream = $1`;
  const SELECT = `SELECT data::text AS data FROM ${name}
    WHERE stream = $1 AND seq > $2 AND seq <= $3 ORDER BY seq`;
  // The last seq with the events after $2, at one snapshot: one row with no data when none is.
  const TO_END = `WITH last AS (SELECT coalesce(max(seq), 0)::text AS seq FROM ${name} WHERE stream = $1)
    SELECT last.seq AS last, e.data::text AS data FROM last
    LEFT JOIN ${name} e ON e.stream = $1 AND e.seq > $2 ORDER BY e.seq`;
  const DELETE = `DELETE FROM ${name} WHERE stream = $1`;

  /** Whether this store's leases are in use (joined or taken): then every append names its writer. */
  let leased = false;

  /** The migration's: DDL of stores starting together waits its turn, however long it takes. */
  const BEGIN_MIGRATION = pooled.begin({ locks: false });

  const migrateOnce = () => transaction((query) => migrate(query, names), BEGIN_MIGRATION);

  let migrated: Promise<void> | undefined;
  /** Migrates once; a failed try is forgotten, so that the next call tries again. */
  const ready = (): Promise<void> => {
    migrated ??= migrateOnce().catch((error: unknown) => {
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

  const lent = postgresLeases({
    ...names,
    channel,
    leaseMs,
    heartbeatMs,
    oneTrip: async (stream, statement) => {
      await ready();
      return pooled.oneTrip({ space: lockSpace, stream }, statement);
    },
    transaction: async (body) => {
      await ready();
      return transaction(body);
    },
    query: async (text, values) => {
      await ready();
      return withConnection((query) => query(text, values));
    },
    notices: (listener) => feed.subscribe(listener),
  });
  const leases: WriterLeases = {
    ...lent,
    join: (holder, onMessage) => {
      leased = true;
      return lent.join(holder, onMessage);
    },
    acquire: (stream, holder) => {
      leased = true;
      return lent.acquire(stream, holder);
    },
  };

  /**
   * Refuses with `LeaseLost` (fenced: a host whose lease was taken over writes
   * nothing more), `PostgresWriterRequired` (no writer, while a live host, in
   * any process, holds the stream's lease: it would write past that host's
   * fencing) or `AppendConflict` (the stream is not at `expectedSeq`).
   */
  const refuse = (
    stream: string,
    expectedSeq: number,
    writer: Writer | undefined,
    found: Pick<AppendOutcome, "seq" | "held" | "holder">,
  ): never => {
    if (writer !== undefined && !found.held) throw new LeaseLost({ stream, holder: writer.holder });
    if (writer === undefined && (found.holder !== null || !found.held))
      throw new PostgresWriterRequired({ stream, holder: found.holder });
    throw new AppendConflict({ stream, expectedSeq, actualSeq: found.seq });
  };

  /** In one statement, the stream's seq and whether `writer` holds its lease: refused unless both are as expected. */
  const checkAt = async (
    query: Query,
    stream: string,
    expectedSeq: number,
    writer: Writer | undefined,
  ): Promise<void> => {
    const [row] = (
      writer === undefined
        ? await query(LAST_SEQ_FREE, [stream])
        : await query(LAST_SEQ_HELD, [stream, writer.holder, writer.token])
    ) as ReadonlyArray<{ seq: string; held?: boolean; holder?: string | null }>;
    const holder = row?.holder ?? null;
    const found = {
      seq: Number(row?.seq),
      held: writer === undefined || row?.held === true,
      holder,
    };
    if (found.held && holder === null && found.seq === expectedSeq) return;
    refuse(stream, expectedSeq, writer, found);
  };

  const threads = postgresThreads({
    ...names,
    ready,
    withConnection,
    transaction,
    begin: pooled.begin({ locks: true }),
    unavailable: pooled.unavailable,
  });
  const erase = postgresErase({ ...names, lockSpace, channel, ready, transaction });

  const conflict = async (stream: string, expectedSeq: number) =>
    new AppendConflict({ stream, expectedSeq, actualSeq: await lastSeq(stream) });

  return {
    durable: true,
    ready,
    threads,
    erase,
    append: async (stream, events: ReadonlyArray<NewEvent>, expectedSeq, writer) => {
      // No stream is at such a seq; checked first, so that it is not taken for a bad event.
      // A store whose leases are in use writes every stream as its lease's writer (decision (aj)).
      if (writer === undefined && leased)
        throw new PostgresWriterRequired({ stream, holder: null });
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
        await withConnection((query) => checkAt(query, stream, expectedSeq, writer));
        return [];
      }
      let outcome: AppendOutcome;
      try {
        // Held to the end of the transaction: every other append to this stream, in any
        // process, waits for the lock, and then sees what this one committed.
        outcome = outcomeOf(
          await pooled.oneTrip(
            { space: lockSpace, stream },
            appendStatement(names, channel, {
              stream,
              expectedSeq,
              writer,
              data: `[${rows.map((row) => row.data).join(",")}]`,
              payload: payloadOf(stream, expectedSeq + rows.length),
            }),
          ),
        );
      } catch (error) {
        // The key is the last guard, should the table ever be written past the lock.
        if (fromServer(error) && codeOf(error) === "23505")
          throw await conflict(stream, expectedSeq);
        throw error;
      }
      if (outcome.added !== rows.length) refuse(stream, expectedSeq, writer, outcome);
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
    readToEnd: async (stream, fromSeq) => {
      await ready();
      const rows = (await withConnection((query) =>
        query(TO_END, [stream, bound(Number.isNaN(fromSeq) ? 0 : fromSeq)]),
      )) as ReadonlyArray<{ last: string; data: string | null }>;
      const events: LogEvent[] = [];
      for (const row of rows) {
        if (row.data === null) continue;
        const event = fromRow(JSON.parse(row.data));
        if (event !== undefined) events.push(event);
      }
      return { events, lastSeq: Number(rows[0]?.last ?? 0) };
    },
    changes: (listener) =>
      feed.subscribe((notice) => {
        if (notice._tag !== "Message") listener(notice);
      }),
    leases,
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
      await pooled.close();
    },
  };
};
