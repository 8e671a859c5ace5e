/**
 * elyra-assistant/mcp: the app's `mcp` grant as an MCP server. Each
 * connection gets its own `Server` from {@link mcpServer}; its tool calls go
 * through the same call path as the assistant's, with confirmation asked of
 * the client by elicitation.
 *
 * @packageDocumentation
 */

export { McpConfigError } from "./adapters/mcp/errors.ts";
export {
  type McpHttpHandler,
  type McpHttpOptions,
  mcpHttp,
} from "./adapters/mcp/http.ts";
export {
  MCP_MAX_MESSAGE_BYTES,
  MCP_MAX_MESSAGE_VALUES,
  MCP_SESSION_IDLE_MS,
  MCP_SESSIONS_MAX,
  MCP_SESSIONS_PER_USER,
} from "./adapters/mcp/limits.ts";
export { cannotConfirmText } from "./adapters/mcp/results.ts";
export { type McpServerOptions, mcpServer, notifyToolsChanged } from "./adapters/mcp/server.ts";
export { type McpStdio, type McpStdioOptions, serveMcpStdio } from "./adapters/mcp/stdio.ts";
