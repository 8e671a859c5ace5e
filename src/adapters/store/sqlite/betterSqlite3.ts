/** better-sqlite3, the optional peer `elyra-assistant/sqlite` needs, loaded with a clear sentence when missing. */
import type Database from "better-sqlite3";
import { importPeer } from "../../peer.ts";

export const BetterSqlite3: typeof Database = (
  await importPeer("elyra-assistant/sqlite", "better-sqlite3", () => import("better-sqlite3"))
).default;
