/**
 * What the proxy lets through, read off the request body: only the fields
 * it knows, each with its rule (an allowlist: any other field is refused),
 * the body decoded by its schema, then the model, the token cap, thinking's
 * budget, server tools, MCP servers, containers, URL sources and streaming,
 * each checked against the settings. Pure: nothing here goes upstream.
 */
import { Either, Schema } from "effect";
import { TOOL_SEARCH_TYPE } from "../../runtime/prompt/toolSearch.ts";
import { decode } from "../web/body.ts";
import { invalid, type ProxyRefusal, STREAMING_REFUSED, unprocessable } from "./errors.ts";
import { findUrlSource } from "./urlSources.ts";

/** At most this many `stop_sequences`, as the API allows. */
const MAX_STOP_SEQUENCES = 8_191;

/** A container's id is the API's: a short string. */
const MAX_CONTAINER_ID = 256;

/** A tool as far as the proxy reads it: a plain client tool has no `type`, or `custom`. */
const ToolEntry = Schema.Struct({
  name: Schema.String,
  type: Schema.optional(Schema.String),
});

/** Extended thinking: on with a budget (under `max_tokens`), adaptive, or off. */
const Thinking = Schema.Union(
  Schema.Struct({
    type: Schema.Literal("enabled"),
    budget_tokens: Schema.Int.pipe(Schema.positive()),
  }),
  Schema.Struct({ type: Schema.Literal("adaptive") }),
  Schema.Struct({ type: Schema.Literal("disabled") }),
);

/** A number in [0, 1]: `temperature` and `top_p`. */
const Unit = Schema.Number.pipe(Schema.between(0, 1));

/**
 * Every field of a Messages request the proxy forwards, each with its rule;
 * a request with any other field (`service_tier`, a beta's field, …) is
 * refused, so nothing reaches upstream that the proxy did not judge.
 * `messages`, `system` and `tool_choice` are the API's to judge; `metadata`
 * is replaced by the proxy's own (the signed-in user's opaque id).
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const request = Schema.decodeUnknownSync(MessagesRequest)({
 *   model: "claude-sonnet-4-5",
 *   max_tokens: 1024,
 *   messages: [{ role: "user", content: "Hello" }],
 * });
 * ```
 */
export const MessagesRequest = Schema.Struct({
  model: Schema.String,
  max_tokens: Schema.Int.pipe(Schema.positive()),
  messages: Schema.Array(Schema.Unknown),
  system: Schema.optional(Schema.Unknown),
  stream: Schema.optional(Schema.Boolean),
  tools: Schema.optional(Schema.Array(ToolEntry)),
  tool_choice: Schema.optional(Schema.Unknown),
  mcp_servers: Schema.optional(Schema.Array(Schema.Unknown)),
  temperature: Schema.optional(Unit),
  top_p: Schema.optional(Unit),
  top_k: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  stop_sequences: Schema.optional(
    Schema.Array(Schema.String).pipe(Schema.maxItems(MAX_STOP_SEQUENCES)),
  ),
  thinking: Schema.optional(Thinking),
  metadata: Schema.optional(
    Schema.Struct({ user_id: Schema.optional(Schema.NullOr(Schema.String)) }),
  ),
  container: Schema.optional(Schema.String.pipe(Schema.maxLength(MAX_CONTAINER_ID))),
});
export type MessagesRequest = typeof MessagesRequest.Type;

/** The members each object the proxy reads may have: the allowlist, from the schema's own fields. */
const MEMBERS: ReadonlyArray<readonly [at: string, allowed: ReadonlySet<string>]> = [
  ["", new Set(Object.keys(MessagesRequest.fields))],
  ["thinking", new Set(["type", "budget_tokens"])],
  ["metadata", new Set(["user_id"])],
];

/** The first member the allowlist doesn't name, as `at.name`, if any. */
const unknownMember = (json: unknown): string | undefined => {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return undefined;
  for (const [at, allowed] of MEMBERS) {
    const value = at === "" ? json : (json as Record<string, unknown>)[at];
    if (typeof value !== "object" || value === null || Array.isArray(value)) continue;
    for (const name of Object.keys(value))
      if (!allowed.has(name)) return at === "" ? name : `${at}.${name}`;
  }
  return undefined;
};

/** The settings the checks read. */
export interface Policy {
  readonly models: ReadonlySet<string>;
  readonly maxTokens: number;
  readonly codeExecution: boolean;
  readonly stream: boolean;
  /** Whether content may hold URL sources, which the API fetches. */
  readonly allowUrlSources: boolean;
}

/** The refusal of a URL source, at its path: the API would fetch a URL the client chose. */
const urlSourceRefused = (at: string): string =>
  `${at}: URL sources aren't proxied (the API would fetch the URL); send the data as base64`;

/** Code execution's tool types: `code_execution_20250825`, `code_execution_20260120`, … */
const CODE_EXECUTION = /^code_execution_\d{8}$/;

/**
 * Why a tool is refused, if it is: any `type` but `custom` is a server tool.
 * Tool search (`tool_search_tool_bm25_20251119`, `…_regex_…`) is always let
 * through: it searches the request's own tools, loading the deferred ones it
 * finds, so it reaches nothing the request did not already send.
 */
const toolRefusal = (
  tool: typeof ToolEntry.Type,
  index: number,
  policy: Policy,
): ProxyRefusal | undefined => {
  if (tool.type === undefined || tool.type === "custom") return undefined;
  if (TOOL_SEARCH_TYPE.test(tool.type)) return undefined;
  if (policy.codeExecution && CODE_EXECUTION.test(tool.type)) return undefined;
  return unprocessable(
    `tools[${index}]: the server tool ${JSON.stringify(tool.type)} (${JSON.stringify(tool.name)}) isn't proxied`,
  );
};

/**
 * The request, decoded and checked in order: a field the allowlist doesn't
 * name (400 naming it), the body's fields (400 naming the field), the model
 * (422), `max_tokens` (422), thinking's budget (422), server tools (but
 * tool search, and code execution when it is on) and MCP servers (422), a
 * container without code execution (422), URL sources in the messages or
 * the system prompt (422), streaming (422).
 */
export const checkRequest = (
  json: unknown,
  policy: Policy,
): Either.Either<MessagesRequest, ProxyRefusal> => {
  const unknown = unknownMember(json);
  if (unknown !== undefined)
    return Either.left(invalid(`${unknown}: this proxy doesn't forward this field`));
  const decoded = decode(MessagesRequest, json);
  if (Either.isLeft(decoded)) return Either.left(invalid(decoded.left.message));
  const body = decoded.right;
  if (!policy.models.has(body.model)) {
    return Either.left(unprocessable(`model: ${JSON.stringify(body.model)} isn't allowed here`));
  }
  if (body.max_tokens > policy.maxTokens) {
    return Either.left(
      unprocessable(
        `max_tokens: ${body.max_tokens} is over this proxy's cap of ${policy.maxTokens}`,
      ),
    );
  }
  const { thinking } = body;
  if (thinking?.type === "enabled" && thinking.budget_tokens >= body.max_tokens) {
    return Either.left(
      unprocessable(
        `thinking.budget_tokens: ${thinking.budget_tokens} must be under max_tokens (${body.max_tokens})`,
      ),
    );
  }
  const tools = body.tools ?? [];
  for (let i = 0; i < tools.length; i++) {
    const refusal = toolRefusal(tools[i] as typeof ToolEntry.Type, i, policy);
    if (refusal !== undefined) return Either.left(refusal);
  }
  if ((body.mcp_servers ?? []).length > 0) {
    return Either.left(unprocessable("mcp_servers: MCP servers aren't proxied"));
  }
  if (body.container !== undefined && !policy.codeExecution) {
    return Either.left(
      unprocessable("container: containers are for code execution, which isn't proxied"),
    );
  }
  if (!policy.allowUrlSources) {
    const at = findUrlSource(body.messages, "messages") ?? findUrlSource(body.system, "system");
    if (at !== undefined) return Either.left(unprocessable(urlSourceRefused(at)));
  }
  if (body.stream === true && !policy.stream) return Either.left(unprocessable(STREAMING_REFUSED));
  return Either.right(body);
};
