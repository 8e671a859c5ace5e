import type { EventStore } from "elyra-assistant/log";

type Env = Readonly<Record<string, string | undefined>>;

/** The durable store: PostgreSQL when `DATABASE_URL` is set (several instances), else a SQLite file (one). */
export const storeFrom = async (env: Env): Promise<EventStore> => {
  if (env.DATABASE_URL !== undefined) {
    const { postgresStore } = await import("elyra-assistant/postgres");
    const store = postgresStore(env.DATABASE_URL, { schema: "assistant" });
    await store.ready(); // connects; makes the tables if they are not there
    return store;
  }
  const { sqliteStore } = await import("elyra-assistant/sqlite");
  return sqliteStore(env.ASSISTANT_DB ?? "data/assistant.db"); // one process per file
};
