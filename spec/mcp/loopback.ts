/**
 * `mcpHttp` on a real loopback server for specs (port 0, through
 * `toNodeListener`), a clock that moves only when told, and the SDK's own
 * `Client` over Streamable HTTP. Each spec file makes one `loopback()` and
 * calls its `cleanup` after each test.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StreamableHTTPClientTransport,
  type StreamableHTTPClientTransportOptions,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { App, Clock } from "elyra-assistant";
import { toNodeListener } from "elyra-assistant/http";
import { type McpHttpHandler, type McpHttpOptions, mcpHttp } from "elyra-assistant/mcp";

/** A clock that moves only when told; its timers fire only by `fire()`. */
export const manualClock = () => {
  let now = 1_000_000;
  const timers = new Map<number, () => void>();
  let next = 0;
  const clock: Clock & { advance: (ms: number) => void; fire: () => void; timers: number } = {
    now: () => now,
    setTimeout: (fn) => {
      timers.set(++next, fn);
      return next;
    },
    clearTimeout: (handle: number) => {
      timers.delete(handle);
    },
    advance: (ms) => {
      now += ms;
    },
    fire: () => {
      const due = [...timers.values()];
      timers.clear();
      for (const fn of due) fn();
    },
    get timers() {
      return timers.size;
    },
  };
  return clock;
};

export interface ConnectOptions {
  readonly headers?: Record<string, string>;
  readonly capabilities?: ClientCapabilities;
  readonly fetch?: StreamableHTTPClientTransportOptions["fetch"];
}

/** A loopback server per test; every request's method is kept in `methods`, in order. */
export const loopback = () => {
  let server: Server | undefined;
  let handler: McpHttpHandler | undefined;
  const clients: Client[] = [];
  const methods: string[] = [];

  const serve = async (app: App, options: McpHttpOptions = {}) => {
    const handle = mcpHttp(app, options);
    handler = handle;
    const listening = createServer(
      toNodeListener((request) => {
        methods.push(request.method);
        return handle(request);
      }),
    );
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
    const { port } = listening.address() as AddressInfo;
    return { url: new URL(`http://127.0.0.1:${port}/mcp`), handler: handle };
  };

  const connect = async (url: URL, options: ConnectOptions = {}) => {
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: options.headers ?? {} },
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    });
    const client = new Client(
      { name: "http-spec", version: "1.0.0" },
      { capabilities: options.capabilities ?? {} },
    );
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  };

  const cleanup = async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await handler?.close();
    const running = server;
    if (running !== undefined) {
      running.closeAllConnections();
      await new Promise((resolve) => running.close(resolve));
    }
    server = undefined;
    handler = undefined;
    methods.length = 0;
  };

  return { serve, connect, cleanup, methods, clients };
};

/** The text of a tool result. */
export const textOf = (result: Awaited<ReturnType<Client["callTool"]>>): string =>
  (result.content as Array<{ text?: string }>).map((part) => part.text ?? "").join("");

/**
 * A `fetch` for a client that never opens the optional standalone GET event
 * stream: its GETs are answered 405 where they start (the SDK's client then
 * goes on without one), and never reach the server.
 */
export const withoutGetStream: NonNullable<StreamableHTTPClientTransportOptions["fetch"]> = (
  input,
  init,
) =>
  (init?.method ?? "GET") === "GET"
    ? Promise.resolve(new Response(null, { status: 405 }))
    : fetch(input, init);
