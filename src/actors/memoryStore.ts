/**
 * The event store that keeps its logs in memory: the default, and the twin
 * tests use. Nothing outlives the process, and a dropped stream is gone.
 */

import { AppendConflict, type EventStore, type StoreChange } from "../runtime/log/eventStore.ts";
import type { LogEvent, NewEvent } from "../runtime/log/events.ts";

/**
 * An {@link EventStore} over a `Map` of streams (`durable: false`). Events are
 * kept as given, with their `seq` added: they are built by this library, so
 * they are not decoded again. `changes` tells `Appended` as each append
 * resolves (never `Resync`: nothing is missed in one process).
 *
 * @example
 * ```ts
 * const store = memoryStore();
 * await store.append("w1", [{ _tag: "Reset", at: 0, turn: 0 }], 0);
 * await store.append("w1", [{ _tag: "Reset", at: 1, turn: 0 }], 0); // rejects: AppendConflict
 * ```
 */
export const memoryStore = (): EventStore => {
  // A stream's event with seq n sits at index n - 1.
  const streams = new Map<string, LogEvent[]>();
  const lastSeq = (stream: string) => streams.get(stream)?.length ?? 0;
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
    durable: false,
    append: async (stream, events: ReadonlyArray<NewEvent>, expectedSeq) => {
      const actualSeq = lastSeq(stream);
      if (expectedSeq !== actualSeq) throw new AppendConflict({ stream, expectedSeq, actualSeq });
      const added = events.map((event, i) => ({ ...event, seq: expectedSeq + i + 1 }) as LogEvent);
      const log = streams.get(stream);
      if (log === undefined) {
        // A copy: `added` goes back to the caller, and the log grows.
        if (added.length > 0) streams.set(stream, [...added]);
      } else {
        for (const event of added) log.push(event);
      }
      if (added.length > 0) tell({ _tag: "Appended", stream, seq: expectedSeq + added.length });
      return added;
    },
    read: async (stream, fromSeq = 0, toSeq = Number.POSITIVE_INFINITY) =>
      streams
        .get(stream)
        ?.slice(Math.max(0, Math.floor(fromSeq)), Math.max(0, Math.floor(toSeq))) ?? [],
    lastSeq: async (stream) => lastSeq(stream),
    drop: async (stream) => {
      streams.delete(stream);
    },
    changes: (listener) => {
      const entry = { listener };
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
  };
};
