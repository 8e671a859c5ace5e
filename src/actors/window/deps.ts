/**
 * What a window and its host owe each other: what the window needs (its
 * supervisor, the app, the model, the store, the clock…), and what the
 * supervisor's decisions and the host's bookkeeping ask of an open window.
 */

import type { Actor } from "xstate";
import type { GiveUpReason, Recovered } from "../../machines/supervisorMachine.ts";
import type { CallPath } from "../../runtime/calls/callPath.ts";
import type { App } from "../../runtime/commands/app.ts";
import type { User } from "../../runtime/commands/origin.ts";
import type { EventStore } from "../../runtime/log/eventStore.ts";
import type { Clock } from "../../runtime/ports/clock.ts";
import type { Model } from "../../runtime/prompt/model.ts";
import type { ThreadIndex } from "../../runtime/threads/threadIndex.ts";
import type { AssistantWindow } from "../assistantWindow.ts";
import type { Reply, Request } from "../cluster/messages.ts";
import type { Routing } from "../cluster/routing.ts";
import type { UsageReading } from "../log/userUsage.ts";
import type { InspectObserver } from "../support/inspection.ts";
import type { StreamCounts } from "../support/limits.ts";
import type { LiveRegistry } from "../support/liveQueries.ts";
import type { Bindings, hostSupervisor } from "../turn/machines.ts";
import type { WindowPhases } from "./lifecycle.ts";

/**
 * What a window needs from its host.
 *
 * @internal
 */
export interface WindowDeps {
  /** The supervisor of the window with this key: its conversation's parent. */
  readonly supervisor: (key: string) => Actor<ReturnType<typeof hostSupervisor>>;
  readonly bindings: Bindings;
  readonly app: App;
  readonly model: Model;
  /** The model for the window's user, when the host chooses per user. */
  readonly modelFor?: (user: User) => Model;
  readonly store: EventStore;
  /** Where the window writes what its thread's list shows: the store's index, or the host's in memory. */
  readonly threads: ThreadIndex;
  /**
   * Whether windows write their thread's entry as they go (and keep its
   * summary for it): not on a store that keeps no log after its window
   * closes, whose threads the host lists from its open windows.
   */
  readonly indexing: boolean;
  /** How what a conversation used is read from `store`, at the app's prices: made once by the host. */
  readonly usage: UsageReading;
  /** On a store several hosts share (it has leases): how this host reaches the others. */
  readonly routing?: Routing;
  readonly clock: Clock;
  readonly path: CallPath;
  readonly maxTokensPerStep: number;
  readonly live: LiveRegistry;
  /** XState's inspection events of every actor of the window. */
  readonly inspect?: InspectObserver;
  /** How long calls from code may take before the code is told they failed. */
  readonly codeCallDeadlineMs?: number;
  readonly userName: (user: User) => string | undefined;
  /** Who owns a window: the key the log records as its owner. */
  readonly userKey: (user: User) => string;
  readonly onError: (error: unknown, where: { readonly clientId: string }) => void;
  /**
   * Told when the window closes, so the host forgets it; `done` settles once
   * the closing window wrote its last event (and a memory store dropped its
   * log): a window opened on the same client id reads the log after it.
   */
  readonly onClose: (clientId: string, window: OpenWindow, done: Promise<void>) => void;
  /**
   * The window on `clientId` as the host opens it now: a new one once this
   * one was given up (a prompt that waited on its unreadable log is tried there).
   */
  readonly reopen: (clientId: string, user: User) => AssistantWindow;
  /** Told when the window's last event stream ends: the host may close windows over its cap. */
  readonly onIdle: () => void;
  /** Event streams open on one window at most. */
  readonly maxStreamsPerWindow: number;
  /** Each user's open event streams, across the host's windows. */
  readonly userStreams: StreamCounts;
}

/** What the supervisor's decisions take in a window. */
export interface Supervised {
  /** Reads the log again; records a turn it shows running as interrupted. */
  readonly recover: () => Promise<Recovered>;
  /** The supervisor spawned the window's conversation. */
  readonly started: () => void;
  /** The conversation failed; the supervisor is rebuilding it. */
  readonly crashed: () => void;
  /** The supervisor gave the window up. */
  readonly failed: (error: unknown, reason: GiveUpReason) => void;
}

/** @internal */
export type OpenWindow = AssistantWindow & {
  /** What the supervisor knows the window by. */
  readonly key: string;
  /** The window was asked for: it was used now. */
  readonly touch: () => void;
  /** When it was last used: asked for, or its last stream ended. */
  readonly lastUsed: () => number;
  /** Whether closing it would cut something off: a stream, a turn, a question, a live query, its start. */
  readonly busy: () => boolean;
  readonly setUser: (user: User) => void;
  /** Another process appended to the window's log, up to `toSeq` (or maybe, with none): read it. */
  readonly catchUp: (toSeq?: number) => void;
  /** What this host answers another's request for the window (it writes it, or says it does not). */
  readonly answer: (request: Request) => Promise<Reply>;
  readonly supervised: Supervised;
  /** Resolves once the thread index has what this window wrote to it so far. */
  readonly indexed: () => Promise<void>;
  /** Its lifecycle: the window machine's state and context (for inspection and specs). */
  readonly phases: WindowPhases;
};
