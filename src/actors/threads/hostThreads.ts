/**
 * A host's threads, as their owners use them: listed and searched from the
 * thread index, renamed and archived through the thread's window (its writer
 * logs the change), erased from the store, the index and every host's
 * memory, and indexed again from the logs.
 */
import type { User } from "../../runtime/commands/origin.ts";
import type { EventStore } from "../../runtime/log/eventStore.ts";
import type { Clock } from "../../runtime/ports/clock.ts";
import {
  entryOf,
  type TurnText,
  threadSummary,
  turnTextsOf,
} from "../../runtime/threads/summary.ts";
import type {
  ThreadEntry,
  ThreadHit,
  ThreadIndex,
  ThreadPage,
} from "../../runtime/threads/threadIndex.ts";
import { type AssistantWindow, ThreadNotFound, WindowOwnerMismatch } from "../assistantWindow.ts";
import {
  conversationsOf,
  namesOwner,
  ownerNamed,
  ownerStream,
  pages,
  USAGE_PAGE,
} from "../log/userUsage.ts";
import { streamOf } from "../log/windowLog.ts";

/**
 * A user's threads on a host (`host.threads`): each call names the user, and
 * touches only their threads. A thread that is not theirs (another user's, an
 * erased one, one that never was) is refused with {@link ThreadNotFound},
 * the same for all three.
 *
 * @example
 * ```ts
 * const { threads, next } = await host.threads.list({ user });
 * const found = await host.threads.search({ user, text: "credit limit" });
 * await host.threads.rename({ user, id: threads[0].id, title: "Ada's limit" });
 * ```
 */
export interface HostThreads {
  /** A page of the user's threads, most recently used first (archived ones apart). */
  readonly list: (query: {
    readonly user: User;
    readonly archived?: boolean | undefined;
    readonly after?: string | undefined;
    readonly limit?: number | undefined;
  }) => Promise<ThreadPage>;
  /** The user's threads whose one turn has every word of `text` (as a word's start), most recent first. */
  readonly search: (query: {
    readonly user: User;
    readonly text: string;
    readonly limit?: number | undefined;
  }) => Promise<ReadonlyArray<ThreadHit>>;
  /** One of the user's threads, as their list shows it. */
  readonly get: (query: { readonly user: User; readonly id: string }) => Promise<ThreadEntry>;
  /** Names one of the user's threads (empty: titled by its first prompt again); resolves once logged. */
  readonly rename: (query: {
    readonly user: User;
    readonly id: string;
    readonly title: string;
  }) => Promise<void>;
  /** Archives one of the user's threads (`archived`, true by default) or brings it back. */
  readonly archive: (query: {
    readonly user: User;
    readonly id: string;
    readonly archived?: boolean;
  }) => Promise<void>;
  /** Erases one of the user's threads: `host.erase({ user, thread })`. */
  readonly delete: (query: { readonly user: User; readonly id: string }) => Promise<void>;
  /**
   * Writes the index entry and search text of every thread the user's own
   * stream names, from their logs: for conversations logged before threads
   * were indexed, or an index made anew. Resolves with how many.
   */
  readonly reindex: (query: { readonly user: User }) => Promise<number>;
}

/** What `host.erase` did: how many threads it erased. */
export interface Erasure {
  readonly threads: number;
}

/** What the threads need of their host. */
export interface ThreadsDeps {
  readonly store: EventStore;
  readonly index: ThreadIndex;
  readonly clock: Clock;
  readonly userKey: (user: User) => string;
  /** The window on `id` for `user`, as `host.window` opens it; `indexed` once the index has its writes. */
  readonly window: (
    id: string,
    user: User,
  ) => AssistantWindow & { readonly indexed: () => Promise<void> };
  /** The client ids of `owner`'s windows open on this host. */
  readonly openOf: (owner: string) => ReadonlyArray<string>;
  /** Closes the window on `id` if this host has it open, its turn stopped. */
  readonly closeOpen: (id: string) => Promise<void>;
}

/** Another user's window, or an erased one, is a thread that is not there. */
const asNotFound = (id: string) => (error: unknown) => {
  throw error instanceof WindowOwnerMismatch || error instanceof ThreadNotFound
    ? new ThreadNotFound({ id })
    : error;
};

/** A host's threads and its erasure. */
export const hostThreads = (
  deps: ThreadsDeps,
): HostThreads & {
  readonly erase: (query: { readonly user: User; readonly thread?: string }) => Promise<Erasure>;
} => {
  const { store, index, userKey } = deps;

  /** The user's entry of thread `id`; refused when they have none. */
  const entry = async (owner: string, id: string): Promise<ThreadEntry> => {
    const found = await index.get(owner, id);
    if (found === undefined) throw new ThreadNotFound({ id });
    return found;
  };

  /** The window of one of the user's listed threads, its log read and found theirs. */
  const theirs = async (user: User, id: string) => {
    await entry(userKey(user), id);
    try {
      const window = deps.window(id, user);
      await window.owned();
      return window;
    } catch (error) {
      return asNotFound(id)(error);
    }
  };

  /**
   * Whether the log of thread `id` is `owner`'s: on a durable store, its
   * first page names them (the window writes its owner first); on one that
   * keeps no log after its window closes, the thread is listed as theirs, or
   * their window on it is open here.
   */
  const isTheirs = async (owner: string, id: string): Promise<boolean> => {
    if (!store.durable)
      return deps.openOf(owner).includes(id) || (await index.get(owner, id)) !== undefined;
    const first = await store.read(streamOf(id), 0, USAGE_PAGE);
    return namesOwner(store, ownerNamed(first, undefined), owner);
  };

  /** Erases one thread: its window here closed, its events a tombstone, its entry and text gone. */
  const eraseThread = async (owner: string, id: string): Promise<void> => {
    await deps.closeOpen(id);
    const stream = streamOf(id);
    // A store that cannot erase forgets the log (no tombstone is left then).
    if (store.erase === undefined) await store.drop(stream);
    else await store.erase(stream, deps.clock.now());
    await index.remove(owner, id);
  };

  /** Erases thread `id` if its log is `owner`'s; refused as not found otherwise. */
  const eraseTheirs = async (owner: string, id: string): Promise<void> => {
    if (!(await isTheirs(owner, id))) throw new ThreadNotFound({ id });
    await eraseThread(owner, id);
  };

  /** Every thread `owner` may have: named by their stream, open here, or listed. */
  const allOf = async (owner: string): Promise<Set<string>> => {
    const ids = await conversationsOf(store, owner, deps.openOf(owner));
    for (const archived of [false, true]) {
      let after: string | undefined;
      do {
        const page = await index.list(owner, {
          archived,
          limit: 100,
          ...(after === undefined ? {} : { after }),
        });
        for (const thread of page.threads) ids.add(thread.id);
        after = page.next;
      } while (after !== undefined);
    }
    return ids;
  };

  return {
    list: ({ user, archived, after, limit }) =>
      index.list(userKey(user), {
        ...(archived === undefined ? {} : { archived }),
        ...(after === undefined ? {} : { after }),
        ...(limit === undefined ? {} : { limit }),
      }),
    search: ({ user, text, limit }) =>
      index.search(userKey(user), { text, ...(limit === undefined ? {} : { limit }) }),
    get: ({ user, id }) => entry(userKey(user), id),
    rename: async ({ user, id, title }) => {
      const window = await theirs(user, id);
      await window.rename(title).catch(asNotFound(id));
      // Told once the list shows it, when this host wrote it (else once the writer's index does).
      await window.indexed();
    },
    archive: async ({ user, id, archived }) => {
      const window = await theirs(user, id);
      await window.archive(archived ?? true).catch(asNotFound(id));
      await window.indexed();
    },
    delete: async ({ user, id }) => {
      const owner = userKey(user);
      // Their list names it before its log is read at all; then its log must name them too.
      await entry(owner, id);
      await eraseTheirs(owner, id);
    },
    erase: async ({ user, thread }) => {
      const owner = userKey(user);
      if (thread !== undefined) {
        await eraseTheirs(owner, thread);
        return { threads: 1 };
      }
      let erased = 0;
      for (const id of await allOf(owner)) {
        if (!(await isTheirs(owner, id))) continue;
        await eraseThread(owner, id);
        erased++;
      }
      // Their own stream names the threads they had: it goes too, its tombstone left.
      await store.erase?.(ownerStream(owner), deps.clock.now());
      return { threads: erased };
    },
    reindex: async ({ user }) => {
      const owner = userKey(user);
      let count = 0;
      for (const id of await conversationsOf(store, owner, deps.openOf(owner))) {
        let summary = threadSummary.initial;
        let named: string | undefined;
        const texts = new Map<number, TurnText>();
        const prompts = new Map<number, string>();
        for await (const page of pages(store, streamOf(id))) {
          summary = threadSummary.fold(page, summary);
          named = ownerNamed(page, named);
          for (const text of turnTextsOf(page, prompts)) texts.set(text.turn, text);
        }
        if (summary.createdAt === null || summary.erased || !namesOwner(store, named, owner))
          continue;
        const listed = entryOf(owner, id, summary);
        // The entry goes with each text; alone, when the thread has none.
        if (texts.size === 0) await index.put(listed);
        for (const text of texts.values()) await index.put(listed, text);
        count++;
      }
      return count;
    },
  };
};
