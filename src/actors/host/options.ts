/**
 * What a host is made with: its options, the defaults of its bounds, and the
 * error an option that cannot be used is refused with.
 */

import { Data } from "effect";
import type { RateLimitStore } from "../../runtime/calls/rateLimit.ts";
import type { User } from "../../runtime/commands/origin.ts";
import type { EventStore } from "../../runtime/log/eventStore.ts";
import type { Clock } from "../../runtime/ports/clock.ts";
import type { Ids } from "../../runtime/ports/ids.ts";
import type { Model } from "../../runtime/prompt/model.ts";
import type { InspectObserver } from "../support/inspection.ts";

/**
 * What `createHost` takes: the model, and what would otherwise have its
 * default (the store, the clock and ids, the rate limits, the bounds on
 * windows, streams and turns). Only `model` is required; `idleWindowMs`,
 * `maxWindows` and the stream caps that are not positive whole numbers are
 * refused with {@link HostConfigError}.
 */
export interface HostOptions {
  readonly model: Model;
  /**
   * The model for a user's steps, when it depends on who asks (a
   * `modelSource`'s `forUser`); asked at each step. `model` when not given.
   */
  readonly modelFor?: (user: User) => Model;
  /** Where logs live: `memoryStore()` by default, `sqliteStore(path)` to keep them. */
  readonly store?: EventStore;
  readonly clock?: Clock;
  readonly ids?: Ids;
  readonly confirmIds?: Ids;
  readonly rateLimits?: RateLimitStore;
  /** `max_tokens` of each model request: 4 096. */
  readonly maxTokensPerStep?: number;
  /** Crashes of one window's actor allowed within `restartWindowMs` before it is given up: 3 in 60 s. */
  readonly maxRestarts?: number;
  readonly restartWindowMs?: number;
  /**
   * How long calls from code may take before the code is told they failed:
   * 3 min 30 s, under the API's ~4-minute limit on a pending call.
   */
  readonly codeCallDeadlineMs?: number;
  /**
   * XState's inspection events of every actor (conversations, the calls they
   * invoke, confirmations, coalescers), for `@statelyai/inspect` or any
   * inspector: `inspect: createBrowserInspector().inspect`.
   */
  readonly inspect?: InspectObserver;
  /** Who owns a window: two users with the same key are one. Default: `id`, else `name`, else the value. */
  readonly userKey?: (user: User) => string;
  /** The name the system prompt gives the user: `user.name` by default. */
  readonly userName?: (user: User) => string | undefined;
  /** Told when a window crashes more often than it may be rebuilt. */
  readonly onError?: (error: unknown, where: { readonly clientId: string }) => void;
  /**
   * How long a window with nothing open (no event stream, no running turn,
   * no question waiting, no live query) stays in memory after it was last
   * used: 30 minutes. Its log stays in a durable store, and it opens again
   * when asked for.
   */
  readonly idleWindowMs?: number;
  /**
   * Windows kept in memory at most: 10 000. Past it, the least recently used
   * windows with nothing open are closed first; when none is idle, a new
   * window is refused (`HostFull`, 429 over HTTP).
   */
  readonly maxWindows?: number;
  /** Event streams open on one window at most: 16. One more is refused (`StreamsRefused`, 429 over HTTP). */
  readonly maxStreamsPerWindow?: number;
  /** Event streams one user has open across their windows at most: 64. One more is refused likewise. */
  readonly maxStreamsPerUser?: number;
  /**
   * This host's name among the hosts sharing the store (on a store with
   * leases, such as `postgresStore`): a random one, new at each start, by
   * default. Two live hosts must never share one.
   */
  readonly hostId?: string;
}

/**
 * A host option that cannot be used: thrown by `createHost`, naming the
 * option and why.
 *
 * @example
 * ```ts
 * try {
 *   createHost(app, { model, maxWindows: 0 });
 * } catch (error) {
 *   if (error instanceof HostConfigError) console.error(error.message);
 *   // "createHost: maxWindows must be a positive whole number, not 0"
 * }
 * ```
 */
export class HostConfigError extends Data.TaggedError("HostConfigError")<{
  readonly option: string;
  readonly reason: string;
}> {
  override get message(): string {
    return `createHost: ${this.option} ${this.reason}`;
  }
}

/**
 * Windows idle this long are closed, unless `idleWindowMs` is given: 30
 * minutes. A durable store keeps the log of a closed window, and it opens
 * again when asked for.
 *
 * @example
 * ```ts
 * const host = createHost(app, { model, idleWindowMs: IDLE_WINDOW_MS / 2 }); // 15 minutes
 * ```
 */
export const IDLE_WINDOW_MS = 30 * 60_000;
/**
 * Windows kept in memory at most, unless `maxWindows` is given: 10 000. Past
 * it, idle windows are closed first; when none is idle, a new one is refused
 * with {@link HostFull}.
 *
 * @example
 * ```ts
 * const host = createHost(app, { model, maxWindows: MAX_WINDOWS / 10 }); // a small instance: 1 000
 * ```
 */
export const MAX_WINDOWS = 10_000;
/** A window whose conversation crashes more than this many times within {@link RESTART_WINDOW_MS} is given up. */
export const MAX_RESTARTS = 3;
export const RESTART_WINDOW_MS = 60_000;
/** Each model step's `max_tokens` unless `maxTokensPerStep` is given. */
export const MAX_TOKENS_PER_STEP = 4096;

/** How many supervisors share a host's windows (see {@link SHARD_BLOCK}): 10 000 windows opened in a row are 40 of 256. */
export const SUPERVISOR_SHARDS = 64;
/** How many windows opened one after another share a supervisor before the next is used. */
export const SHARD_BLOCK = 256;

/** An option's value, or its default, when it is a positive whole number; else a {@link HostConfigError}. */
export const positive = (option: string, value: number | undefined, fallback: number): number => {
  const chosen = value ?? fallback;
  if (!Number.isSafeInteger(chosen) || chosen < 1)
    throw new HostConfigError({ option, reason: `must be a positive whole number, not ${chosen}` });
  return chosen;
};
