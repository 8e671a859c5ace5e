/**
 * The durable event store: every stream in one SQLite table, written in WAL
 * mode through better-sqlite3, by one store at a time.
 */
import { AppendConflict, type EventStore } from "../../../runtime/log/eventStore.ts";
import type { LogEvent, NewEvent } from "../../../runtime/log/events.ts";
import type { ThreadIndex } from "../../../runtime/threads/threadIndex.ts";
import { fromRow, type StoredRow, toRows } from "../eventCodec.ts";
import { BetterSqlite3 } from "./betterSqlite3.ts";
import { openExclusive } from "./file.ts";
import { sqliteThreads, THREADS_SCHEMA } from "./threads.ts";

export { StoreInUse } from "../storeInUse.ts";

/** How a {@link sqliteStore} opens its database. */
export interface SqliteStoreOptions {
  /**
   * How long opening waits for a file another connection holds before it
   * throws `StoreInUse`, in ms (default 5 000): time for a process being
   * replaced to close it. Once open, the store holds the file, so no append waits.
   */
  readonly busyTimeoutMs?: number;
  /**
   * `NORMAL` (the default): a committed append survives a crash of the
   * process, though the last ones may be lost if the machine loses power.
   * `FULL`: every append is synced to disk before it resolves.
   */
  readonly synchronous?: "NORMAL" | "FULL";
}

/**
 * A durable {@link EventStore} with `erase` and its own thread index in the
 * same file; `close` releases the database file for the next store.
 */
export interface SqliteStore extends EventStore {
  readonly erase: (stream: string, at: number) => Promise<void>;
  readonly threads: ThreadIndex;
  readonly close: () => Promise<void>;
}

// `type` and `at` are there for looking into the table with SQL; a read trusts only `data`.
const SCHEMA = `CREATE TABLE IF NOT EXISTS events (
  stream TEXT NOT NULL,
  seq INTEGER NOT NULL,
  at REAL NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (stream, seq)
) WITHOUT ROWID;
${THREADS_SCHEMA}`;

/** How long a second store on a file waits for the lock before `StoreInUse`: 5 s. */
export const BUSY_TIMEOUT_MS = 5_000;

/**
 * An {@link EventStore} in the SQLite file at `path` (`":memory:"` for one
 * that lasts as long as the store). Events are checked against `LogEvent` and
 * stored as JSON; an append is one transaction.
 *
 * One store writes a file: the store holds SQLite's exclusive lock on it from
 * open to `close` (or until its process dies), and a second store on the file,
 * in this process or another, throws `StoreInUse` once `busyTimeoutMs` has
 * passed. So no other writer can append to a window's stream under a running
 * host, and nothing else reads the file while the store is open.
 *
 * Reading skips events of a type this code does not know (a newer version's);
 * `lastSeq` still counts them. An event of a known type that does not decode
 * is an error.
 *
 * `erase` and `threads.remove` take their bytes out of the file: the file is
 * written with `secure_delete` on (what is deleted is overwritten with zeros),
 * and the WAL is checkpointed and truncated after each, so neither the
 * database nor its WAL keeps what they deleted. `threads` is a
 * {@link ThreadIndex} in the same file (FTS5), tables made on open when missing.
 *
 * @example
 * ```ts
 * const store = sqliteStore("conversations.db");
 * const [first] = await store.append("w1", [{ _tag: "Reset", at: Date.now(), turn: 0 }], 0);
 * await store.read("w1"); // [first]
 * sqliteStore("conversations.db"); // throws StoreInUse
 * await store.close(); // now another store may open the file
 * ```
 */
export const sqliteStore = (path: string, options: SqliteStoreOptions = {}): SqliteStore => {
  const db = openExclusive(path, {
    busyTimeoutMs: options.busyTimeoutMs ?? BUSY_TIMEOUT_MS,
    synchronous: options.synchronous === "FULL" ? "FULL" : "NORMAL",
    schema: SCHEMA,
  });

  const lastSeqOf = db
    .prepare<[string], number>("SELECT coalesce(max(seq), 0) FROM events WHERE stream = ?")
    .pluck();
  const insert = db.prepare<[string, number, number, string, string]>(
    "INSERT INTO events (stream, seq, at, type, data) VALUES (?, ?, ?, ?, ?)",
  );
  // Only `data`, plucked: a row as an array or an object costs three times as much to fetch.
  const select = db
    .prepare<[string, number, number], string>(
      "SELECT data FROM events WHERE stream = ? AND seq > ? AND seq <= ? ORDER BY seq",
    )
    .pluck();
  const remove = db.prepare<[string]>("DELETE FROM events WHERE stream = ?");
  // The first two rows' types: a stream erased already has one, a tombstone.
  const firstTypes = db
    .prepare<[string], string>("SELECT type FROM events WHERE stream = ? ORDER BY seq LIMIT 2")
    .pluck();
  const checkpoint = db.prepare<[], { readonly busy: number }>("PRAGMA wal_checkpoint(TRUNCATE)");
  // What was deleted is in the WAL's frames until they are copied to the database and it is
  // emptied. Never busy: no other connection can have the file open.
  const emptyWal = () => {
    checkpoint.get();
  };

  const conflict = (stream: string, expectedSeq: number) =>
    new AppendConflict({ stream, expectedSeq, actualSeq: lastSeqOf.get(stream) ?? 0 });

  const write = db.transaction(
    (stream: string, rows: ReadonlyArray<StoredRow>, expectedSeq: number) => {
      if (lastSeqOf.get(stream) !== expectedSeq) throw conflict(stream, expectedSeq);
      for (const row of rows) insert.run(stream, row.seq, row.at, row.type, row.data);
    },
  );

  // Whether the stream had events to erase.
  const eraseRows = db.transaction((stream: string, at: number): boolean => {
    const types = firstTypes.all(stream);
    if (types.length === 0 || (types.length === 1 && types[0] === "Erased")) return false;
    const last = lastSeqOf.get(stream) ?? 0;
    const { rows } = toRows([{ _tag: "Erased", at, turn: 0 }], last);
    remove.run(stream);
    for (const row of rows) insert.run(stream, row.seq, row.at, row.type, row.data);
    return true;
  });

  return {
    durable: true,
    threads: sqliteThreads(db, emptyWal),
    append: async (stream, events: ReadonlyArray<NewEvent>, expectedSeq) => {
      // No stream is at such a seq; checked first, so that it is not taken for a bad event.
      if (!Number.isSafeInteger(expectedSeq) || expectedSeq < 0)
        throw conflict(stream, expectedSeq);
      // Encoded (and decoded back: a NaN is refused) before the transaction, so that a bad
      // event holds no lock.
      const { added, rows } = toRows(events, expectedSeq);
      try {
        write.immediate(stream, rows, expectedSeq);
      } catch (error) {
        // The key is the last guard, should the file ever be written past the lock.
        if (
          error instanceof BetterSqlite3.SqliteError &&
          error.code === "SQLITE_CONSTRAINT_PRIMARYKEY"
        ) {
          throw conflict(stream, expectedSeq);
        }
        throw error;
      }
      return added;
    },
    read: async (stream, fromSeq = 0, toSeq = Number.MAX_SAFE_INTEGER) => {
      const events: LogEvent[] = [];
      for (const data of select.all(stream, fromSeq, Math.min(toSeq, Number.MAX_SAFE_INTEGER))) {
        const event = fromRow(JSON.parse(data));
        if (event !== undefined) events.push(event);
      }
      return events;
    },
    lastSeq: async (stream) => lastSeqOf.get(stream) ?? 0,
    drop: async (stream) => {
      remove.run(stream);
    },
    erase: async (stream, at) => {
      if (eraseRows.immediate(stream, at)) emptyWal();
    },
    close: async () => {
      db.close();
    },
  };
};
