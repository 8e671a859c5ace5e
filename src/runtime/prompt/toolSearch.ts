/**
 * Tool search: when a turn offers many tools, they are sent deferred
 * (`defer_loading: true`) with Anthropic's tool search tool, and the model
 * loads the few it looks for instead of reading every definition.
 */
import type { App } from "../commands/app.ts";
import type { ClientTool, ModelTool, ServerTool } from "./model.ts";
import { estimateJsonTokens } from "./tokens.ts";

/** The settings tool search reads, from the app's `assistant`. */
export type ToolSearchSettings = Pick<
  NonNullable<App["assistant"]>,
  "toolSearch" | "toolSearchAboveTools" | "toolSearchAboveTokens" | "toolSearchTool"
>;

/** Tool search tool types: `tool_search_tool_bm25_20251119`, `tool_search_tool_regex_20251119`, … */
export const TOOL_SEARCH_TYPE = /^tool_search_tool_(bm25|regex)_\d{8}$/;

/**
 * The name a tool search tool of this type is sent with: its type without
 * the date (`tool_search_tool_bm25`, `tool_search_tool_regex`).
 *
 * @example
 * ```ts
 * toolSearchName("tool_search_tool_regex_20251119"); // "tool_search_tool_regex"
 * ```
 */
export const toolSearchName = (type: string): string => type.replace(/_\d{8}$/, "");

/** Whether a request's tool is one of the app's own (no `type`, or `custom`), not a server tool. */
export const isClientTool = (tool: ModelTool): tool is ClientTool => {
  const type = (tool as { readonly type?: unknown }).type;
  return type === undefined || type === "custom";
};

/**
 * Whether a turn's client tools are searched rather than all loaded: always
 * with `toolSearch: true`, never with `false` (or with no client tool), and
 * with `"auto"` when there are more than `toolSearchAboveTools` of them or
 * their definitions, as sent, are estimated over `toolSearchAboveTokens`.
 *
 * @example
 * ```ts
 * searchesTools(app.assistant, requestTools(app.assistant, offered(app, "assistant", user)));
 * ```
 */
export const searchesTools = (
  settings: ToolSearchSettings,
  tools: ReadonlyArray<ModelTool>,
): boolean => {
  const own = tools.filter(isClientTool);
  if (own.length === 0 || settings.toolSearch === false) return false;
  if (settings.toolSearch === true) return true;
  return (
    own.length > settings.toolSearchAboveTools ||
    estimateJsonTokens(own) > settings.toolSearchAboveTokens
  );
};

/**
 * A turn's tools with tool search, when it applies ({@link searchesTools}):
 * every client tool `defer_loading: true`, server tools (code execution) as
 * they are, and the tool search tool (`{ type: toolSearchTool, name }`,
 * never deferred, so the request always has a tool loaded) last. Otherwise
 * the tools as given.
 *
 * The order is kept (the catalog's, by name), so the tools' prefix of the
 * prompt is the same turn after turn; a deferred tool is outside the cached
 * prefix anyway, and a search loads its definition further on, in the
 * conversation.
 *
 * The tools given are the request's: only those offered to this user (the
 * grant's, which the user has the ability for). The search runs over them
 * and nothing else, so it cannot surface a tool the turn did not offer, and
 * a call is still checked by the call path when it is made.
 *
 * In code mode a tool code may call (`allowed_callers`) is deferred too: the
 * API takes `defer_loading` and `allowed_callers` on the same tool (its tool
 * reference lists both for every client tool, and programmatic tool calling
 * names no conflict with tool search), and a tool code calls is loaded the
 * same way, by a search first.
 *
 * @example
 * ```ts
 * const tools = withToolSearch(app.assistant, requestTools(app.assistant, offered(app, "assistant", user)));
 * tools.at(-1); // { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" } with over 30 tools
 * ```
 */
export const withToolSearch = (
  settings: ToolSearchSettings,
  tools: ReadonlyArray<ModelTool>,
): ReadonlyArray<ModelTool> => {
  if (!searchesTools(settings, tools)) return tools;
  const search: ServerTool = {
    type: settings.toolSearchTool,
    name: toolSearchName(settings.toolSearchTool),
  };
  return [
    ...tools.map((tool) => (isClientTool(tool) ? { ...tool, defer_loading: true } : tool)),
    search,
  ];
};
