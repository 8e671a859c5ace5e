/**
 * `useThreads()` and `useThread(id)`: the user's conversations over the
 * provider's client (`POST /threads…`), for a list of one's own; opening one
 * is the store's `switchThread`. Nothing is asked on a server: the requests
 * start once a component mounts in a browser.
 */
import type { AssistantClient, AssistantThreads, ThreadFound, ThreadInfo } from "../ui/client.ts";
import type { AssistantError } from "../ui/errors.ts";
import { ConnectionError, HostError } from "../ui/errors.ts";
import { useAssistantContext } from "./provider.ts";
import { React } from "./reactPeer.ts";

/** Which threads {@link useThreads} lists. */
export interface UseThreadsOptions {
  /** The archived ones (`true`) or the others (the default). */
  readonly archived?: boolean;
  /**
   * Words to search for: non-blank, the threads whose words match, each
   * with its `snippet` (no pages, archived ones included). Debounce what the
   * user types yourself: each change asks the host.
   */
  readonly search?: string;
}

/** What {@link useThreads} gives: the threads, and what can be done to them. */
export interface ThreadsState {
  /** The pages read so far (or the search's results), most recently used first. */
  readonly threads: ReadonlyArray<ThreadInfo | ThreadFound>;
  /** True while a page (or the search) is asked for. */
  readonly loading: boolean;
  /** Whether the list has a page after those read (never for a search). */
  readonly hasMore: boolean;
  /** The last request that failed; undefined again once one succeeds. */
  readonly error: AssistantError | undefined;
  /** Reads the next page (nothing when there is none, or while one is asked for). */
  readonly more: () => Promise<void>;
  /** Reads the list (or the search) again from its start. */
  readonly refresh: () => Promise<void>;
  /** Renames a thread (an empty title: its first prompt's); whether the host took it. The list is read again. */
  readonly rename: (id: string, title: string) => Promise<boolean>;
  /** Archives a thread (`archived` true, the default) or brings it back; whether the host took it. */
  readonly archive: (id: string, archived?: boolean) => Promise<boolean>;
  /** Erases a thread for good; whether the host took it. */
  readonly remove: (id: string) => Promise<boolean>;
  /**
   * Shows the thread in the provider's store (its log from the start), or a
   * new conversation when no id is given: the store's `switchThread`.
   */
  readonly open: (id?: string) => void;
}

/** What {@link useThread} gives. */
export interface ThreadState {
  /** The thread, once read; undefined before, and when it failed or no id was given. */
  readonly thread: ThreadInfo | undefined;
  readonly loading: boolean;
  /** Why it could not be read: a `HostError` of type `threadNotFound` for one not the user's. */
  readonly error: AssistantError | undefined;
}

const asError = (error: unknown): AssistantError =>
  error instanceof HostError || error instanceof ConnectionError
    ? error
    : new ConnectionError({ message: String(error), cause: error });

const threadsOf = (client: AssistantClient, hook: string): AssistantThreads => {
  if (client.threads === undefined)
    throw new Error(
      `${hook} needs a client with the thread routes: assistantClient({ token }) from elyra-assistant/react has them.`,
    );
  return client.threads;
};

interface Listed {
  /** Which list: the archived flag and the search's words. */
  readonly key: string;
  readonly threads: ReadonlyArray<ThreadInfo | ThreadFound>;
  readonly next: string | undefined;
  readonly loading: boolean;
  readonly error: AssistantError | undefined;
}

/**
 * The user's threads, read through the nearest provider's client when the
 * component mounts and again when `archived` or `search` change: the list a
 * page at a time (`more()`), or a search's results. `rename`, `archive`
 * and `remove` ask the host, then read the list again. Throws outside an
 * `<AssistantProvider>`.
 *
 * @example
 * ```tsx
 * import { useThreads } from "elyra-assistant/react";
 *
 * export function History() {
 *   const { threads, hasMore, more, open, remove } = useThreads();
 *   return (
 *     <ul>
 *       {threads.map((t) => (
 *         <li key={t.id}>
 *           <button onClick={() => open(t.id)}>{t.title || "New conversation"}</button>
 *           <button onClick={() => void remove(t.id)}>Delete</button>
 *         </li>
 *       ))}
 *       {hasMore && <button onClick={() => void more()}>Show more</button>}
 *     </ul>
 *   );
 * }
 * ```
 */
export const useThreads = (options: UseThreadsOptions = {}): ThreadsState => {
  const { client, store } = useAssistantContext("useThreads()");
  const threads = threadsOf(client, "useThreads()");
  const archived = options.archived ?? false;
  const text = options.search?.trim() ?? "";
  const key = `${archived}\n${text}`;
  const fresh = (): Listed => ({
    key,
    threads: [],
    next: undefined,
    loading: true,
    error: undefined,
  });
  const [kept, setListed] = React.useState<Listed>(fresh);
  // The threads of another list are not shown for this one.
  const listed = kept.key === key ? kept : fresh();
  /** Counts reads from the start, so the answer of an older one is dropped. */
  const asked = React.useRef(0);
  const last = React.useRef(listed);
  last.current = listed;

  const read = React.useCallback(
    async (after?: string) => {
      const mine = after === undefined ? ++asked.current : asked.current;
      const mineKey = `${archived}\n${text}`;
      const same = (was: Listed): Listed =>
        was.key === mineKey
          ? was
          : { key: mineKey, threads: [], next: undefined, loading: true, error: undefined };
      setListed((was) => ({ ...same(was), loading: true }));
      try {
        const page =
          text === ""
            ? await threads.list(after === undefined ? { archived } : { archived, after })
            : await threads.search(text);
        if (mine !== asked.current) return;
        setListed((was) => ({
          key: mineKey,
          threads: after === undefined ? page.threads : [...same(was).threads, ...page.threads],
          next: page.next,
          loading: false,
          error: undefined,
        }));
      } catch (error) {
        if (mine === asked.current)
          setListed((was) => ({ ...same(was), loading: false, error: asError(error) }));
      }
    },
    [threads, archived, text],
  );

  React.useEffect(() => {
    void read();
    return () => {
      asked.current++;
    };
  }, [read]);

  const act = React.useCallback(
    async (send: () => Promise<void>): Promise<boolean> => {
      try {
        await send();
      } catch (error) {
        setListed((was) => ({ ...was, error: asError(error) }));
        return false;
      }
      await read();
      return true;
    },
    [read],
  );

  return React.useMemo(
    () => ({
      threads: listed.threads,
      loading: listed.loading,
      hasMore: listed.next !== undefined,
      error: listed.error,
      more: async () => {
        const { next, loading } = last.current;
        if (next !== undefined && !loading) await read(next);
      },
      refresh: () => read(),
      rename: (id, title) => act(() => threads.rename(id, title)),
      archive: (id, archive) => act(() => threads.archive(id, archive)),
      remove: (id) => act(() => threads.delete(id)),
      open: (id) => void store.switchThread?.(id),
    }),
    [listed, read, act, threads, store],
  );
};

/**
 * One of the user's threads, read through the nearest provider's client
 * when the component mounts and again when `id` changes; no id, nothing is
 * read. Throws outside an `<AssistantProvider>`.
 *
 * @example
 * ```tsx
 * import { useThread } from "elyra-assistant/react";
 *
 * export function ThreadTitle({ id }: { id: string }) {
 *   const { thread, error } = useThread(id);
 *   if (error !== undefined) return <span>Not found</span>;
 *   return <span>{thread === undefined ? "…" : thread.title || "New conversation"}</span>;
 * }
 * ```
 */
export const useThread = (id: string | undefined): ThreadState => {
  const { client } = useAssistantContext("useThread()");
  const threads = threadsOf(client, "useThread()");
  const [shown, setShown] = React.useState<{ readonly id: string | undefined } & ThreadState>({
    id,
    thread: undefined,
    loading: id !== undefined,
    error: undefined,
  });

  React.useEffect(() => {
    if (id === undefined) return;
    let current = true;
    setShown((was) => (was.id === id && !was.loading ? { ...was, loading: true } : was));
    threads.get(id).then(
      (thread) => {
        if (current) setShown({ id, thread, loading: false, error: undefined });
      },
      (error: unknown) => {
        if (current) setShown({ id, thread: undefined, loading: false, error: asError(error) });
      },
    );
    return () => {
      current = false;
    };
  }, [threads, id]);

  // What another id's read gave is not shown for this one.
  if (shown.id !== id) return { thread: undefined, loading: id !== undefined, error: undefined };
  return { thread: shown.thread, loading: shown.loading, error: shown.error };
};
