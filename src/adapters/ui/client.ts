/**
 * The browser's side of the wire contract (`../web/wire.ts`): each route
 * as a method, the window's log as a resumable event stream, live queries as
 * streams of results.
 */

import type { ConfirmEcho } from "../../runtime/calls/answerResult.ts";
import type { LogEvent } from "../../runtime/log/events.ts";
import type {
  ConfirmResponse,
  ConfirmResult,
  ErrorBody,
  LiveResult,
  SourceName,
  SourceResponse,
  ToolInfo,
  UsageResponse,
} from "../web/wire.ts";
import { BASE_PATH, CLIENT_HEADER, START_OVER_EVENT, TOKEN_HEADER } from "../web/wire.ts";
import { type AssistantError, connectionErrorOf, hostErrorOf } from "./errors.ts";
import { type Backoff, DEFAULT_BACKOFF, openEventStream } from "./eventStream.ts";
import {
  type AssistantThreads,
  type ThreadFound,
  type ThreadInfo,
  type ThreadListQuery,
  type ThreadsResponse,
  threadCalls,
} from "./threadClient.ts";

export type {
  AssistantThreads,
  ConfirmEcho,
  ConfirmResponse,
  ConfirmResult,
  ErrorBody,
  LiveResult,
  SourceName,
  SourceResponse,
  ThreadFound,
  ThreadInfo,
  ThreadListQuery,
  ThreadsResponse,
  ToolInfo,
  UsageResponse,
};

/** Where `assistantClient` finds the host and how it identifies this window to it. */
export interface AssistantClientOptions {
  /** Where the host mounted its routes (`/__assistant`). */
  readonly baseUrl?: string;
  /** The host's token, sent as `x-elyra-token` on every request. */
  readonly token: string;
  /** The window's id, sent as `x-elyra-client`; a random one when left out. */
  readonly clientId?: string;
  readonly fetch?: typeof globalThis.fetch;
  /** The waits between attempts to open a dropped stream (0.5 s doubling to 5 s). */
  readonly backoff?: Backoff;
}

/**
 * One window's host routes as methods: a request resolves to the host's
 * answer and rejects with an `AssistantError` (`HostError` or
 * `ConnectionError`). Most apps use it through `createAssistantStore`.
 */
export interface AssistantClient {
  /** The window's id: the thread it shows, sent as `x-elyra-client` (it changes with `switchThread`). */
  readonly clientId: string;
  /**
   * Shows another thread from now on: `id`, one of the user's (from
   * `threads.list`), or a new one, under a new random id, when left out;
   * returns the id sent from now on. A stream opened before keeps the thread
   * it was opened on (the store closes it and opens one on the new thread).
   * Optional so a client made by hand still type-checks; the panel then
   * starts a conversation anew with `reset`.
   */
  readonly switchThread?: (id?: string) => string;
  /**
   * The user's threads: their list, search, rename, archive and erasure.
   * Optional like `switchThread`: the panel shows no list of conversations
   * without it.
   */
  readonly threads?: AssistantThreads;
  /** Starts a turn; resolves to its number (the turn runs on: watch `events`). */
  readonly prompt: (text: string, route?: string) => Promise<{ readonly turn: number }>;
  /** Answers one confirmation; resolves to what became of it (`{ _tag: "Answered", answer }`, `UnknownConfirmation`, …). */
  readonly confirm: (
    confirmId: string,
    accept: boolean,
    echo?: ConfirmEcho,
  ) => Promise<ConfirmResponse>;
  readonly stop: () => Promise<void>;
  readonly reset: () => Promise<void>;
  /**
   * Says goodbye: the host closes this window (its streams end, its memory is
   * freed; a durable log stays). Sent with `keepalive`, so it still goes as
   * the page is left.
   */
  readonly close: () => Promise<void>;
  /** The tools offered to this user now. */
  readonly tools: () => Promise<ReadonlyArray<ToolInfo>>;
  /**
   * Gives the host the user's own API key to keep (`sk-ant-…`), or `null` to
   * forget it. Write-only: the host never sends it back.
   */
  readonly key: (key: string | null) => Promise<void>;
  /** Where the user's steps go now: `backend`, `userKey`, `environment` or `none`. */
  readonly source: () => Promise<SourceName>;
  /**
   * `POST /source`'s whole answer: the source, and `canSaveKey`, whether the
   * host can keep a key of the user's (the panel's settings show only then).
   * Optional so a client made by hand before it still type-checks; the
   * panel shows no settings without it.
   */
  readonly sourceInfo?: () => Promise<SourceResponse>;
  /**
   * `POST /usage`: what the conversation's last request held, its budget
   * used and left, and what it cost (`cost: false` leaves the cost out, the
   * host's cheap answer). Optional like `sourceInfo`: the panel shows no
   * usage without it.
   */
  readonly usage?: (options?: { readonly cost?: boolean }) => Promise<UsageResponse>;
  /** What is selected of one kind (`[]` clears it). */
  readonly selected: (
    kind: string,
    ids: ReadonlyArray<string | number>,
    route?: string,
  ) => Promise<void>;
  /**
   * The window's log from after `fromSeq` (0: from the start), each event once
   * and in order, across dropped connections. When the host says the log is
   * not the one the client resumed in (it restarted on a memory store, or the
   * log began again), `onStartOver` is told, and the whole log follows: forget
   * what was folded. Returns `close`.
   */
  readonly events: (
    fromSeq: number,
    onEvent: (event: LogEvent) => void,
    onError?: (error: AssistantError) => void,
    onOpen?: () => void,
    onStartOver?: () => void,
  ) => () => void;
  /** A live query: each result of `command` on `args` as it changes. Returns `close`, which ends it. */
  readonly live: (
    command: string,
    args: unknown,
    onResult: (result: LiveResult) => void,
    onError?: (error: AssistantError) => void,
  ) => () => void;
}

/** A new window's id: 128 random bits in hex, so nobody can guess a thread's. */
const randomId = (): string => {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
};

/** An event from the stream, or undefined for data that is not one (it is skipped). */
const eventOf = (data: string, id: string | undefined): LogEvent | undefined => {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const event = value as { _tag?: unknown; seq?: unknown };
  if (typeof event._tag !== "string") return undefined;
  if (Number.isSafeInteger(event.seq)) return value as LogEvent;
  const seq = Number(id?.split(".")[0]);
  return Number.isSafeInteger(seq) && seq > 0 ? ({ ...value, seq } as LogEvent) : undefined;
};

const resultOf = (data: string): LiveResult | undefined => {
  try {
    const value: unknown = JSON.parse(data);
    const tag = (value as { _tag?: unknown } | null)?._tag;
    return tag === "Result" || tag === "Failed" ? (value as LiveResult) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * A client of one window's host routes, and of the user's threads: the
 * window shows one thread at a time, and `switchThread` changes which.
 *
 * @example
 * ```ts
 * const client = assistantClient({ token: "page-token", clientId: "tab-1" });
 * const close = client.events(0, (event) => console.log(event._tag));
 * await client.prompt("Which invoices are overdue?", "/invoices");
 * close();
 * const { threads } = await client.threads.list(); // the user's conversations, latest first
 * client.switchThread(threads[1]?.id); // the next stream opened shows that one
 * ```
 */
export const assistantClient = (
  options: AssistantClientOptions,
): AssistantClient & Required<Pick<AssistantClient, "switchThread" | "threads">> => {
  const base = (options.baseUrl ?? BASE_PATH).replace(/\/+$/, "");
  let clientId = options.clientId ?? randomId();
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  // Read at each request: the thread the window shows may change.
  const headersNow = () => ({ [TOKEN_HEADER]: options.token, [CLIENT_HEADER]: clientId });
  // Read at each call, so a test (or a polyfill) installed later is used.
  const fetchOf = (): typeof globalThis.fetch => options.fetch ?? globalThis.fetch;

  const post = async (
    route: string,
    body?: unknown,
    init: { readonly keepalive?: boolean; readonly window?: boolean } = {},
  ): Promise<Response> => {
    const { window = true, ...sent } = init;
    // The thread routes are the user's, not a window's: no client header.
    const headers = window ? headersNow() : { [TOKEN_HEADER]: options.token };
    let response: Response;
    try {
      response = await fetchOf()(`${base}/${route}`, {
        ...sent,
        method: "POST",
        headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (cause) {
      throw connectionErrorOf(cause);
    }
    if (!response.ok) throw await hostErrorOf(response);
    return response;
  };
  const json = async <A>(response: Response): Promise<A> => {
    try {
      return (await response.json()) as A;
    } catch (cause) {
      throw connectionErrorOf(cause);
    }
  };

  return {
    get clientId() {
      return clientId;
    },
    switchThread: (id) => {
      clientId = id ?? randomId();
      return clientId;
    },
    threads: threadCalls((route, body) => post(route, body, { window: false }), json),
    prompt: async (text, route) =>
      json(await post("prompt", route === undefined ? { text } : { text, route })),
    confirm: async (confirmId, accept, echo) =>
      json(await post("confirm", { confirmId, accept, ...echo })),
    stop: async () => void (await post("stop")),
    reset: async () => void (await post("reset")),
    close: async () => void (await post("close", undefined, { keepalive: true })),
    tools: async () => (await json<{ tools: ReadonlyArray<ToolInfo> }>(await post("tools"))).tools,
    key: async (key) => void (await post("key", { key })),
    source: async () => (await json<SourceResponse>(await post("source"))).source,
    sourceInfo: async () => json<SourceResponse>(await post("source")),
    usage: async (options) =>
      json<UsageResponse>(await post(options?.cost === false ? "usage?cost=false" : "usage")),
    selected: async (kind, ids, route) =>
      void (await post("selected", route === undefined ? { kind, ids } : { kind, ids, route })),
    events: (fromSeq, onEvent, onError, onOpen, onStartOver) => {
      let last = fromSeq;
      /** The id of the last event, as the host gave it (its seq and the log's epoch). */
      let lastId = fromSeq > 0 ? String(fromSeq) : undefined;
      return openEventStream({
        fetch: (input, init) => fetchOf()(input, init),
        url: `${base}/events`,
        // The thread it opens on, for as long as it stays open.
        headers: headersNow(),
        backoff,
        lastEventId: () => lastId,
        onMessage: (message) => {
          if (message.event === START_OVER_EVENT) {
            last = 0;
            lastId = undefined;
            onStartOver?.();
            return;
          }
          const event = eventOf(message.data, message.id);
          // A resumed stream may repeat what was seen: each seq is passed on once.
          if (event === undefined || event.seq <= last) return;
          last = event.seq;
          lastId = message.id ?? String(event.seq);
          onEvent(event);
        },
        onError,
        onOpen,
      });
    },
    live: (command, args, onResult, onError) => {
      const query = new URLSearchParams({ command });
      if (args !== undefined) query.set("args", JSON.stringify(args));
      return openEventStream({
        fetch: (input, init) => fetchOf()(input, init),
        url: `${base}/live?${query}`,
        headers: headersNow(),
        backoff,
        lastEventId: () => undefined,
        onMessage: (message) => {
          const result = resultOf(message.data);
          if (result !== undefined) onResult(result);
        },
        onError,
      });
    },
  };
};
