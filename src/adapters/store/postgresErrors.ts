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
 * answer from the server at all (a socket error, a connection ended), or its
 * connection exception (class 08) and shutdown (57P) codes.
 */
export const connectionFailed = (error: unknown): boolean => {
  if (!fromServer(error)) return true;
  const code = codeOf(error) ?? "";
  return code.startsWith("08") || code.startsWith("57P");
};
