/**
 * elyra-assistant/sqlite: the durable event store, over better-sqlite3.
 *
 * @packageDocumentation
 */

export type { SqliteStore, SqliteStoreOptions } from "./adapters/store/sqlite/store.ts";
export { StoreInUse, sqliteStore } from "./adapters/store/sqlite/store.ts";
