/**
 * The event store that keeps its logs in memory: the default, and the twin
 * tests use. Nothing outlives the process, and a dropped stream is gone.
 */

import { type Clock, systemClock } from "../ports/clock.ts";
import { memoryThreads } from "../threads/memoryThreads.ts";
import { AppendConflict, type EventStore, type StoreChange } from "./eventStore.ts";
import type { LogEvent, NewEvent } from "./events.ts";
import { type MemoryLeases, memoryLeases } from "./memoryLeases.ts";

export { HEARTBEAT_MS, LEASE_MS, type MemoryLeases, memoryLeases } from "./memoryLeases.ts";

/** What a memory store is shared as: several hosts in one process, as on one database. */
export interface SharedMemory {
  /** Drives the leases' heartbeats: XState's `SimulatedClock` in tests. */
  readonly clock?: Clock;
  /** Heartbeats missed this long free a host's leases: 5 s. */
  readonly leaseMs?: number;
  /** How often a host beats: 1 s. */
  readonly heartbeatMs?: number;
}

/** A memory store shared by several hosts: durable for as long as the process, with leases. */
export interface SharedMemoryStore extends EventStore {
  readonly leases: MemoryLeases;
}

/**
 * An {@link EventStore} over a `Map` of streams (`durable: false`). Events are
 * kept as given, with their `seq` added: they are built by this library, so
 * they are not decoded again. `changes` tells `Appended` as each append
 * resolves (never `Resync`: nothing is missed in one process).
 *
 * `memoryStore({ shared: {} })` is the twin of a store several hosts share
 * (`postgresStore`): closing a window keeps its log (`durable: true`, for as
 * long as the process), and it has writer `leases` (with `crash(holder)` to
 * kill a host), for specs of several hosts in one process.
 *
 * @example
 * ```ts
 * const store = memoryStore();
 * await store.append("w1", [{ _tag: "Reset", at: 0, turn: 0 }], 0);
 * await store.append("w1", [{ _tag: "Reset", at: 1, turn: 0 }], 0); // rejects: AppendConflict
 * ```
 */
export function memoryStore(): EventStore;
export function memoryStore(options: { readonly shared: SharedMemory }): SharedMemoryStore;
export function memoryStore(options: { readonly shared?: SharedMemory } = {}): EventStore {
  const shared = options.shared;
  // A stream's event with seq n sits at index n - 1 - base: an erased stream starts past its old events.
  const streams = new Map<string, { base: number; readonly events: LogEvent[] }>();
  const lastSeq = (stream: string) => {
    const held = streams.get(stream);
    return held === undefined ? 0 : held.base + held.events.length;
  };
  const leases: MemoryLeases | undefined =
    shared === undefined
      ? undefined
      : memoryLeases(shared.clock ?? systemClock, { ...shared, lastSeq });
  // Shared, its logs outlive their windows: it keeps their index (a host indexes a plain one's open windows).
  const threads = shared === undefined ? undefined : memoryThreads();
  // Entries, not functions: one function subscribed twice is two subscriptions.
  const listeners = new Set<{ readonly listener: (change: StoreChange) => void }>();
  const tell = (change: StoreChange) => {
    for (const { listener } of [...listeners]) {
      try {
        listener(change);
      } catch {
        // A listener's failure is its own: the others go on, and so does the append.
      }
    }
  };
  return {
    durable: shared !== undefined,
    ...(leases === undefined ? {} : { leases }),
    ...(threads === undefined ? {} : { threads }),
    append: async (stream, events: ReadonlyArray<NewEvent>, expectedSeq, writer) => {
      if (writer !== undefined) leases?.check(stream, writer);
      const actualSeq = lastSeq(stream);
      if (expectedSeq !== actualSeq) throw new AppendConflict({ stream, expectedSeq, actualSeq });
      const added = events.map((event, i) => ({ ...event, seq: expectedSeq + i + 1 }) as LogEvent);
      const held = streams.get(stream);
      if (held === undefined) {
        // A copy: `added` goes back to the caller, and the log grows.
        if (added.length > 0) streams.set(stream, { base: 0, events: [...added] });
      } else {
        for (const event of added) held.events.push(event);
      }
      if (added.length > 0) tell({ _tag: "Appended", stream, seq: expectedSeq + added.length });
      return added;
    },
    read: async (stream, fromSeq = 0, toSeq = Number.POSITIVE_INFINITY) => {
      const held = streams.get(stream);
      if (held === undefined) return [];
      const from = Math.max(0, Math.floor(fromSeq) - held.base);
      return held.events.slice(from, Math.max(from, Math.floor(toSeq) - held.base));
    },
    lastSeq: async (stream) => lastSeq(stream),
    drop: async (stream) => {
      streams.delete(stream);
    },
    erase: async (stream, at) => {
      const held = streams.get(stream);
      if (held === undefined || (held.events.length === 1 && held.events[0]?._tag === "Erased"))
        return;
      const seq = lastSeq(stream) + 1;
      // A new array: the old one, and every event in it, is left to the collector.
      streams.set(stream, { base: seq - 1, events: [{ _tag: "Erased", seq, at, turn: 0 }] });
      tell({ _tag: "Appended", stream, seq });
    },
    changes: (listener) => {
      const entry = { listener };
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
  };
}
