/**
 * elyra-assistant/postgres: the durable event store several processes share,
 * over pg.
 *
 * @packageDocumentation
 */

export type {
  PostgresPool,
  PostgresPoolClient,
  PostgresStore,
  PostgresStoreOptions,
} from "./adapters/store/postgres/store.ts";
export {
  PostgresConfigError,
  PostgresUnavailable,
  PostgresWriterRequired,
  postgresStore,
} from "./adapters/store/postgres/store.ts";
