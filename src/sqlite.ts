/**
 * elyra-assistant/sqlite: the durable event store, over better-sqlite3.
 *
 * @packageDocumentation
 */

export type { SqliteStore, SqliteStoreOptions } from "./adapters/store/sqliteStore.ts";
export { sqliteStore } from "./adapters/store/sqliteStore.ts";
