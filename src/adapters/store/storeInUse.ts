/** The error a second writer of a SQLite file gets (its own module: its declaration names no peer). */
import { Data } from "effect";

/**
 * A SQLite file another connection holds: thrown by `sqliteStore(path)` when
 * another store (in this process or another) has the file open, or another
 * program held it longer than `busyTimeoutMs`. One process writes a file,
 * through one store; several processes need a store made for sharing.
 *
 * @example
 * ```ts
 * const store = sqliteStore("assistant.db");
 * sqliteStore("assistant.db"); // throws StoreInUse: SQLite file "assistant.db" is in use …
 * ```
 */
export class StoreInUse extends Data.TaggedError("StoreInUse")<{
  /** The file, as it was given. */
  readonly path: string;
}> {
  override get message(): string {
    return `SQLite file ${JSON.stringify(this.path)} is in use by another connection (another sqliteStore, in this process or another): one process writes a file, through one store; close the other first, or give several processes a store made for sharing (postgresStore, from elyra-assistant/postgres)`;
  }
}
