/**
 * What a running host offers the app: its windows, the call path they share,
 * live queries, each user's threads, usage and export, and erasure.
 */

import type { CallPath } from "../../runtime/calls/callPath.ts";
import type { App } from "../../runtime/commands/app.ts";
import type { User } from "../../runtime/commands/origin.ts";
import type { AssistantWindow } from "../assistantWindow.ts";
import type { UserUsage } from "../log/userUsage.ts";
import type { LiveRegistry } from "../support/liveQueries.ts";
import type { Erasure, HostThreads } from "../threads/hostThreads.ts";

/**
 * A running host, as `createHost` returns it: the windows it keeps open (one
 * conversation each, owned by one user), the call path they all share, and
 * the live queries of their screens. `close` it when the process stops.
 */
export interface Host {
  /** The app the host runs. */
  readonly app: App;
  /** The conversation of one window, spawned on first use; a window belongs to one user. */
  readonly window: (clientId: string, options: { readonly user: User }) => AssistantWindow;
  /**
   * Closes one window if it is open (a page saying goodbye): its streams end
   * and its memory is freed; a durable log stays. Another user's window is
   * refused with `WindowOwnerMismatch`.
   */
  readonly closeWindow: (clientId: string, options: { readonly user: User }) => Promise<void>;
  /** How many windows are open in memory now. */
  readonly openWindows: () => number;
  /** The one call path every window (and MCP) goes through. */
  readonly path: CallPath;
  /** Live queries of every window; writes through the call path re-run the ones they change. */
  readonly live: LiveRegistry;
  /**
   * What a user's conversations used and cost since `since` (a time, or ms
   * since the epoch; all time by default), at the app's prices: all of
   * them, and conversation by conversation. Read from the store: on a
   * durable one, every conversation the user ever had on any host; on a
   * memory store, the windows open here.
   */
  readonly usage: (query: {
    readonly user: User;
    readonly since?: number | Date;
  }) => Promise<UserUsage>;
  /**
   * Everything the log keeps of a user's conversations, as one JSON document
   * written in pieces (pipe it to a file or a response): `{ owner,
   * exportedAt, conversations: [{ clientId, events }] }`, for a person who
   * asks for their data. Only conversations whose log names them; on a
   * memory store, their windows open here.
   */
  readonly export: (query: { readonly user: User }) => AsyncIterable<string>;
  /**
   * Each user's threads: a window's client id names the thread it shows, so
   * `host.window(id)` opens (or begins) it, on any tab or host. Listed and
   * searched from the store's thread index (the host's own in memory, when
   * the store has none).
   */
  readonly threads: HostThreads;
  /**
   * Erases a user's threads, or one (`thread`): every event of them from the
   * store (a tombstone left in each log), their index entries and search
   * text, their windows on every host; with no `thread`, the user's own
   * stream too. A thread not theirs is refused with `ThreadNotFound`.
   * What was sent to the model, and the app's own logs and backups, are not
   * the host's to erase (docs/privacy.md).
   */
  readonly erase: (query: { readonly user: User; readonly thread?: string }) => Promise<Erasure>;
  /** Closes every window. */
  readonly close: () => Promise<void>;
}
