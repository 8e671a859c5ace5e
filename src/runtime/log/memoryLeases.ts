/**
 * The in-memory twin of a shared store's writer leases: several hosts in one
 * process, on one `memoryStore({ shared: true })`, take and give back
 * leases, beat their hearts on the injected clock, and message each other,
 * as hosts on one PostgreSQL database do. `crash(holder)` makes a host stop
 * as a killed process would: no heartbeat, no messages, its leases kept
 * until they expire. `pause(holder)` and `resume(holder)` are a process
 * stopped and continued (SIGSTOP, SIGCONT, a long GC pause, a partition
 * healed): nothing beats or is read meanwhile, and what was sent to it is
 * read when it continues.
 */

import type { Clock } from "../ports/clock.ts";
import { LeaseLost, type Writer, type WriterLeases } from "./writerLeases.ts";

/** Leases missed this long are taken over: 5 s. */
export const LEASE_MS = 5_000;
/** A holder beats its heart this often: 1 s. */
export const HEARTBEAT_MS = 1_000;

/** {@link WriterLeases} in memory, with what a test needs to kill a host. */
export interface MemoryLeases extends WriterLeases {
  /** Throws `LeaseLost` unless `writer` holds the stream's lease now. */
  readonly check: (stream: string, writer: Writer) => void;
  /**
   * The host stops as a killed process would: its heartbeat and its messages
   * stop, and its leases stay until they expire (`leaseMs` later).
   */
  readonly crash: (holder: string) => void;
  /**
   * The host stops as a paused process would: its heartbeat stops and what is
   * sent to it waits, until `resume`. Its leases lapse meanwhile, as any
   * whose heartbeat stops.
   */
  readonly pause: (holder: string) => void;
  /** A paused host goes on: it beats again and reads what was sent to it meanwhile, in order. */
  readonly resume: (holder: string) => void;
  /** Who holds the stream's lease now (expired or not), if anyone. */
  readonly holderOf: (stream: string) => string | undefined;
}

interface Member {
  /** Until when its heartbeat keeps its leases. */
  until: number;
  onMessage: (message: unknown) => void;
  timer: unknown;
  dead: boolean;
  /** While paused, what was sent to it, in order; undefined when it runs. */
  held: unknown[] | undefined;
  /** Its heartbeat, to start again on resume. */
  beat: () => void;
}

/**
 * Leases held in a `Map`, heartbeats on `clock` (XState's `SimulatedClock` in
 * tests), messages delivered on a later microtask as JSON (a copy).
 *
 * @example
 * ```ts
 * const leases = memoryLeases(clock);
 * await leases.join("a", () => {});
 * await leases.acquire("conversation/w1", "a"); // { _tag: "Taken", token: 1, tookOver: false }
 * await leases.acquire("conversation/w1", "b"); // { _tag: "Held", holder: "a" }
 * ```
 */
export const memoryLeases = (
  clock: Clock,
  options: {
    readonly leaseMs?: number;
    readonly heartbeatMs?: number;
    /** The store's last seq of a stream: told with each taking, as PostgreSQL's leases do. */
    readonly lastSeq?: (stream: string) => number;
  } = {},
): MemoryLeases => {
  const told = (stream: string) =>
    options.lastSeq === undefined ? {} : { lastSeq: options.lastSeq(stream) };
  const leaseMs = options.leaseMs ?? LEASE_MS;
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const members = new Map<string, Member>();
  const leases = new Map<string, Writer>();
  let tokens = 0;
  const alive = (holder: string) => {
    const member = members.get(holder);
    // A crashed host's leases last until its last heartbeat runs out, as a killed process's do.
    return member !== undefined && member.until > clock.now();
  };
  const stopBeating = (member: Member) => {
    member.dead = true;
    if (member.timer !== undefined) clock.clearTimeout(member.timer);
    member.timer = undefined;
  };
  return {
    leaseMs,
    join: async (holder, onMessage) => {
      const member: Member = {
        until: clock.now() + leaseMs,
        onMessage,
        timer: undefined,
        dead: false,
        held: undefined,
        beat: () => {
          member.until = clock.now() + leaseMs;
          member.timer = clock.setTimeout(member.beat, heartbeatMs);
        },
      };
      members.set(holder, member);
      member.timer = clock.setTimeout(member.beat, heartbeatMs);
      return {
        leave: async () => {
          stopBeating(member);
          if (members.get(holder) === member) members.delete(holder);
          for (const [stream, lease] of [...leases])
            if (lease.holder === holder) leases.delete(stream);
        },
      };
    },
    acquire: async (stream, holder) => {
      const lease = leases.get(stream);
      if (lease !== undefined && lease.holder !== holder && alive(lease.holder))
        return { _tag: "Held", holder: lease.holder };
      // The taker's heartbeat is fresh from now, whether or not it joined (as on PostgreSQL).
      const member = members.get(holder);
      if (member === undefined)
        members.set(holder, {
          until: clock.now() + leaseMs,
          // Not joined: no heartbeat of its own, and what is sent to it is dropped.
          onMessage: () => {},
          timer: undefined,
          dead: false,
          held: undefined,
          beat: () => {},
        });
      else if (!member.dead) member.until = clock.now() + leaseMs;
      if (lease !== undefined && lease.holder === holder)
        return { _tag: "Taken", token: lease.token, tookOver: false, ...told(stream) };
      const token = ++tokens;
      leases.set(stream, { holder, token });
      return { _tag: "Taken", token, tookOver: lease !== undefined, ...told(stream) };
    },
    release: async (stream, writer) => {
      const lease = leases.get(stream);
      if (lease?.holder === writer.holder && lease.token === writer.token) leases.delete(stream);
    },
    send: async (to, message) => {
      const member = members.get(to);
      if (member === undefined || member.dead) return;
      const copy: unknown = JSON.parse(JSON.stringify(message));
      if (member.held !== undefined) {
        member.held.push(copy);
        return;
      }
      queueMicrotask(() => {
        if (!member.dead) member.onMessage(copy);
      });
    },
    check: (stream, writer) => {
      const lease = leases.get(stream);
      if (lease?.holder !== writer.holder || lease.token !== writer.token)
        throw new LeaseLost({ stream, holder: writer.holder });
    },
    crash: (holder) => {
      const member = members.get(holder);
      if (member === undefined) return;
      stopBeating(member);
    },
    pause: (holder) => {
      const member = members.get(holder);
      if (member === undefined || member.dead || member.held !== undefined) return;
      member.held = [];
      if (member.timer !== undefined) clock.clearTimeout(member.timer);
      member.timer = undefined;
    },
    resume: (holder) => {
      const member = members.get(holder);
      if (member === undefined || member.dead || member.held === undefined) return;
      const held = member.held;
      member.held = undefined;
      // Its heartbeat timer fires at once, late, as a continued process's does.
      member.beat();
      queueMicrotask(() => {
        for (const message of held) if (!member.dead) member.onMessage(message);
      });
    },
    holderOf: (stream) => leases.get(stream)?.holder,
  };
};
