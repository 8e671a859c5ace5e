import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type CallPath, createCallPath } from "../../runtime/calls/callPath.ts";
import { CONFIRM_TIMEOUT_MS } from "../../runtime/calls/confirmer.ts";
import type { App } from "../../runtime/commands/app.ts";
import { toolOf } from "../../runtime/commands/catalog.ts";
import type { User } from "../../runtime/commands/origin.ts";
import { VERSION } from "../../runtime/version.ts";
import { elicitationConfirmer } from "./elicitationConfirmer.ts";
import { callResultOf } from "./results.ts";
import { serverSdk, typesSdk } from "./sdk.ts";
import { mcpToolOf, mcpToolsOf } from "./tools.ts";

/** Options of {@link mcpServer}; every one has a default. */
export interface McpServerOptions {
  /**
   * The host's call path, so MCP calls share its `activity$`, `audit$` and
   * rate limits. Without one, the server makes its own (with `confirmTimeoutMs`).
   */
  readonly path?: CallPath;
  /** Who commands run for (`ctx.user`), or a function of the client's name. */
  readonly user?: User | ((client: string) => User);
  /**
   * How long the client is given to confirm: 5 minutes. A shared `path` also
   * gives up at its own `confirmTimeoutMs`, whichever comes first.
   */
  readonly confirmTimeoutMs?: number;
  /** The server's name in the handshake: `elyra-assistant`. */
  readonly name?: string;
  /** The server's version in the handshake. */
  readonly version?: string;
}

/**
 * Makes a fresh MCP server over the app's `mcp` grant: one per connection or
 * session. `tools/list` is the grant's catalog (sorted, with input and output
 * schemas); `tools/call` goes through the call path as `{ kind: "agent",
 * client }` (the client's handshake name), scoped to this session, with
 * confirmation asked of the client by elicitation.
 *
 * @example
 * ```ts
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
 *
 * const server = mcpServer(app, {
 *   path: host.path,
 *   user: (client) => ({ name: client, abilities: ["customers.view"] }),
 * });
 * await server.connect(new StdioServerTransport());
 * ```
 */
export const mcpServer = (app: App, options: McpServerOptions = {}): Server =>
  mcpServerRunning(app, options, (call) => call());

/** How a server runs each tool call: `mcpHttp`'s counts the calls in progress. */
export type CallRunner = <R>(call: () => Promise<R>) => Promise<R>;

/**
 * {@link mcpServer}, each tool call run by `runCall`, so its host knows when
 * the session is in the middle of one.
 *
 * @internal
 */
export const mcpServerRunning = (
  app: App,
  options: McpServerOptions,
  runCall: CallRunner,
): Server => {
  const confirmTimeoutMs = options.confirmTimeoutMs ?? CONFIRM_TIMEOUT_MS;
  const path = options.path ?? createCallPath(app, { confirmTimeoutMs });
  // Rate limits and confirmations are kept per scope: one per server, so per session.
  const scope = `mcp:${crypto.randomUUID()}`;
  const server = new serverSdk.Server(
    { name: options.name ?? "elyra-assistant", version: options.version ?? VERSION },
    { capabilities: { tools: { listChanged: true } } },
  );
  const userOf = (client: string): User =>
    typeof options.user === "function"
      ? (options.user as (client: string) => User)(client)
      : (options.user as User);

  server.setRequestHandler(typesSdk.ListToolsRequestSchema, () => ({
    tools: mcpToolsOf(app),
  }));

  server.setRequestHandler(
    typesSdk.CallToolRequestSchema,
    (request, extra): Promise<CallToolResult> =>
      runCall(async () => {
        const client = server.getClientVersion()?.name ?? "unknown";
        const tool = request.params.name;
        let unconfirmable = false;
        const confirmer = elicitationConfirmer(server, {
          timeoutMs: confirmTimeoutMs,
          relatedRequestId: extra.requestId,
          onUnavailable: () => {
            unconfirmable = true;
          },
        });
        const outcome = await path.call(
          // MCP's `arguments` is optional: a call without any is a call with none.
          { tool, input: request.params.arguments ?? {} },
          {
            user: userOf(client),
            origin: { kind: "agent", client },
            scope,
            signal: extra.signal,
            confirmer,
          },
        );
        const command = app.mcp?.tools.get(tool);
        const structured =
          command !== undefined && mcpToolOf(toolOf(command)).outputSchema !== undefined;
        return callResultOf(outcome, { structured, unconfirmable });
      }),
  );

  return server;
};

/**
 * Tells the client the tool list changed (`notifications/tools/list_changed`),
 * e.g. after the app's grant or commands changed. A server not connected has
 * no one to tell: it resolves without sending.
 *
 * @example
 * ```ts
 * await Promise.all(sessions.map(notifyToolsChanged));
 * ```
 */
export const notifyToolsChanged = async (server: Server): Promise<void> => {
  if (server.transport === undefined) return;
  await server.sendToolListChanged();
};
