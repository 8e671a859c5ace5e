/**
 * What postgresStore says when it cannot work: settings it cannot use, and a
 * server it cannot use, named as `host:port/database` and never with its
 * password; and how an error pg gives is told apart (the connection, or the query).
 */
import { Data } from "effect";

/**
 * Options `postgresStore` cannot use (thrown when it is called), or a table
 * that is there and is not an event log (a rejection of its first use).
 *
 * @example
 * ```ts
 * postgresStore(url, { table: "events; DROP TABLE users" });
 * // throws PostgresConfigError: postgresStore: the table must be a name of letters, digits and _ …
 * ```
 */
export class PostgresConfigError extends Data.TaggedError("PostgresConfigError")<{
  readonly reason: string;
}> {
  override get message(): string {
    return `postgresStore: ${this.reason}`;
  }
}

/**
 * PostgreSQL could not be used: the connection failed (refused, timed out,
 * a database or role that is not there, authentication) or broke, or the
 * store was closed. `server` names the server as host, port and database,
 * never the password; `reason` is pg's message, with the password blanked
 * should it hold it. The error pg gave is not kept, as it may hold the
 * connection string.
 *
 * @example
 * ```ts
 * await postgresStore("postgres://app:secret@127.0.0.1:5999/crm").lastSeq("w1");
 * // rejects with PostgresUnavailable: postgresStore cannot use PostgreSQL at
 * // 127.0.0.1:5999/crm: connect ECONNREFUSED 127.0.0.1:5999
 * ```
 */
export class PostgresUnavailable extends Data.TaggedError("PostgresUnavailable")<{
  readonly server: string;
  readonly reason: string;
  /** pg's code, when it gave one: `ECONNREFUSED`, a SQLSTATE such as `3D000`, … */
  readonly code: string | null;
}> {
  override get message(): string {
    return `postgresStore cannot use PostgreSQL at ${this.server}: ${this.reason}`;
  }
}

/**
 * An append without a writer to a stream of a store written under leases
 * (decision (aj)): the store's own leases are in use (a host joined or took a
 * lease through it), or another host holds the stream's lease now. Such an
 * append would skip the fencing check; take the stream's lease
 * (`store.leases.acquire`) and pass its writer. A store whose leases are never
 * used (one host, a script) appends without one as before.
 *
 * @example
 * ```ts
 * await store.leases.acquire("conversation/w1", "host-a");
 * await store.append("conversation/w1", events, seq);
 * // rejects with PostgresWriterRequired: postgresStore: an append to
 * // "conversation/w1" names no writer, and this store's streams are written under leases …
 * ```
 */
export class PostgresWriterRequired extends Data.TaggedError("PostgresWriterRequired")<{
  readonly stream: string;
  /** The host that holds the stream's lease now, when that is why. */
  readonly holder: string | null;
}> {
  override get message(): string {
    const why =
      this.holder === null
        ? "this store's streams are written under leases"
        : `${JSON.stringify(this.holder)} holds its lease`;
    return `postgresStore: an append to ${JSON.stringify(this.stream)} names no writer, and ${why}: take the stream's lease and append as its writer (decision (aj))`;
  }
}

export interface ServerConfig {
  readonly connectionString?: unknown;
  readonly host?: unknown;
  readonly port?: unknown;
  readonly database?: unknown;
  readonly user?: unknown;
  readonly password?: unknown;
}

/** The server as `host:port/database` (never the password), and the password to blank out of messages. */
export const serverOf = (
  config: ServerConfig,
): { readonly server: string; readonly secret: string } => {
  const env = process.env;
  const text = (value: unknown) =>
    typeof value === "string" && value !== ""
      ? value
      : typeof value === "number"
        ? String(value)
        : undefined;
  let host = text(config.host);
  let port = text(config.port);
  let database = text(config.database);
  let user = text(config.user);
  let secret = text(config.password) ?? "";
  const connectionString = text(config.connectionString);
  if (connectionString !== undefined) {
    try {
      const url = new URL(connectionString);
      host = text(decodeURIComponent(url.hostname)) ?? text(url.searchParams.get("host")) ?? host;
      port = text(url.port) ?? port;
      database = text(decodeURIComponent(url.pathname.slice(1))) ?? database;
      user = text(decodeURIComponent(url.username)) ?? user;
      secret = decodeURIComponent(url.password) || secret;
    } catch {
      return { server: "the server its connection string names", secret };
    }
  }
  host ??= text(env.PGHOST) ?? "localhost";
  port ??= text(env.PGPORT) ?? "5432";
  database ??= text(env.PGDATABASE) ?? user ?? text(env.PGUSER) ?? "";
  return { server: `${host}:${port}/${database}`, secret };
};

export const codeOf = (error: unknown): string | null => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : null;
};

/**
 * What went wrong, in pg's (or Node's) words. A connection to a name with
 * several addresses (`localhost`) that all refuse fails with an
 * AggregateError whose own message is empty: its errors say it.
 */
export const reasonOf = (error: unknown): string => {
  if (error instanceof Error && error.message !== "") return error.message;
  if (error instanceof AggregateError && error.errors.length > 0)
    return error.errors.map(reasonOf).join("; ");
  return codeOf(error) ?? String(error);
};

/** An error the server sent (pg's `DatabaseError`, whichever copy of pg made it). */
export const fromServer = (error: unknown): boolean =>
  error instanceof Error &&
  typeof (error as { severity?: unknown }).severity === "string" &&
  codeOf(error) !== null;

/**
 * Whether a query's error means the connection, not the query, failed: no
 * answer from the server at all (a socket error, a connection ended), its
 * connection exception (class 08) and shutdown (57P) codes, or any error
 * that ended the session (`FATAL`: a backend terminated, an idle
 * transaction timed out, `25P03`).
 */
export const connectionFailed = (error: unknown): boolean => {
  if (!fromServer(error)) return true;
  const code = codeOf(error) ?? "";
  const severity = (error as { severity?: unknown }).severity;
  return (
    code.startsWith("08") || code.startsWith("57P") || severity === "FATAL" || severity === "PANIC"
  );
};

/**
 * What a bound of the store's cut short, in words, or `undefined` for any
 * other error: a lock not granted within `lock_timeout` (`55P03`), a
 * statement past `statement_timeout` or cancelled (`57014`). The connection is fine; the
 * caller may try again.
 */
export const timedOut = (
  error: unknown,
  bounds: { readonly lockTimeoutMs: number; readonly statementTimeoutMs: number },
): string | undefined => {
  if (!fromServer(error)) return undefined;
  const said = reasonOf(error);
  switch (codeOf(error)) {
    case "55P03":
      return `a lock was not granted within lockTimeoutMs (${bounds.lockTimeoutMs} ms): another connection holds it, a transaction stalled or not the store's (${said})`;
    case "57014":
      return said.includes("statement timeout")
        ? `a statement ran past statementTimeoutMs (${bounds.statementTimeoutMs} ms) (${said})`
        : `a statement was cancelled (${said})`;
    default:
      return undefined;
  }
};
