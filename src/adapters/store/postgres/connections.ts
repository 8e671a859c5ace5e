/**
 * The connections of `postgresStore`: the pool it is given or makes, an
 * 'error' listener on every connection the pool lends, a connection's fault
 * made {@link PostgresUnavailable}, and the store's transactions with the
 * bounds of their waits (docs/scaling.md §5).
 */

import {
  codeOf,
  connectionFailed,
  PostgresUnavailable,
  reasonOf,
  type ServerConfig,
  serverOf,
  timedOut,
} from "./errors.ts";
import type { PostgresSettings } from "./options.ts";
import { pg } from "./pg.ts";
import type { PostgresPool } from "./pool.ts";
import { literal } from "./text.ts";

/**
 * A query; a connection that failed becomes {@link PostgresUnavailable}, a
 * query's own error is kept. A text of several statements (no values) gives
 * the rows of its last statement that returns rows.
 */
export type Query = (text: string, values?: unknown[]) => Promise<ReadonlyArray<unknown>>;

/** What the store does with its pool. */
export interface Connections {
  readonly pool: PostgresPool;
  readonly unavailable: (reason: string, code?: string | null) => PostgresUnavailable;
  /** Runs `body` on a connection of the pool, given back after (ended, if it broke). */
  readonly withConnection: <A>(body: (query: Query) => Promise<A>) => Promise<A>;
  /**
   * `body` in a READ COMMITTED transaction (each statement sees what
   * committed before it), opened by `begin` (BEGIN with the bounds).
   */
  readonly transaction: <A>(body: (query: Query) => Promise<A>, begin?: string) => Promise<A>;
  /**
   * `statement` in a transaction that holds the stream's advisory lock
   * (`lockSpace`, `stream`), all in one round trip: BEGIN with the bounds,
   * the lock, the statement and COMMIT sent as one query (no parameters:
   * every value in `statement` is a {@link literal}). Each statement sees
   * what committed before it, the lock's waits included. Its rows.
   */
  readonly oneTrip: (
    lock: { readonly space: string; readonly stream: string },
    statement: string,
  ) => Promise<ReadonlyArray<unknown>>;
  /** BEGIN and the bounds of every wait; without the lock bounds, the migration's. */
  readonly begin: (bounds: { readonly locks: boolean }) => string;
  /** Stops lending; ends the pool if the store made it. */
  readonly close: () => Promise<void>;
}

/** The rows of a result, or of the last statement of several that returns rows. */
const rowsOf = (result: unknown): ReadonlyArray<unknown> => {
  if (!Array.isArray(result)) return (result as { rows?: ReadonlyArray<unknown> }).rows ?? [];
  const returning = (result as Array<{ rows?: ReadonlyArray<unknown>; fields?: unknown[] }>)
    .filter((r) => (r.fields?.length ?? 0) > 0)
    .at(-1);
  return returning?.rows ?? [];
};

/** The connections of a store on `pool` (a pool, or a connection string it makes one of). */
export const postgresConnections = (
  pool: PostgresPool | string,
  settings: PostgresSettings,
  isClosed: () => boolean,
): Connections => {
  let connections: PostgresPool;
  if (typeof pool === "string") {
    const made = new pg.Pool({
      connectionString: pool,
      connectionTimeoutMillis: settings.connectTimeoutMs,
      fallback_application_name: "elyra-assistant",
      // A connection whose server went silent (a failover without a reset, a cut cable) is
      // probed after this long rather than waited on for ever.
      ...(settings.keepAliveMs > 0
        ? { keepAlive: true, keepAliveInitialDelayMillis: settings.keepAliveMs }
        : { keepAlive: false }),
    });
    // A connection that breaks while idle is dropped by the pool and reported here; the next
    // query reports it to its caller. Without a listener the process would crash.
    made.on("error", () => {});
    connections = made;
  } else {
    connections = pool;
  }
  // Every connection the pool lends gets an 'error' listener of its own as it is lent, in the
  // same tick: a backend killed (pg_terminate_backend, a failover, a pooler's restart) between
  // the pool's lending and the borrower's listening, or after its connection was ended, would
  // otherwise be an uncaught 'error' and crash the process. The next query says what broke.
  const guarded = new WeakSet<object>();
  const guard = (client: unknown) => {
    const heard = client as { on?: (event: "error", listener: () => void) => unknown } | null;
    if (heard === null || typeof heard !== "object" || guarded.has(heard)) return;
    if (typeof heard.on !== "function") return;
    guarded.add(heard);
    heard.on("error", () => {});
  };
  const lending = connections as {
    on?: (event: "acquire", listener: (client: unknown) => void) => unknown;
    off?: (event: "acquire", listener: (client: unknown) => void) => unknown;
  };
  if (typeof lending.on === "function") lending.on("acquire", guard);
  const { server, secret } = serverOf(
    typeof pool === "string"
      ? { connectionString: pool }
      : ((pool as { options?: ServerConfig }).options ?? {}),
  );
  const unavailable = (reason: string, code: string | null = null) =>
    new PostgresUnavailable({
      server,
      reason: secret.length >= 3 ? reason.split(secret).join("***") : reason,
      code,
    });
  const unavailableFrom = (error: unknown) => unavailable(reasonOf(error), codeOf(error));

  /**
   * Every transaction's first round trip: BEGIN and the bounds of its waits,
   * transaction-local (`SET LOCAL`), so that they hold on a pool the store was
   * given and behind a transaction-pooling PgBouncer, and cost no round trip.
   * A host that stalls inside a transaction holds its locks at most
   * `idleInTransactionMs`: the server then ends its connection.
   */
  const begin = (bounds: { readonly locks: boolean }) =>
    [
      "BEGIN ISOLATION LEVEL READ COMMITTED",
      `SET LOCAL idle_in_transaction_session_timeout = ${settings.idleInTransactionMs}`,
      ...(bounds.locks
        ? [
            `SET LOCAL lock_timeout = ${settings.lockTimeoutMs}`,
            `SET LOCAL statement_timeout = ${settings.statementTimeoutMs}`,
          ]
        : []),
    ].join("; ");
  const BEGIN = begin({ locks: true });

  const withConnection = async <A>(body: (query: Query) => Promise<A>): Promise<A> => {
    if (isClosed()) throw unavailable("the store is closed");
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
    guard(connection);
    const query: Query = async (text, values) => {
      try {
        return rowsOf(await connection.query(text, values));
      } catch (error) {
        const bound = timedOut(error, settings);
        // A wait the store bounds: the connection is fine, and the caller may try again.
        if (bound !== undefined) throw unavailable(bound, codeOf(error));
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

  const transaction = <A>(body: (query: Query) => Promise<A>, opening = BEGIN): Promise<A> =>
    withConnection(async (query) => {
      await query(opening);
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

  const oneTrip: Connections["oneTrip"] = (lock, statement) =>
    withConnection(async (query) => {
      const lockIt = `SELECT pg_advisory_xact_lock(hashtext(${literal(lock.space)}), hashtext(${literal(lock.stream)}))`;
      try {
        return await query(`${BEGIN}; ${lockIt}; ${statement}; COMMIT`);
      } catch (error) {
        // The statements after a failed one were skipped: the transaction is open, and aborted.
        // A failed ROLLBACK has marked the connection broken: the pool ends it.
        await query("ROLLBACK").catch(() => {});
        throw error;
      }
    });

  return {
    pool: connections,
    oneTrip,
    unavailable,
    withConnection,
    transaction,
    begin,
    close: async () => {
      lending.off?.("acquire", guard);
      // pg's end waits for the connections in use to be given back.
      if (settings.owned) await connections.end();
    },
  };
};
