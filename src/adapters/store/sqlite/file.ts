/**
 * Opening a SQLite file for `sqliteStore`: one writer per file, held by
 * SQLite's own exclusive lock from open to close.
 */
import type Database from "better-sqlite3";
import { StoreInUse } from "../storeInUse.ts";
import { BetterSqlite3 } from "./betterSqlite3.ts";

/** How {@link openExclusive} opens the file. */
export interface OpenOptions {
  readonly busyTimeoutMs: number;
  readonly synchronous: "NORMAL" | "FULL";
  /** The statements that make the tables, run once the lock is held. */
  readonly schema: string;
}

const isBusy = (error: unknown): boolean =>
  error instanceof BetterSqlite3.SqliteError &&
  (error.code === "SQLITE_BUSY" || error.code.startsWith("SQLITE_BUSY_"));

/**
 * Opens `path` in WAL mode with `locking_mode = EXCLUSIVE`, and takes the
 * file's exclusive lock before it returns: no other connection can read or
 * write the file until this one is closed, or its process dies (the lock is
 * the operating system's, released with the process), with `secure_delete`
 * on (what is deleted is overwritten with zeros). Waits up to
 * `busyTimeoutMs` for a connection that holds the file, then throws
 * {@link StoreInUse}.
 */
export const openExclusive = (path: string, options: OpenOptions): Database.Database => {
  const db = new BetterSqlite3(path, { timeout: options.busyTimeoutMs });
  try {
    // Before WAL mode is entered: the WAL index then lives in this process's memory, not in
    // a shared -shm file, so no other connection can use the file while this one is open.
    db.pragma("locking_mode = EXCLUSIVE");
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${options.synchronous}`);
    // Deleted content is overwritten with zeros, in its page and in the pages freed: an
    // erased log's bytes leave the file. What costs is writing those zeros, on deletes.
    db.pragma("secure_delete = ON");
    // Takes the lock now, not at the first append; in exclusive mode it is kept after COMMIT.
    db.exec("BEGIN EXCLUSIVE");
    db.exec(options.schema);
    db.exec("COMMIT");
    return db;
  } catch (error) {
    db.close();
    if (isBusy(error)) throw new StoreInUse({ path });
    throw error;
  }
};
