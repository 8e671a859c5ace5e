/**
 * Tool search as the Messages API plays it, for the stand-in Messages API
 * and the fake model: a reply's `searchTools` runs over the request's
 * deferred tools and starts the reply with the `server_tool_use` and
 * `tool_search_tool_result` blocks the API sends; requests the API refuses
 * are refused with its 400s; and a script that calls a deferred tool no
 * search loaded is refused too, so a test cannot pass on a call the model
 * could not have made.
 */
import type { Ids } from "../runtime/ports/ids.ts";
import type { ContentBlock } from "../runtime/prompt/model.ts";
import { TOOL_SEARCH_TYPE, toolSearchName } from "../runtime/prompt/toolSearch.ts";
import { fails, type ScriptedFailure, type ScriptedReply } from "./script.ts";

/** The tools a search returns unless asked for another number, as the API. */
export const SEARCH_LIMIT = 5;
/** The longest regex pattern the regex variant takes. */
export const MAX_PATTERN_CHARS = 200;
/** The longest query the BM25 variant takes. */
export const MAX_QUERY_CHARS = 500;

/** What a search answers: the references of the tools it found, or why it could not search. */
export type ToolSearchContent =
  | {
      readonly type: "tool_search_tool_search_result";
      readonly tool_references: ReadonlyArray<{
        readonly type: "tool_reference";
        readonly tool_name: string;
      }>;
    }
  | {
      readonly type: "tool_search_tool_result_error";
      readonly error_code: "invalid_tool_input";
      readonly error_message: string;
    };

/** A request as far as tool search reads it: the wire body, or a model port request. */
export interface SearchedRequest {
  readonly tools?: unknown;
  readonly messages?: unknown;
}

type Json = Readonly<Record<string, unknown>>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const toolsOf = (request: SearchedRequest): ReadonlyArray<Json> =>
  Array.isArray(request.tools) ? request.tools.filter(isObject) : [];

const deferred = (tool: Json): boolean => tool.defer_loading === true;

/** Each content block of the request's messages, with where it is. */
const blocksOf = (request: SearchedRequest): Array<{ block: Json; at: string }> => {
  const messages = Array.isArray(request.messages) ? request.messages : [];
  return messages.flatMap((message, i) => {
    const content = isObject(message) ? message.content : undefined;
    if (!Array.isArray(content)) return [];
    return content.flatMap((block, j) =>
      isObject(block) ? [{ block, at: `messages.${i}.content.${j}` }] : [],
    );
  });
};

/**
 * The tool names a block references: a search result's, or a custom
 * search's `tool_result`.
 *
 * @example
 * ```ts
 * referencesIn(searchResultBlock); // ["invoices_index"]
 * ```
 */
export const referencesIn = (block: Json): ReadonlyArray<string> => {
  const items =
    block.type === "tool_search_tool_result" && isObject(block.content)
      ? block.content.tool_references
      : block.type === "tool_result"
        ? block.content
        : undefined;
  if (!Array.isArray(items)) return [];
  return items.flatMap((item) =>
    isObject(item) && item.type === "tool_reference" && typeof item.tool_name === "string"
      ? [item.tool_name]
      : [],
  );
};

/**
 * Why the API would refuse this request's tool search, if it would (a 400
 * with the API's message): every tool deferred; a `tool_reference` naming
 * a tool the request does not have; a `tool_result` answering a server
 * tool use (`srvtoolu_…`), whose result the API gives itself.
 *
 * @example
 * ```ts
 * toolSearchProblem({ tools: [{ name: "a", defer_loading: true }], messages: [] })?.error.message;
 * // "At least one tool must have defer_loading=false. All tools cannot be deferred."
 * ```
 */
export const toolSearchProblem = (request: SearchedRequest): ScriptedFailure | undefined => {
  const tools = toolsOf(request);
  if (tools.length > 0 && tools.every(deferred)) {
    return fails(
      400,
      "invalid_request_error",
      "At least one tool must have defer_loading=false. All tools cannot be deferred.",
    );
  }
  const names = new Set(tools.map((tool) => tool.name));
  for (const { block, at } of blocksOf(request)) {
    const unknown = referencesIn(block).find((name) => !names.has(name));
    if (unknown !== undefined) {
      return fails(
        400,
        "invalid_request_error",
        `Tool reference '${unknown}' not found in available tools`,
      );
    }
    const id = block.tool_use_id;
    if (block.type === "tool_result" && typeof id === "string" && id.startsWith("srvtoolu_")) {
      return fails(
        400,
        "invalid_request_error",
        `${at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
      );
    }
  }
  return undefined;
};

/** What a search reads of a tool: its name, description, and its arguments' names and descriptions. */
const fieldsOf = (tool: Json): string[] => {
  const fields: string[] = [];
  if (typeof tool.name === "string") fields.push(tool.name);
  if (typeof tool.description === "string") fields.push(tool.description);
  const walk = (schema: unknown, depth: number): void => {
    if (depth > 16) return;
    if (Array.isArray(schema)) {
      for (const item of schema) walk(item, depth + 1);
      return;
    }
    if (!isObject(schema)) return;
    if (depth > 0 && typeof schema.description === "string") fields.push(schema.description);
    if (isObject(schema.properties)) fields.push(...Object.keys(schema.properties));
    for (const value of Object.values(schema)) walk(value, depth + 1);
  };
  walk(tool.input_schema, 0);
  return fields;
};

/**
 * A text's terms for BM25: split at camelCase and at anything not a letter
 * or digit, lower-cased, a plural's `s` dropped from words over three letters.
 */
export const termsOf = (text: string): string[] =>
  text
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((term) => term !== "")
    .map((term) =>
      term.length > 3 && term.endsWith("s") && !term.endsWith("ss") ? term.slice(0, -1) : term,
    );

/** BM25's usual constants. */
const K1 = 1.2;
const B = 0.75;

/** The tools ranked by BM25 over their fields, best first (ties in the request's order); only those that match. */
const bm25 = (tools: ReadonlyArray<Json>, query: string): ReadonlyArray<Json> => {
  const docs = tools.map((tool) => termsOf(fieldsOf(tool).join(" ")));
  const average = docs.reduce((sum, doc) => sum + doc.length, 0) / Math.max(1, docs.length);
  const queryTerms = [...new Set(termsOf(query))];
  const holding = new Map(
    queryTerms.map((term) => [term, docs.filter((doc) => doc.includes(term)).length]),
  );
  const scored = docs.map((doc, index) => {
    let score = 0;
    for (const term of queryTerms) {
      const frequency = doc.filter((t) => t === term).length;
      if (frequency === 0) continue;
      const n = holding.get(term) ?? 0;
      const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
      score +=
        (idf * frequency * (K1 + 1)) /
        (frequency + K1 * (1 - B + (B * doc.length) / Math.max(1, average)));
    }
    return { index, score };
  });
  return scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((s) => tools[s.index] as Json);
};

/**
 * A search over `tools` (the request's deferred ones) as the API runs it:
 * BM25 over natural-language `query` (at most 500 characters), or with
 * `regex`, `query` a case-insensitive pattern (at most 200 characters) that
 * must match one of a tool's fields; at most `limit` references (5 unless
 * given), best first. Each tool is read by its name, description, and its
 * arguments' names and descriptions. A bad pattern or a query too long is
 * the API's `invalid_tool_input`; finding nothing is an empty result.
 *
 * @example
 * ```ts
 * searchTools(tools, "bm25", "overdue invoices").tool_references;
 * // [{ type: "tool_reference", tool_name: "invoices_index" }, …]
 * ```
 */
export const searchTools = (
  tools: ReadonlyArray<unknown>,
  variant: "bm25" | "regex",
  query: string,
  limit = SEARCH_LIMIT,
): ToolSearchContent => {
  const searched = tools.filter(isObject);
  const invalid = (message: string): ToolSearchContent => ({
    type: "tool_search_tool_result_error",
    error_code: "invalid_tool_input",
    error_message: message,
  });
  let found: ReadonlyArray<Json>;
  if (variant === "bm25") {
    if (query.length > MAX_QUERY_CHARS)
      return invalid(`Query is longer than ${MAX_QUERY_CHARS} characters`);
    found = bm25(searched, query);
  } else {
    if (query.length > MAX_PATTERN_CHARS)
      return invalid(`Pattern is longer than ${MAX_PATTERN_CHARS} characters`);
    let pattern: RegExp;
    try {
      pattern = new RegExp(query, "i");
    } catch (error) {
      return invalid(`Invalid regular expression pattern: ${(error as Error).message}`);
    }
    found = searched.filter((tool) => fieldsOf(tool).some((field) => pattern.test(field)));
  }
  return {
    type: "tool_search_tool_search_result",
    tool_references: found
      .slice(0, Math.max(0, limit))
      .map((tool) => ({ type: "tool_reference", tool_name: String(tool.name) })),
  };
};

/**
 * A reply as the API gives it with tool search: its `searchTools` run over
 * the request's deferred tools with the request's tool search tool, the
 * reply's `blocks` starting with the `server_tool_use` (its `id`
 * `srvtoolu_…` from `ids`, its input `{ query }` for BM25 or `{ pattern }`
 * for regex) and the `tool_search_tool_result` (after the reply's thinking
 * and text, before its other blocks and tool calls). A reply without
 * `searchTools` is given back as it is.
 *
 * A script that cannot be played is refused with a 500 `api_error` that is
 * not retried: a `searchTools` when the request has no tool search tool, or
 * a tool call naming a deferred tool no search has loaded (in this reply,
 * or in the request's messages: a search result, or a custom search's
 * `tool_reference`s).
 *
 * @example
 * ```ts
 * const played = playToolSearch(request.body as SearchedRequest, { searchTools: "overdue invoices" }, ids);
 * ```
 */
export const playToolSearch = (
  request: SearchedRequest,
  reply: ScriptedReply,
  ids: Ids,
): ScriptedReply | ScriptedFailure => {
  const tools = toolsOf(request);
  const loaded = new Set(blocksOf(request).flatMap(({ block }) => referencesIn(block)));
  let played = reply;
  if (reply.searchTools !== undefined) {
    const tool = tools.find((t) => typeof t.type === "string" && TOOL_SEARCH_TYPE.test(t.type)) as
      | (Json & { readonly type: string })
      | undefined;
    if (tool === undefined) {
      return fails(
        500,
        "api_error",
        `the script searches for tools (${JSON.stringify(reply.searchTools)}), but the request has no tool search tool`,
        { shouldRetry: false },
      );
    }
    const variant = tool.type.startsWith("tool_search_tool_regex") ? "regex" : "bm25";
    const id = `srvtoolu_${ids.next()}`;
    const content = searchTools(tools.filter(deferred), variant, reply.searchTools);
    const blocks: ContentBlock[] = [
      {
        type: "server_tool_use",
        id,
        name: typeof tool.name === "string" ? tool.name : toolSearchName(tool.type),
        input: variant === "regex" ? { pattern: reply.searchTools } : { query: reply.searchTools },
      },
      { type: "tool_search_tool_result", tool_use_id: id, content },
    ];
    if (content.type === "tool_search_tool_search_result") {
      for (const reference of content.tool_references) loaded.add(reference.tool_name);
    }
    played = { ...reply, blocks: [...blocks, ...(reply.blocks ?? [])] };
  }
  const deferredNames = new Set(tools.filter(deferred).map((tool) => tool.name));
  const call = (reply.toolCalls ?? []).find(
    (c) => deferredNames.has(c.name) && !loaded.has(c.name),
  );
  if (call !== undefined) {
    return fails(
      500,
      "api_error",
      `the script calls ${call.name}, a deferred tool no search loaded: script a searchTools that finds it first`,
      { shouldRetry: false },
    );
  }
  return played;
};
