/**
 * The wire between a window in the browser and its host: routes, headers and
 * bodies. Shared by the HTTP handler (`elyra-assistant/http`) and the browser
 * client (`elyra-assistant/ui`), so both read the same contract. Pure: no
 * Node built-ins.
 */
import { Schema } from "effect";

/** Where the routes are mounted unless told otherwise. */
export const BASE_PATH = "/__assistant";

/** The header that carries the host's token: every route needs it. */
export const TOKEN_HEADER = "x-elyra-token";

/** The header that names the window (its client id). */
export const CLIENT_HEADER = "x-elyra-client";

/** A client id: 1 to 128 letters, digits, `_` or `-`. */
export const ClientId = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9_-]{1,128}$/, {
    message: () => "must be 1 to 128 letters, digits, _ or -",
  }),
);

/** `POST /prompt` as an object: the text and the route the user is on. */
export const PromptFields = Schema.Struct({
  text: Schema.String,
  route: Schema.optional(Schema.NullOr(Schema.String)),
});

/** `POST /prompt`: the text and the route the user is on, or a bare string. */
export const PromptBody = Schema.Union(Schema.String, PromptFields);

/** `POST /confirm`: the answer to one confirmation, echoing what the dialog showed. */
export const ConfirmBody = Schema.Struct({
  confirmId: Schema.String,
  accept: Schema.Boolean,
  tool: Schema.optional(Schema.String),
  args: Schema.optional(Schema.Unknown),
});

/** `POST /selected`: what is selected of one kind (`[]` clears it), on a route. */
export const SelectedBody = Schema.Struct({
  kind: Schema.String,
  ids: Schema.Array(Schema.Union(Schema.String, Schema.Number)),
  route: Schema.optional(Schema.NullOr(Schema.String)),
});

/**
 * `POST /key`: the user's own Anthropic API key to keep, or `null` to forget
 * it. Write-only: no route reads it back.
 */
export const KeyBody = Schema.Struct({ key: Schema.NullOr(Schema.String) });

/** What `POST /key` takes as a key: an Anthropic API key's shape (`sk-ant-…`), nothing else. */
export const API_KEY_PATTERN = /^sk-ant-[A-Za-z0-9_-]{16,256}$/;

/** The query of `GET /live?command=…&args=<json>`: a live query, streamed as SSE until the request ends. */
export const LiveQuery = Schema.Struct({
  command: Schema.String,
  args: Schema.optional(Schema.String),
});

/**
 * `GET /events` resumes after the `Last-Event-ID` header (or `?lastEventId=`):
 * the seq of the last event the window has.
 */
export const LastEventId = Schema.String.pipe(
  Schema.pattern(/^\d{1,15}$/, { message: () => "must be the seq of an event: digits only" }),
);

/** The largest body a route reads; a longer one is answered 413. */
export const MAX_BODY_BYTES = 64 * 1024;

/** `POST /prompt`'s answer: the number of the turn that started. */
export interface PromptAccepted {
  readonly turn: number;
}

/**
 * What became of a confirmation's answer. `Answered` settled it; `Mismatch`
 * (the echo named another tool or arguments) settled it as declined; the
 * others changed nothing.
 */
export type ConfirmResult =
  | { readonly _tag: "Answered"; readonly answer: "accepted" | "declined" | "timedOut" }
  | { readonly _tag: "UnknownConfirmation" }
  | { readonly _tag: "OtherWindow" }
  | { readonly _tag: "Mismatch" };

/** `POST /confirm`'s answer. */
export interface ConfirmResponse {
  readonly result: ConfirmResult;
}

/** Where the user's steps go: the backend proxy, their own key, the host's `ANTHROPIC_API_KEY`, or nowhere. */
export type SourceName = "backend" | "userKey" | "environment" | "none";

/** `POST /source`'s answer. */
export interface SourceResponse {
  readonly source: SourceName;
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
 * - `turnInProgress`, `windowFailed`, `closed` (409): the prompt (or reset) cannot start now;
 * - `noAssistant` (404): the app has no assistant;
 * - `notConfigured` (404): `/key` or `/source` on a host given no secrets store or model source;
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
  | "turnInProgress"
  | "windowFailed"
  | "closed"
  | "noAssistant"
  | "notConfigured"
  | "unknownCommand"
  | "notLive"
  | "badArguments"
  | "tooMany"
  | "notAllowed"
  | "noAbility"
  | "notFound"
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
 * - `POST /source` → 200 {@link SourceResponse}: where the user's steps go now;
 * - `GET /events` → SSE, each log event as `id: <seq>` and `data: <json>`, resumable with `Last-Event-ID`;
 * - `GET /live?command=…&args=<json>` → SSE, each result as `data: <json LiveResult>`; closing it ends the query.
 */
export const ROUTES = [
  "prompt",
  "confirm",
  "stop",
  "reset",
  "tools",
  "selected",
  "key",
  "source",
  "events",
  "live",
] as const;

/** The method each route takes: a route added to {@link ROUTES} must be given one here. */
export const ROUTE_METHODS: Readonly<Record<(typeof ROUTES)[number], "GET" | "POST">> = {
  prompt: "POST",
  confirm: "POST",
  stop: "POST",
  reset: "POST",
  tools: "POST",
  selected: "POST",
  key: "POST",
  source: "POST",
  events: "GET",
  live: "GET",
};
