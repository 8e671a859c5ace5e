/**
 * The wire between a window in the browser and its host, as the HTTP handler
 * reads it: the plain contract (`../web/wire.ts`, which the browser client
 * imports too) and the schemas that decode each request's headers, query and
 * body. Pure: no Node built-ins.
 */
import { Schema } from "effect";
import { EVENT_ID_PATTERN } from "../../runtime/log/resumePoint.ts";

export * from "../web/wire.ts";

/**
 * A client id: 1 to 128 letters, digits, `_` or `-`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * Schema.is(ClientId)("tab-1"); // true
 * Schema.is(ClientId)("tab 1"); // false
 * ```
 */
export const ClientId = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9_-]{1,128}$/, {
    message: () => "must be 1 to 128 letters, digits, _ or -",
  }),
);

/**
 * `POST /prompt` as an object: the text and the route the user is on.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const body = Schema.decodeUnknownSync(PromptFields)({ text: "What is overdue?", route: "/invoices" });
 * ```
 */
export const PromptFields = Schema.Struct({
  text: Schema.String,
  route: Schema.optional(Schema.NullOr(Schema.String)),
});

/**
 * `POST /prompt`: the text and the route the user is on, or a bare string.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const decode = Schema.decodeUnknownSync(PromptBody);
 * decode("What is overdue?"); // "What is overdue?"
 * decode({ text: "Show Ada", route: "/customers" }); // { text: "Show Ada", route: "/customers" }
 * ```
 */
export const PromptBody = Schema.Union(Schema.String, PromptFields);

/**
 * `POST /confirm`: the answer to one confirmation, echoing what the dialog
 * showed; `edited`, with `accept: true`, the whole arguments as the user
 * changed them on the dialog.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const body = Schema.decodeUnknownSync(ConfirmBody)({
 *   confirmId: "c-1",
 *   accept: true,
 *   tool: "invoices_remind",
 *   args: { id: 7 },
 * });
 * ```
 */
export const ConfirmBody = Schema.Struct({
  confirmId: Schema.String,
  accept: Schema.Boolean,
  tool: Schema.optional(Schema.String),
  args: Schema.optional(Schema.Unknown),
  edited: Schema.optional(Schema.Unknown),
});

/**
 * `POST /selected`: what is selected of one kind (`[]` clears it), on a route.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const body = Schema.decodeUnknownSync(SelectedBody)({ kind: "customer", ids: [3, 7], route: "/customers" });
 * ```
 */
export const SelectedBody = Schema.Struct({
  kind: Schema.String,
  ids: Schema.Array(Schema.Union(Schema.String, Schema.Number)),
  route: Schema.optional(Schema.NullOr(Schema.String)),
});

/**
 * `POST /key`: the user's own Anthropic API key to keep, or `null` to forget
 * it. Write-only: no route reads it back.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * Schema.decodeUnknownSync(KeyBody)({ key: null }); // forget the user's key
 * ```
 */
export const KeyBody = Schema.Struct({ key: Schema.NullOr(Schema.String) });

/**
 * The query of `GET /live?command=…&args=<json>`: a live query, streamed as SSE until the request ends.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const url = new URL(request.url);
 * const query = Schema.decodeUnknownSync(LiveQuery)(Object.fromEntries(url.searchParams));
 * query.command; // "invoices_index"
 * ```
 */
export const LiveQuery = Schema.Struct({
  command: Schema.String,
  args: Schema.optional(Schema.String),
});

/**
 * `GET /events` resumes after the `Last-Event-ID` header (or `?lastEventId=`):
 * the id of the last event the window has (its seq, `.` and the log's epoch),
 * or a bare seq.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * Schema.is(LastEventId)("42.m4x7q2"); // true: seq 42 of that log
 * Schema.is(LastEventId)("42"); // true, a bare seq
 * ```
 */
export const LastEventId = Schema.String.pipe(
  Schema.pattern(EVENT_ID_PATTERN, {
    message: () => "must be the id of an event: its seq, optionally . and the log's epoch",
  }),
);

/**
 * `POST /threads`: which page of the user's threads (archived ones apart).
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * Schema.decodeUnknownSync(ThreadsBody)({ archived: false, limit: 20 });
 * ```
 */
export const ThreadsBody = Schema.Struct({
  archived: Schema.optional(Schema.Boolean),
  after: Schema.optional(Schema.String.pipe(Schema.maxLength(1_024))),
  limit: Schema.optional(Schema.Number),
});

/**
 * `POST /threads/search`: the words to find (literal text, read up to 256 characters).
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * Schema.decodeUnknownSync(ThreadSearchBody)({ text: "credit limit" });
 * ```
 */
export const ThreadSearchBody = Schema.Struct({
  text: Schema.String,
  limit: Schema.optional(Schema.Number),
});

/**
 * `POST /threads/get` and `/threads/delete`: which of the user's threads.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * Schema.decodeUnknownSync(ThreadBody)({ id: "t-4f2a" });
 * ```
 */
export const ThreadBody = Schema.Struct({ id: ClientId });

/**
 * `POST /threads/rename`: the thread and its new name (empty: its first prompt's again).
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * Schema.decodeUnknownSync(RenameBody)({ id: "t-4f2a", title: "Ada's limit" });
 * ```
 */
export const RenameBody = Schema.Struct({ id: ClientId, title: Schema.String });

/**
 * `POST /threads/archive`: the thread, archived (`true`, the default) or brought back.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * Schema.decodeUnknownSync(ArchiveBody)({ id: "t-4f2a", archived: false });
 * ```
 */
export const ArchiveBody = Schema.Struct({
  id: ClientId,
  archived: Schema.optional(Schema.Boolean),
});
