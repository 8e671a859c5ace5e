/**
 * The thread index of a host on a store that keeps no log after its window
 * closes (`memoryStore()`): its threads are its open windows, so the list and
 * the search scan them, and nothing is held beside the logs.
 */
import type { EventStore } from "../../runtime/log/eventStore.ts";
import { memoryThreads } from "../../runtime/threads/memoryThreads.ts";
import { entryOf, turnTextsOf } from "../../runtime/threads/summary.ts";
import type { ThreadIndex } from "../../runtime/threads/threadIndex.ts";
import type { AssistantWindow } from "../assistantWindow.ts";
import { streamOf } from "../log/windowLog.ts";

/** An open window and whose it is. */
export interface OpenThread {
  readonly owner: string;
  readonly window: Pick<AssistantWindow, "thread">;
}

/**
 * A {@link ThreadIndex} over `open()`, the host's open windows by client id:
 * each call lists (and, to search, reads the logs of) the owner's windows
 * with a turn, into an index made for the call. Writes are nothing to keep.
 */
export const openThreads = (
  open: () => Iterable<readonly [string, OpenThread]>,
  store: EventStore,
): ThreadIndex => {
  /** The owner's open threads, as an index of their entries (and their text, `withText`). */
  const indexOf = async (owner: string, withText: boolean) => {
    const index = memoryThreads();
    for (const [id, { owner: theirs, window }] of open()) {
      if (theirs !== owner) continue;
      // A window given up, or not yet read, is not listed.
      const summary = await window.thread().catch(() => undefined);
      if (summary === undefined) continue;
      if (summary.createdAt === null || summary.turns === 0) continue;
      const entry = entryOf(owner, id, summary);
      await index.put(entry);
      if (withText)
        for (const text of turnTextsOf(await store.read(streamOf(id), 0)))
          await index.put(entry, text);
    }
    return index;
  };
  return {
    put: async () => undefined,
    remove: async () => undefined,
    get: async (owner, id) => (await indexOf(owner, false)).get(owner, id),
    list: async (owner, query) => (await indexOf(owner, false)).list(owner, query),
    search: async (owner, query) => (await indexOf(owner, true)).search(owner, query),
  };
};
