/**
 * What postgresStore needs of a pg pool and its connections, declared here so
 * that the store's types stand without `@types/pg`.
 */

/**
 * What `postgresStore` needs of a pool: a pg `Pool` has it. Declared here so
 * that these types stand without `@types/pg`.
 *
 * @example
 * ```ts
 * import pg from "pg";
 * const pool: PostgresPool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * ```
 */
export interface PostgresPool {
  connect(): Promise<PostgresPoolClient>;
  end(): Promise<void>;
}

/** A connection lent by a {@link PostgresPool}: a pg `PoolClient` is one. */
export interface PostgresPoolClient {
  query(text: string, values?: unknown[]): Promise<{ readonly rows: ReadonlyArray<unknown> }>;
  /** Gives the connection back to its pool; `true` (or an error) ends it instead. */
  release(destroy?: Error | boolean): void;
}
