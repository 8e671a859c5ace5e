/**
 * The thread index that keeps its entries in memory: the twin of the
 * stores' own, and the index of `memoryStore`. A search scans the owner's
 * threads, turn by turn.
 */
import type { TurnText } from "./summary.ts";
import type {
  ThreadEntry,
  ThreadHit,
  ThreadIndex,
  ThreadListQuery,
  ThreadPage,
  ThreadSearchQuery,
} from "./threadIndex.ts";
import {
  byRecentUse,
  listedAfter,
  listLimit,
  matchesAll,
  pageOf,
  pageStart,
  searchLimit,
  searchTerms,
  snippetOf,
  wordsOf,
} from "./words.ts";

/**
 * One thread as the memory index holds it: its entry, and each turn's text
 * (its words are read from it at each search: the index holds the text once).
 */
interface Held {
  entry: ThreadEntry;
  /** By turn (0: the thread's name): an array, not a map, as most threads have few. */
  readonly texts: Array<string | undefined>;
}

/** A memory thread index, with what its store needs besides the port. */
export interface MemoryThreads extends ThreadIndex {
  /** Forgets the thread with this id, whoever owns it (its store dropped its log). */
  readonly forget: (id: string) => void;
}

/**
 * A {@link ThreadIndex} in a `Map`: what it holds is the size of the text
 * put in it (each turn's at most `TURN_TEXT_CHARS`), gone with the process.
 *
 * @example
 * ```ts
 * const index = memoryThreads();
 * await index.put({ id: "t-1", owner: "id:7", title: "Ada", createdAt: 1, lastAt: 1, preview: "", turns: 1, archived: false, seq: 1 }, { turn: 1, text: "Ada's credit limit" });
 * (await index.search("id:7", { text: "credit" }))[0]?.id; // "t-1"
 * ```
 */
export const memoryThreads = (): MemoryThreads => {
  const threads = new Map<string, Held>();
  const byOwner = new Map<string, Set<string>>();
  const ownerOf = (owner: string) => {
    const ids = byOwner.get(owner) ?? new Set<string>();
    byOwner.set(owner, ids);
    return ids;
  };
  const theirs = (owner: string): Held[] =>
    [...(byOwner.get(owner) ?? [])].flatMap((id) => threads.get(id) ?? []);
  const forget = (id: string) => {
    const held = threads.get(id);
    if (held === undefined) return;
    threads.delete(id);
    const ids = byOwner.get(held.entry.owner);
    ids?.delete(id);
    if (ids?.size === 0) byOwner.delete(held.entry.owner);
  };
  return {
    forget,
    put: async (entry: ThreadEntry, text?: TurnText) => {
      const held = threads.get(entry.id);
      if (held !== undefined && held.entry.owner !== entry.owner) return;
      const kept: Held = held ?? { entry, texts: [] };
      if (held === undefined) {
        threads.set(entry.id, kept);
        ownerOf(entry.owner).add(entry.id);
      }
      if (entry.seq < kept.entry.seq) return;
      // Kept as given (an entry is a fresh object of plain values); what is read out is a copy.
      kept.entry = entry;
      if (text !== undefined) kept.texts[text.turn] = text.text;
    },
    get: async (owner, id) => {
      const held = threads.get(id);
      return held?.entry.owner === owner ? { ...held.entry } : undefined;
    },
    list: async (owner, query: ThreadListQuery = {}): Promise<ThreadPage> => {
      const end = query.after === undefined ? undefined : pageStart(query.after);
      const limit = listLimit(query.limit);
      const archived = query.archived ?? false;
      const listed = theirs(owner)
        .map((held) => held.entry)
        .filter((e) => e.archived === archived && (end === undefined || listedAfter(e, end)))
        .sort(byRecentUse);
      return pageOf(
        listed.slice(0, limit + 1).map((e) => ({ ...e })),
        limit,
      );
    },
    search: async (owner, query: ThreadSearchQuery): Promise<ReadonlyArray<ThreadHit>> => {
      const terms = searchTerms(query.text);
      if (terms.length === 0) return [];
      const hits: ThreadHit[] = [];
      for (const held of theirs(owner).sort((a, b) => byRecentUse(a.entry, b.entry))) {
        if (hits.length >= searchLimit(query.limit)) break;
        // The latest turn that matches shows the snippet.
        const found = held.texts.findLast(
          (text) => text !== undefined && matchesAll(wordsOf(text), terms),
        );
        if (found !== undefined) hits.push({ ...held.entry, snippet: snippetOf(found, terms) });
      }
      return hits;
    },
    remove: async (owner, id) => {
      if (threads.get(id)?.entry.owner === owner) forget(id);
    },
  };
};
