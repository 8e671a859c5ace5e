/**
 * elyra-assistant/sqlite: the durable event store, over better-sqlite3.
 *
 * @packageDocumentation
 */

export type { SqliteStore, SqliteStoreOptions } from "./adapters/store/sqliteStore.ts";
export { StoreInUse, sqliteStore } from "./adapters/store/sqliteStore.ts";
