/**
 * mcpHttp on a real loopback server (toNodeListener), reached by the SDK's
 * own Client over Streamable HTTP: sessions, DELETE, idle expiry, the
 * authenticate hook, the rate limit and the tool-list notification.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Schema } from "effect";
import { createApp, createCallPath, defineCommand, VERSION } from "elyra-assistant";
import type { McpHttpOptions } from "elyra-assistant/mcp";
import { afterEach, describe, expect, it } from "vitest";
import { SOURCE_NODE_ARGS } from "../fixtures/sourceNode.ts";
import { loopback, manualClock, textOf } from "./loopback.ts";

const ran: Array<{ tool: string; user: unknown }> = [];

const Customer = Schema.Struct({ id: Schema.Number, name: Schema.String });
const customersShow = defineCommand({
  name: "customers_show",
  description: "Show one customer by id.",
  can: "customers.view",
  args: { id: Schema.Number },
  result: Customer,
  run: ({ id }, ctx) => {
    ran.push({ tool: "customers_show", user: ctx.user });
    return { id, name: `Customer ${id}` };
  },
});
const invoicesIndex = defineCommand({
  name: "invoices_index",
  description: "List invoices.",
  can: "invoices.view",
  args: {},
  run: () => [],
});

const app = createApp({
  commands: [customersShow, invoicesIndex],
  userAbilities: () => [],
  mcp: { allow: ["customers.*"], rateLimit: { calls: 3, perSeconds: 60 } },
});

const net = loopback();
afterEach(async () => {
  await net.cleanup();
  ran.length = 0;
});

const serve = (options: McpHttpOptions = {}) => net.serve(app, options);
const connect = (url: URL, headers: Record<string, string> = {}) => net.connect(url, { headers });

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
};
const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

describe("mcpHttp", () => {
  it("lists the grant's tools and calls one, through the call path", async () => {
    const { url } = await serve();
    const { client } = await connect(url);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["customers_show"]);
    expect(tools[0]?.inputSchema).toMatchObject({ type: "object", required: ["id"] });
    const result = await client.callTool({ name: "customers_show", arguments: { id: 7 } });
    expect(JSON.parse(textOf(result))).toEqual({ id: 7, name: "Customer 7" });
    expect(result.structuredContent).toEqual({ id: 7, name: "Customer 7" });
    const outside = await client.callTool({ name: "invoices_index", arguments: {} });
    expect(outside.isError).toBe(true);
    expect(textOf(outside)).toBe("unknown tool: invoices_index");
  });

  it("arguments nested 1 000 levels deep: answered invalid arguments and audited, nothing run (issue 16)", async () => {
    const path = createCallPath(app);
    const audit: string[] = [];
    path.audit$.subscribe((record) => audit.push(record.outcome));
    const { url } = await serve({ path });
    const { client } = await connect(url);
    let id: unknown = 7;
    for (let i = 0; i < 1_000; i++) id = { id };
    const result = await client.callTool({ name: "customers_show", arguments: { id } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("arguments: nested deeper than 64 levels");
    expect(audit).toEqual(["invalidArguments"]);
    expect(ran).toEqual([]);
  });

  it("keeps one session across calls, and its rate limit with it; another client has its own", async () => {
    const { url, handler } = await serve();
    const { client, transport } = await connect(url);
    const id = transport.sessionId;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    for (const n of [1, 2, 3]) {
      const ok = await client.callTool({ name: "customers_show", arguments: { id: n } });
      expect(ok.isError).toBeUndefined();
    }
    const refused = await client.callTool({ name: "customers_show", arguments: { id: 4 } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^rate limit reached for customers_show: try again in \d+ s$/);
    expect(transport.sessionId).toBe(id);
    expect(ran).toHaveLength(3);

    const other = await connect(url);
    expect(other.transport.sessionId).not.toBe(id);
    expect(handler.sessions()).toBe(2);
    const fresh = await other.client.callTool({ name: "customers_show", arguments: { id: 5 } });
    expect(fresh.isError).toBeUndefined();
  });

  it("ends a session on DELETE: its id is then unknown (404)", async () => {
    const { url, handler } = await serve();
    const { transport } = await connect(url);
    const id = transport.sessionId as string;
    expect(handler.sessions()).toBe(1);
    await transport.terminateSession();
    expect(handler.sessions()).toBe(0);
    const after = await fetch(url, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(after.status).toBe(404);
    expect(await after.json()).toMatchObject({ error: { message: "Session not found" } });
  });

  it("ends a session idle for 30 minutes, and not one that is used", async () => {
    const clock = manualClock();
    const { url, handler } = await serve({ clock });
    const busy = await connect(url);
    const idle = await connect(url);
    // Each client opens its event stream (a GET) just after connecting: that is a request too.
    await new Promise((resolve) => setTimeout(resolve, 100));
    clock.advance(20 * 60_000);
    await busy.client.listTools();
    clock.advance(10 * 60_000);
    await busy.client.listTools();
    expect(handler.sessions()).toBe(1);
    await expect(idle.client.listTools()).rejects.toThrow(/404|Session not found/);
  });

  it("ends idle sessions between requests, by a timer", async () => {
    const clock = manualClock();
    const { url, handler } = await serve({ clock });
    await connect(url);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(clock.timers).toBe(1);
    clock.advance(30 * 60_000);
    clock.fire();
    expect(handler.sessions()).toBe(0);
    expect(clock.timers).toBe(0);
  });

  it("starts no session for a request that isn't an initialize, and wants an id on GET", async () => {
    const { url, handler } = await serve();
    const list = await fetch(url, {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(list.status).toBe(400);
    const get = await fetch(url, { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(400);
    expect(handler.sessions()).toBe(0);
  });

  describe("with authenticate", () => {
    const authenticate = (request: Request) => {
      const name = request.headers.get("authorization")?.replace(/^Bearer /, "");
      return name ? { name } : undefined;
    };

    it("answers 401 JSON without a user, and starts no session", async () => {
      const { url, handler } = await serve({ authenticate });
      const response = await fetch(url, {
        method: "POST",
        headers: MCP_HEADERS,
        body: JSON.stringify(initialize),
      });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({
        error: { type: "unauthenticated", message: "no signed-in user" },
      });
      expect(handler.sessions()).toBe(0);
      await expect(connect(url)).rejects.toThrow();
    });

    it("runs commands for the session's user, and hides the session from anyone else", async () => {
      const { url } = await serve({ authenticate });
      const { client, transport } = await connect(url, { authorization: "Bearer ada" });
      await client.callTool({ name: "customers_show", arguments: { id: 1 } });
      expect(ran).toEqual([{ tool: "customers_show", user: { name: "ada" } }]);
      const stolen = await fetch(url, {
        method: "POST",
        headers: {
          ...MCP_HEADERS,
          authorization: "Bearer mallory",
          "mcp-session-id": transport.sessionId as string,
          "mcp-protocol-version": "2025-06-18",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
      });
      expect(stolen.status).toBe(404);
    });
  });

  it("tells every session's client when the tool list changes", async () => {
    const { url, handler } = await serve();
    const { client } = await connect(url);
    const changed = new Promise<string>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => resolve(n.method)),
    );
    // The client's event stream (GET) carries notifications; give it a moment to open.
    await client.listTools();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await handler.notifyToolsChanged();
    await expect(changed).resolves.toBe("notifications/tools/list_changed");
  });
});

describe("npm run mcp -- --http", () => {
  it("serves the CRM over Streamable HTTP on loopback and prints the URL", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "elyra-mcp-http-"));
    const child = spawn(
      process.execPath,
      [...SOURCE_NODE_ARGS, "examples/crm/mcpMain.ts", "--http", "0"],
      {
        cwd: join(import.meta.dirname, "..", ".."),
        env: { ...process.env, CRM_DATA_DIR: dataDir },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    try {
      const printed = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes("\n")) resolve(out);
        });
        child.once("exit", (code) => reject(new Error(`exited with ${code}: ${out}`)));
      });
      const url = printed.match(/Elyra CRM over MCP: (http:\/\/127\.0\.0\.1:\d+\/mcp)/)?.[1];
      expect(url).toBeDefined();
      const { client } = await connect(new URL(url as string));
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(10);
      const result = await client.callTool({ name: "customers_show", arguments: { id: 1 } });
      expect(result.structuredContent).toMatchObject({ id: 1 });
      const page = await fetch(url as string, {
        method: "POST",
        headers: { ...MCP_HEADERS, origin: "https://elsewhere.example" },
        body: JSON.stringify(initialize),
      });
      expect(page.status).toBe(403);
      // A host name that is not loopback (a DNS-rebound name) is refused too (fetch can't set Host).
      const rebound = await new Promise<number>((resolve, reject) => {
        const target = new URL(url as string);
        const sent = request(
          {
            host: target.hostname,
            port: target.port,
            path: target.pathname,
            method: "POST",
            headers: { ...MCP_HEADERS, host: "attacker.example" },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        sent.once("error", reject);
        sent.end(JSON.stringify(initialize));
      });
      expect(rebound).toBe(403);
      // A page on the server's own origin (a browser-based client on this machine) may connect,
      // and the server names its version.
      const own = await fetch(url as string, {
        method: "POST",
        headers: { ...MCP_HEADERS, origin: new URL(url as string).origin },
        body: JSON.stringify(initialize),
      });
      expect(own.status).toBe(200);
      const { client: second } = await connect(new URL(url as string));
      expect(second.getServerVersion()).toEqual({ name: "elyra-crm", version: VERSION });
    } finally {
      await net.cleanup();
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
