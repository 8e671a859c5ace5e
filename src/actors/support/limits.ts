/**
 * What one host serves at most, and its refusals: windows in memory
 * (`maxWindows`, busy ones included), event streams on one window, and
 * event streams of one user across their windows.
 */
import { Data } from "effect";

/**
 * Event streams open on one window at most, unless `maxStreamsPerWindow` is
 * given: 16 (the same conversation open in 16 tabs). One more is refused
 * with {@link StreamsRefused}.
 *
 * @example
 * ```ts
 * const host = createHost(app, { model, maxStreamsPerWindow: MAX_STREAMS_PER_WINDOW * 2 }); // 32
 * ```
 */
export const MAX_STREAMS_PER_WINDOW = 16;
/**
 * Event streams one user has open across their windows at most, unless
 * `maxStreamsPerUser` is given: 64. One more is refused with
 * {@link StreamsRefused}.
 *
 * @example
 * ```ts
 * // A support desk where one agent keeps many customers' conversations open.
 * const host = createHost(app, { model, maxStreamsPerUser: MAX_STREAMS_PER_USER * 4 }); // 256
 * ```
 */
export const MAX_STREAMS_PER_USER = 64;

/**
 * A new window was asked for while `maxWindows` windows are open and none of
 * them is idle: thrown by `host.window`. The HTTP host answers it 429 with
 * `retry-after`; ask again shortly, when a window has gone idle.
 *
 * @example
 * ```ts
 * const open = (clientId: string, user: User) => {
 *   try {
 *     return host.window(clientId, { user });
 *   } catch (error) {
 *     if (error instanceof HostFull) return undefined; // busy: try again in a few seconds
 *     throw error;
 *   }
 * };
 * ```
 */
export class HostFull extends Data.TaggedError("HostFull")<{ readonly maxWindows: number }> {
  override get message(): string {
    return `this host has ${this.maxWindows} conversations open, none idle`;
  }
}

/**
 * An event stream past a cap: `window` (on this window) or `user` (of this
 * user, on all theirs). `follow` refuses with it; the HTTP host answers 429.
 * Closing another tab's stream makes room.
 *
 * @example
 * ```ts
 * const w = host.window("tab-1", { user });
 * try {
 *   const following = await w.follow(lastEventId);
 *   send(following);
 * } catch (error) {
 *   if (!(error instanceof StreamsRefused)) throw error;
 *   console.warn(error.message); // "this user has 64 event streams open already"
 * }
 * ```
 */
export class StreamsRefused extends Data.TaggedError("StreamsRefused")<{
  readonly reason: "window" | "user";
  readonly limit: number;
}> {
  override get message(): string {
    return this.reason === "window"
      ? `this conversation has ${this.limit} event streams open already`
      : `this user has ${this.limit} event streams open already`;
  }
}

/** Each user's open event streams, counted by their key; a user with none takes no room. */
export interface StreamCounts {
  /** Streams a user may have open at once. */
  readonly limit: number;
  /** Takes a place for one more of the user's streams: false when they have `limit` already. */
  readonly take: (owner: string) => boolean;
  /** Gives a stream's place back. */
  readonly give: (owner: string) => void;
}

/** Counts of each user's streams, at most `limit` each. */
export const streamCounts = (limit: number): StreamCounts => {
  const open = new Map<string, number>();
  return {
    limit,
    take: (owner) => {
      const now = open.get(owner) ?? 0;
      if (now >= limit) return false;
      open.set(owner, now + 1);
      return true;
    },
    give: (owner) => {
      const now = (open.get(owner) ?? 1) - 1;
      if (now <= 0) open.delete(owner);
      else open.set(owner, now);
    },
  };
};
