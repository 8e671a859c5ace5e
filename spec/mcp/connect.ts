/**
 * An MCP session for specs: the app's `mcpServer` and the SDK's own `Client`,
 * linked in memory. `answer` is how the client's user answers elicitations;
 * without it the client does not declare the elicitation capability.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  type CallToolResult,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { App } from "elyra-assistant";
import { type McpServerOptions, mcpServer } from "elyra-assistant/mcp";

export interface Session {
  readonly client: Client;
  readonly server: ReturnType<typeof mcpServer>;
  /** Every elicitation the client was sent. */
  readonly asked: Array<ElicitRequest["params"]>;
  readonly call: (name: string, args?: Record<string, unknown>) => Promise<CallToolResult>;
  readonly close: () => Promise<void>;
}

export const connect = async (
  app: App,
  options: McpServerOptions & {
    readonly answer?: (request: ElicitRequest["params"]) => ElicitResult | Promise<ElicitResult>;
    readonly clientName?: string;
  } = {},
): Promise<Session> => {
  const { answer, clientName, ...serverOptions } = options;
  const server = mcpServer(app, serverOptions);
  const client = new Client(
    { name: clientName ?? "cursor", version: "1.0.0" },
    answer === undefined ? {} : { capabilities: { elicitation: { form: {} } } },
  );
  const asked: Array<ElicitRequest["params"]> = [];
  if (answer !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return answer(request.params);
    });
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    client,
    server,
    asked,
    call: async (name, args) =>
      (await client.callTool(
        args === undefined ? { name } : { name, arguments: args },
      )) as CallToolResult,
    close: () => client.close(),
  };
};

/** The text of a tool result. */
export const textOf = (result: CallToolResult): string =>
  result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
