/**
 * Where a request's prompt cache breakpoints go. The request is laid out
 * stable first: the tools (in the catalog's order, deferred ones outside the
 * cached prefix), the system prompt, the conversation's earlier turns, then
 * this turn (its prompt with the window note, and its steps so far). Four
 * breakpoints, the API's most, mark the ends of what the next request will
 * repeat:
 *
 * 1. the last tool the prompt holds (not deferred): the catalog, shared by
 *    every user with the same tools;
 * 2. the system prompt (today's date, the user's name, the app's
 *    instructions): stable for a user through the day;
 * 3. the last message of the earlier turns: what the next turn repeats
 *    (earlier turns are sent as their prompt and answer only, without the
 *    note they were asked with);
 * 4. the last message: what the turn's next step repeats.
 *
 * Nothing that changes per turn sits before the third: the window note goes
 * with the turn's own prompt, after it. The first three take the TTL asked
 * for (five minutes unless `ttl: "1h"`), the last always five minutes; the
 * API reads the longest prefix cached at a breakpoint or up to 20 positions
 * before it, so each turn reads what the one before it wrote.
 */
import type Anthropic from "@anthropic-ai/sdk";

type CreateParams = Anthropic.MessageCreateParamsNonStreaming;

/**
 * How a model's requests use the prompt cache: the TTL of the stable
 * breakpoints (the tools, the system prompt, the earlier turns), five
 * minutes unless `"1h"` (a write costs 2× the input price instead of
 * 1.25×, worth it when people come back within the hour); `false` sends no
 * breakpoint at all.
 *
 * @example
 * ```ts
 * const model = anthropic({ promptCache: { ttl: "1h" } });
 * ```
 */
export type PromptCaching = false | { readonly ttl?: "5m" | "1h" };

type Control = { readonly type: "ephemeral"; readonly ttl?: "1h" };
type Json = Record<string, unknown>;

const controlOf = (ttl: "5m" | "1h" | undefined): Control =>
  ttl === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" };

/**
 * The parameters with their cache breakpoints placed (a copy: what is given
 * is not changed). At most four; a block that can't hold one (an empty text)
 * is passed over.
 *
 * @example
 * ```ts
 * const params = withCacheBreakpoints(toParams(request), { ttl: "1h" });
 * ```
 */
export const withCacheBreakpoints = (
  params: CreateParams,
  caching: PromptCaching,
): CreateParams => {
  if (caching === false) return params;
  const stable = controlOf(caching.ttl);
  const out: Json = { ...params };
  const tools = params.tools as ReadonlyArray<Json> | undefined;
  if (tools !== undefined) {
    const last = tools.findLastIndex((tool) => tool.defer_loading !== true);
    if (last >= 0) {
      out.tools = tools.map((tool, i) => (i === last ? { ...tool, cache_control: stable } : tool));
    }
  }
  if (Array.isArray(params.system) && params.system.length > 0) {
    const blocks = params.system as unknown as ReadonlyArray<Json>;
    out.system = blocks.map((block, i) =>
      i === blocks.length - 1 ? { ...block, cache_control: stable } : block,
    );
  }
  const messages = params.messages as ReadonlyArray<{ role: string; content: unknown }>;
  const prompt = messages.findLastIndex(
    (message) => message.role === "user" && typeof message.content === "string",
  );
  const marked = new Map<number, Control>();
  if (prompt > 0) marked.set(prompt - 1, stable);
  if (messages.length > 0) marked.set(messages.length - 1, { type: "ephemeral" });
  out.messages = messages.map((message, i) => {
    const control = marked.get(i);
    return control === undefined ? message : markLast(message, control);
  });
  return out as unknown as CreateParams;
};

/** A message with a breakpoint on its last block (a string content made one text block). */
const markLast = (
  message: { role: string; content: unknown },
  control: Control,
): { role: string; content: unknown } => {
  if (typeof message.content === "string") {
    return message.content === ""
      ? message
      : {
          role: message.role,
          content: [{ type: "text", text: message.content, cache_control: control }],
        };
  }
  if (!Array.isArray(message.content) || message.content.length === 0) return message;
  const blocks = message.content as ReadonlyArray<Json>;
  const last = blocks.length - 1;
  const block = blocks[last] as Json;
  if (!cacheable(block)) return message;
  return {
    role: message.role,
    content: blocks.map((b, i) => (i === last ? { ...b, cache_control: control } : b)),
  };
};

/** Whether a block may hold a breakpoint: not thinking, not an empty text. */
const cacheable = (block: Json): boolean =>
  block.type !== "thinking" &&
  block.type !== "redacted_thinking" &&
  !(block.type === "text" && block.text === "");
