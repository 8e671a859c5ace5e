/**
 * The wire between a window in the browser and its host, as plain values and
 * types: the routes, headers, bounds and the shapes of the answers. Shared by
 * the HTTP handler (`elyra-assistant/http`, whose contract adds the schemas
 * that decode requests) and the browser client (`elyra-assistant/ui`). It
 * imports only types, so a page that uses it carries no schema library.
 */
import type { AnswerResult } from "../../runtime/calls/answerResult.ts";
import type { LiveResult } from "../../runtime/prompt/liveResult.ts";
import type { ThreadEntry, ThreadHit } from "../../runtime/threads/threadIndex.ts";

export type { LiveResult };

/** The header a resumed event stream names the last seq seen with. */
export const LAST_EVENT_ID_HEADER = "Last-Event-ID";

/**
 * The SSE event `GET /events` sends first when the client's `Last-Event-ID`
 * is not in the window's log (the host restarted on a memory store, or the
 * log was begun again): the client forgets what it has, and the whole log follows.
 *
 * @example
 * ```ts
 * const source = new EventSource(`${BASE_PATH}/events?token=${token}`);
 * source.addEventListener(START_OVER_EVENT, () => panel.clear());
 * ```
 */
export const START_OVER_EVENT = "startOver";

/**
 * Where the routes are mounted unless told otherwise.
 *
 * @example
 * ```ts
 * const response = await fetch(`${BASE_PATH}/prompt`, { method: "POST", headers, body });
 * ```
 */
export const BASE_PATH = "/__assistant";

/**
 * The header that carries the host's token: every route needs it.
 *
 * @example
 * ```ts
 * const headers = { [TOKEN_HEADER]: token, [CLIENT_HEADER]: clientId, "content-type": "application/json" };
 * ```
 */
export const TOKEN_HEADER = "x-elyra-token";

/**
 * The header that names the window (its client id).
 *
 * @example
 * ```ts
 * const clientId = request.headers.get(CLIENT_HEADER); // "tab-1"
 * ```
 */
export const CLIENT_HEADER = "x-elyra-client";

/**
 * What `POST /key` takes as a key: an Anthropic API key's shape (`sk-ant-…`), nothing else.
 *
 * @example
 * ```ts
 * if (!API_KEY_PATTERN.test(input.value)) showError("That is not an Anthropic API key.");
 * ```
 */
export const API_KEY_PATTERN = /^sk-ant-[A-Za-z0-9_-]{16,256}$/;

/**
 * The largest body a route reads (64 KiB); a longer one is answered 413.
 *
 * @example
 * ```ts
 * const body = JSON.stringify({ text });
 * if (new TextEncoder().encode(body).length > MAX_BODY_BYTES) showError("That prompt is too long.");
 * ```
 */
export const MAX_BODY_BYTES = 64 * 1024;

/** `POST /prompt`'s answer: the number of the turn that started. */
export interface PromptAccepted {
  readonly turn: number;
}

/**
 * What became of a confirmation's answer. `Answered` settled it (`edited`:
 * accepted with the arguments the user changed); `Mismatch` (the echo named
 * another tool or arguments, or the edit changed what may not be changed)
 * settled it as declined; `InvalidEdit` (the edited arguments don't decode:
 * `issues` say why) and the others changed nothing. The type of the
 * contract's `AnswerResult` schema (`runtime/calls/answerResult.ts`), imported
 * as a type only: the browser bundle holds none of it.
 */
export type ConfirmResult = AnswerResult;

/** `POST /confirm`'s answer. */
export interface ConfirmResponse {
  readonly result: ConfirmResult;
}

/**
 * Where the user's steps go: the backend proxy, their own key, the host's
 * `ANTHROPIC_API_KEY`, nowhere; or `app`, the model the app gave its host
 * (a host whose routes were given no model source, or a model that is not
 * Claude, such as a demo's).
 */
export type SourceName = "backend" | "userKey" | "environment" | "app" | "none";

/**
 * `POST /usage`'s answer: how much the conversation's last request held,
 * what counts against its budget since it was last started anew and the
 * budget, and what it cost so far in US dollars at the host's prices
 * (`null` when a model it used has no price there). `POST /usage?cost=false`
 * leaves `dollars` out: the budget alone, which the host has in memory, where
 * the cost is read from the log.
 */
export interface UsageResponse {
  readonly context: number;
  readonly budget: { readonly used: number; readonly max: number };
  readonly dollars?: number | null;
}

/** `POST /source`'s answer. */
export interface SourceResponse {
  readonly source: SourceName;
  /**
   * Whether `POST /key` can keep a key of the user's here: the host was
   * given a secrets store. A panel shows its key settings only when it can.
   * A host older than this field leaves it out: read that as false.
   */
  readonly canSaveKey?: boolean;
  /**
   * What the panel's banner says about what answers (a demo model, say), for
   * this user now: a sentence, or `null` for no banner. Sent only by a host
   * given a `notice`; absent, the panel's own `notice` attribute stands.
   */
  readonly notice?: string | null;
}

/** A tool as `POST /tools` lists it: offered to this user now. */
export interface ToolInfo {
  readonly name: string;
  readonly description: string;
  /** Whether the user is asked before it runs. */
  readonly asksFirst: boolean;
}

/**
 * What an error answer's `type` says:
 * - `forbidden` (403): the host's token is missing or wrong;
 * - `unauthenticated` (401): `authenticate` found no user;
 * - `notYourWindow` (403): the client id names another user's window;
 * - `badRequest` (400): a header, query or body that does not decode, named in the message;
 * - `tooLarge` (413): a body over {@link MAX_BODY_BYTES};
 * - `tooSlow` (408): a body not all arrived 10 s after it was first read (the connection is closed);
 * - `turnInProgress`, `windowFailed`, `closed` (409): the prompt (or reset) cannot start now;
 * - `noAssistant` (404): the app has no assistant;
 * - `hostFull` (429, with `retry-after`): a new window while the host's `maxWindows` are open and none idle;
 * - `tooManyStreams` (429): an event stream past `maxStreamsPerWindow` or `maxStreamsPerUser`;
 * - `notConfigured` (404): `/key` on a host given no secrets store or model source;
 * - live queries refused: `unknownCommand`, `notLive`, `badArguments`, `tooMany` (400),
 *   `notAllowed`, `noAbility` (403);
 * - `notFound` (404), `methodNotAllowed` (405);
 * - `internal` (500): nothing more is said; the host logs it.
 */
export type ErrorType =
  | "forbidden"
  | "unauthenticated"
  | "notYourWindow"
  | "badRequest"
  | "tooLarge"
  | "tooSlow"
  | "turnInProgress"
  | "windowFailed"
  | "closed"
  | "noAssistant"
  | "hostFull"
  | "tooManyStreams"
  | "notConfigured"
  | "unknownCommand"
  | "notLive"
  | "badArguments"
  | "tooMany"
  | "notAllowed"
  | "noAbility"
  | "notFound"
  | "threadNotFound"
  | "methodNotAllowed"
  | "internal";

/** Every error answer: a type a program can test and a message a person can read. */
export interface ErrorBody {
  readonly error: { readonly type: ErrorType; readonly message: string };
}

/**
 * The routes, relative to the base path:
 * - `POST /prompt` → 202 `{turn}` (the turn runs on; watch `/events`), 409 while a turn runs;
 *   its body is a {@link PromptBody}, as JSON, at most {@link MAX_BODY_BYTES} (413 beyond);
 * - `POST /confirm` → 200 `{result}`, a {@link ConfirmResult} (`Answered`, `UnknownConfirmation`, …);
 * - `POST /stop`, `POST /reset` → 204;
 * - `POST /tools` → 200 `{tools: ToolInfo[]}`;
 * - `POST /selected` → 204;
 * - `POST /key` → 204: keeps the user's API key ({@link KeyBody}), or forgets it (`{key: null}`);
 *   never read back; a key not shaped like one is a 400 that does not repeat it;
 * - `POST /source` → 200 {@link SourceResponse}: where the user's steps go now, and whether a key can be kept;
 * - `POST /usage` (`?cost=false`: without the cost) → 200 {@link UsageResponse}: what the conversation used, cost and has left;
 * - `POST /close` → 204: the window is closed if it is open (a page saying goodbye), never opened to be closed;
 * - `GET /events` → SSE, each log event as `id: <seq>.<epoch>` and `data: <json>`, resumable with
 *   `Last-Event-ID`; a point the log does not have gets `event: startOver` first, then the whole log;
 * - `GET /live?command=…&args=<json>` → SSE, each result as `data: <json LiveResult>`; closing it ends the query;
 * - `POST /threads` → 200 {@link ThreadsResponse}: a page of the user's threads (`{archived?, after?, limit?}`);
 * - `POST /threads/search` → 200 {@link ThreadsResponse} of {@link ThreadFound}s (`{text, limit?}`);
 * - `POST /threads/get` → 200 {@link ThreadInfo} (`{id}`); `threads/rename` (`{id, title}`),
 *   `threads/archive` (`{id, archived?}`), `threads/delete` (`{id}`: erased for good) → 204. A
 *   thread that is not the user's is a 404 `threadNotFound`, the same as one that never was.
 *
 * @example
 * ```ts
 * const paths = ROUTES.map((route) => `${BASE_PATH}/${route}`); // ["/__assistant/prompt", …]
 * ```
 */
export const ROUTES = [
  "prompt",
  "confirm",
  "stop",
  "reset",
  "close",
  "tools",
  "selected",
  "key",
  "source",
  "usage",
  "events",
  "live",
  "threads",
  "threads/search",
  "threads/get",
  "threads/rename",
  "threads/archive",
  "threads/delete",
] as const;

/**
 * The method each route takes: a route added to {@link ROUTES} must be given one here.
 *
 * @example
 * ```ts
 * ROUTE_METHODS.events; // "GET"
 * ROUTE_METHODS.prompt; // "POST"
 * ```
 */
export const ROUTE_METHODS: Readonly<Record<(typeof ROUTES)[number], "GET" | "POST">> = {
  prompt: "POST",
  confirm: "POST",
  stop: "POST",
  reset: "POST",
  close: "POST",
  tools: "POST",
  selected: "POST",
  key: "POST",
  source: "POST",
  usage: "POST",
  events: "GET",
  live: "GET",
  threads: "POST",
  "threads/search": "POST",
  "threads/get": "POST",
  "threads/rename": "POST",
  "threads/archive": "POST",
  "threads/delete": "POST",
};

/**
 * A thread as its owner's list shows it: its id (a window's client id: open
 * it by sending that), title (empty: untitled, the client's word for it),
 * when it began and was last used (ms since the epoch), a preview of its
 * last answer, its turns, whether archived.
 *
 * @example
 * ```ts
 * const label = thread.title === "" ? "New conversation" : thread.title;
 * ```
 */
export type ThreadInfo = Omit<ThreadEntry, "owner" | "seq">;

/** A thread a search found, with the words around what matched. */
export type ThreadFound = ThreadInfo & Pick<ThreadHit, "snippet">;

/**
 * `POST /threads` and `POST /threads/search`'s answer: threads, most recently
 * used first; a list's `next` asks for the page after it (`{after: next}`).
 *
 * @example
 * ```ts
 * const page: ThreadsResponse = await (await fetch(`${BASE_PATH}/threads`, { method: "POST", headers, body: "{}" })).json();
 * ```
 */
export interface ThreadsResponse<T extends ThreadInfo = ThreadInfo> {
  readonly threads: ReadonlyArray<T>;
  readonly next?: string;
}
