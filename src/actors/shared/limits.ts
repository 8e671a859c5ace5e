/**
 * What one host serves at most, and its refusals: windows in memory
 * (`maxWindows`, busy ones included), event streams on one window, and
 * event streams of one user across their windows.
 */
import { Data } from "effect";

/** Event streams open on one window at most, unless `maxStreamsPerWindow` is given: 16. */
export const MAX_STREAMS_PER_WINDOW = 16;
/** Event streams one user has open across their windows at most, unless `maxStreamsPerUser` is given: 64. */
export const MAX_STREAMS_PER_USER = 64;

/** A new window was asked for while `maxWindows` windows are open and none of them is idle. */
export class HostFull extends Data.TaggedError("HostFull")<{ readonly maxWindows: number }> {
  override get message(): string {
    return `this host has ${this.maxWindows} conversations open, none idle`;
  }
}

/** An event stream past a cap: `window` (on this window) or `user` (of this user, on all theirs). */
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
