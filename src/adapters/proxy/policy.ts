/**
 * What the proxy lets through, read off the request body: the body decoded
 * by its schema, then the model, the token cap, server tools, MCP servers,
 * URL sources and streaming, each checked against the settings. Pure:
 * nothing here goes upstream.
 */
import { Either, Schema } from "effect";
import { decode } from "../web/body.ts";
import { invalid, type ProxyRefusal, STREAMING_REFUSED, unprocessable } from "./errors.ts";
import { findUrlSource } from "./urlSources.ts";

/** A tool as far as the proxy reads it: a plain client tool has no `type`, or `custom`. */
const ToolEntry = Schema.Struct({
  name: Schema.String,
  type: Schema.optional(Schema.String),
});

/**
 * The fields of a Messages request the proxy checks; the rest are forwarded
 * as sent, for the API to judge.
 */
export const MessagesRequest = Schema.Struct({
  model: Schema.String,
  max_tokens: Schema.Int.pipe(Schema.positive()),
  messages: Schema.Array(Schema.Unknown),
  system: Schema.optional(Schema.Unknown),
  stream: Schema.optional(Schema.Boolean),
  tools: Schema.optional(Schema.Array(ToolEntry)),
  mcp_servers: Schema.optional(Schema.Array(Schema.Unknown)),
});
export type MessagesRequest = typeof MessagesRequest.Type;

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

/** Why a tool is refused, if it is: any `type` but `custom` is a server tool. */
const toolRefusal = (
  tool: typeof ToolEntry.Type,
  index: number,
  policy: Policy,
): ProxyRefusal | undefined => {
  if (tool.type === undefined || tool.type === "custom") return undefined;
  if (policy.codeExecution && CODE_EXECUTION.test(tool.type)) return undefined;
  return unprocessable(
    `tools[${index}]: the server tool ${JSON.stringify(tool.type)} (${JSON.stringify(tool.name)}) isn't proxied`,
  );
};

/**
 * The request, decoded and checked in order: the body's fields (400 naming
 * the field), the model (422), `max_tokens` (422), server tools and MCP
 * servers (422), URL sources in the messages or the system prompt (422),
 * streaming (422).
 */
export const checkRequest = (
  json: unknown,
  policy: Policy,
): Either.Either<MessagesRequest, ProxyRefusal> => {
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
  const tools = body.tools ?? [];
  for (let i = 0; i < tools.length; i++) {
    const refusal = toolRefusal(tools[i] as typeof ToolEntry.Type, i, policy);
    if (refusal !== undefined) return Either.left(refusal);
  }
  if ((body.mcp_servers ?? []).length > 0) {
    return Either.left(unprocessable("mcp_servers: MCP servers aren't proxied"));
  }
  if (!policy.allowUrlSources) {
    const at = findUrlSource(body.messages, "messages") ?? findUrlSource(body.system, "system");
    if (at !== undefined) return Either.left(unprocessable(urlSourceRefused(at)));
  }
  if (body.stream === true && !policy.stream) return Either.left(unprocessable(STREAMING_REFUSED));
  return Either.right(body);
};
