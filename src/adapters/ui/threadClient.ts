/**
 * The user's threads as the browser client asks for them: the list, its
 * search, one thread, and its rename, archive and erasure (`POST /threads…`,
 * `../web/wire.ts`). These routes need the token and the signed-in user, not
 * a window: they are sent without the client header.
 */
import type { ThreadFound, ThreadInfo, ThreadsResponse } from "../web/wire.ts";

export type { ThreadFound, ThreadInfo, ThreadsResponse };

/** Which page of the user's threads `list` asks for. */
export interface ThreadListQuery {
  /** Archived threads (`true`) or the others (the default). */
  readonly archived?: boolean | undefined;
  /** The `next` of the page before: the threads listed after it. */
  readonly after?: string | undefined;
  /** At most this many (the host's default is 20, its most 100). */
  readonly limit?: number | undefined;
}

/**
 * The user's threads over the host's routes. Each request resolves to the
 * host's answer and rejects with an `AssistantError`: a thread that is not
 * the user's, or is no more, is a `HostError` of type `threadNotFound`.
 */
export interface AssistantThreads {
  /** A page of the user's threads, most recently used first; its `next` asks for the page after. */
  readonly list: (query?: ThreadListQuery) => Promise<ThreadsResponse>;
  /** The user's threads whose words match `text` (literal words, never syntax), each with a snippet. */
  readonly search: (
    text: string,
    options?: { readonly limit?: number },
  ) => Promise<ThreadsResponse<ThreadFound>>;
  /** One of the user's threads. */
  readonly get: (id: string) => Promise<ThreadInfo>;
  /** Names a thread; an empty title gives it its first prompt's again. */
  readonly rename: (id: string, title: string) => Promise<void>;
  /** Archives a thread (`archived` true, the default), or brings it back (`false`). */
  readonly archive: (id: string, archived?: boolean) => Promise<void>;
  /** Erases a thread for good: its log, its entry in the list, its words in the search. */
  readonly delete: (id: string) => Promise<void>;
}

/** Sends one thread route's body and resolves to the host's answer (the client's own `post`). */
export type ThreadPost = (route: string, body: unknown) => Promise<Response>;

/**
 * The thread routes over `post`; `json` reads an answer's body.
 *
 * @example
 * ```ts
 * const threads = threadCalls((route, body) => post(route, body, { window: false }), json);
 * const { threads: recent, next } = await threads.list();
 * ```
 */
export const threadCalls = (
  post: ThreadPost,
  json: <A>(response: Response) => Promise<A>,
): AssistantThreads => ({
  list: async (query = {}) => json(await post("threads", query)),
  search: async (text, options = {}) => json(await post("threads/search", { ...options, text })),
  get: async (id) => json(await post("threads/get", { id })),
  rename: async (id, title) => void (await post("threads/rename", { id, title })),
  archive: async (id, archived) =>
    void (await post("threads/archive", archived === undefined ? { id } : { id, archived })),
  delete: async (id) => void (await post("threads/delete", { id })),
});
