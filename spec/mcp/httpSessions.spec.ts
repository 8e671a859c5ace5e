/**
 * The caps on MCP sessions over Streamable HTTP (issue 16, defect 13): at
 * most `maxSessionsPerUser` for one user, whose least recently used idle
 * session makes way for a new one, and at most `maxSessions` in all, past
 * which a new session is refused. Requests go to the fetch handler directly,
 * but for the calls in progress, made by the SDK's client over loopback.
 */
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createApp } from "elyra-assistant";
import { McpConfigError, type McpHttpOptions, mcpHttp } from "elyra-assistant/mcp";
import { afterEach, describe, expect, it } from "vitest";
import { spyCommands } from "../fixtures/spyCommands.ts";
import { loopback, manualClock } from "./loopback.ts";

const spies = spyCommands();
const app = createApp({
  commands: spies.commands,
  userAbilities: () => [],
  mcp: { allow: ["customers.*"], confirm: ["customers.delete"] },
});

const net = loopback();
const handlers: Array<ReturnType<typeof mcpHttp>> = [];
afterEach(async () => {
  await net.cleanup();
  await Promise.all(handlers.splice(0).map((handle) => handle.close()));
});

const authenticate = (request: Request) => {
  const name = request.headers.get("authorization")?.replace(/^Bearer /, "");
  return name ? { name } : undefined;
};

const URL_ = "http://127.0.0.1/mcp";
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};
const initialize = (id = 1) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    },
  });

const handlerWith = (options: McpHttpOptions) => {
  const handle = mcpHttp(app, options);
  handlers.push(handle);
  return handle;
};

/** Opens a session as `user` (none: no authorization header); its id, or the refusal. */
const open = async (handle: ReturnType<typeof mcpHttp>, user?: string) => {
  const response = await handle(
    new Request(URL_, {
      method: "POST",
      headers: user === undefined ? HEADERS : { ...HEADERS, authorization: `Bearer ${user}` },
      body: initialize(),
    }),
  );
  const id = response.headers.get("mcp-session-id");
  if (id !== null) await response.body?.cancel();
  return { status: response.status, id, response };
};

/** A `tools/list` in session `id` as `user`: its status. */
const list = async (handle: ReturnType<typeof mcpHttp>, id: string, user?: string) => {
  const response = await handle(
    new Request(URL_, {
      method: "POST",
      headers: {
        ...HEADERS,
        ...(user === undefined ? {} : { authorization: `Bearer ${user}` }),
        "mcp-session-id": id,
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    }),
  );
  await response.body?.cancel();
  return response.status;
};

describe("mcpHttp: session caps", () => {
  it("keeps at most 16 sessions for one user by default: 2 000 opened in a row leave 16, each opened", async () => {
    const handle = handlerWith({ authenticate });
    const ids: string[] = [];
    for (let n = 0; n < 2_000; n++) {
      const { status, id } = await open(handle, "ada");
      expect(status).toBe(200);
      ids.push(id ?? "");
      expect(handle.sessions()).toBeLessThanOrEqual(16);
    }
    expect(handle.sessions()).toBe(16);
    // The newest sixteen are the ones kept.
    expect(await list(handle, ids[1_999] ?? "", "ada")).toBe(200);
    expect(await list(handle, ids[1_984] ?? "", "ada")).toBe(200);
    expect(await list(handle, ids[1_983] ?? "", "ada")).toBe(404);
  });

  it("makes way by ending the user's least recently used idle session: 404 for it, the others go on", async () => {
    const clock = manualClock();
    const handle = handlerWith({ authenticate, clock, maxSessionsPerUser: 2 });
    const first = await open(handle, "ada");
    clock.advance(1_000);
    const second = await open(handle, "ada");
    clock.advance(1_000);
    expect(await list(handle, first.id ?? "", "ada")).toBe(200); // first is now the more recent
    clock.advance(1_000);
    const bob = await open(handle, "bob");
    const third = await open(handle, "ada");
    expect(third.status).toBe(200);
    expect(handle.sessions()).toBe(3);
    expect(await list(handle, second.id ?? "", "ada")).toBe(404);
    expect(await list(handle, first.id ?? "", "ada")).toBe(200);
    expect(await list(handle, third.id ?? "", "ada")).toBe(200);
    expect(await list(handle, bob.id ?? "", "bob")).toBe(200);
  });

  it("refuses a new session (429, a JSON-RPC error) when each of the user's sessions is in a call", async () => {
    const { url, handler } = await net.serve(app, { authenticate, maxSessionsPerUser: 1 });
    const { client } = await net.connect(url, {
      headers: { authorization: "Bearer ada" },
      capabilities: { elicitation: { form: {} } },
    });
    let asked: (() => void) | undefined;
    const question = new Promise<void>((resolve) => {
      asked = resolve;
    });
    // The user never answers: the call stays in progress.
    client.setRequestHandler(ElicitRequestSchema, () => {
      asked?.();
      return new Promise(() => {});
    });
    const call = client.callTool({ name: "customers_delete", arguments: { id: 1 } });
    call.catch(() => undefined);
    await question;
    const refused = await open(handler, "ada");
    expect(refused.status).toBe(429);
    expect(await refused.response.json()).toEqual({
      jsonrpc: "2.0",
      error: {
        code: -32000,
        message:
          "Too many MCP sessions for this user: each of its 1 is in the middle of a call. End one (DELETE) or try again when a call has finished.",
      },
      id: null,
    });
    expect(handler.sessions()).toBe(1);
    expect((await open(handler, "bob")).status).toBe(200);
  });

  it("refuses a new session (503) over the cap of all sessions, and ends no one else's", async () => {
    const handle = handlerWith({ authenticate, maxSessions: 3 });
    const ada = [await open(handle, "ada"), await open(handle, "ada")];
    const bob = await open(handle, "bob");
    const refused = await open(handle, "carol");
    expect(refused.status).toBe(503);
    expect(await refused.response.json()).toEqual({
      jsonrpc: "2.0",
      error: { code: -32000, message: "Too many MCP sessions: all 3 are open. Try again later." },
      id: null,
    });
    expect(handle.sessions()).toBe(3);
    for (const { id } of ada) expect(await list(handle, id ?? "", "ada")).toBe(200);
    expect(await list(handle, bob.id ?? "", "bob")).toBe(200);
    // A user at its own cap still makes way within it.
    const limited = handlerWith({ authenticate, maxSessions: 2, maxSessionsPerUser: 2 });
    const first = await open(limited, "ada");
    await open(limited, "ada");
    expect((await open(limited, "ada")).status).toBe(200);
    expect(await list(limited, first.id ?? "", "ada")).toBe(404);
  });

  it("without authenticate, every client is the one anonymous user", async () => {
    const handle = handlerWith({ maxSessionsPerUser: 3 });
    for (let n = 0; n < 10; n++) expect((await open(handle)).status).toBe(200);
    expect(handle.sessions()).toBe(3);
  });

  it("a request that isn't an initialize takes no place", async () => {
    const handle = handlerWith({ authenticate, maxSessions: 1 });
    const response = await handle(
      new Request(URL_, {
        method: "POST",
        headers: { ...HEADERS, authorization: "Bearer ada" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
    );
    expect(response.status).toBe(400);
    expect(handle.sessions()).toBe(0);
    expect((await open(handle, "ada")).status).toBe(200);
  });

  it("ends sessions idle for idleTimeoutMs by the injected clock, without sleeping", async () => {
    const clock = manualClock();
    const handle = handlerWith({ authenticate, clock, idleTimeoutMs: 60_000 });
    const old = await open(handle, "ada");
    clock.advance(59_999);
    const fresh = await open(handle, "ada");
    expect(handle.sessions()).toBe(2);
    clock.advance(1);
    clock.fire();
    expect(handle.sessions()).toBe(1);
    expect(await list(handle, old.id ?? "", "ada")).toBe(404);
    expect(await list(handle, fresh.id ?? "", "ada")).toBe(200);
  });

  it.each([
    ["maxSessions", { maxSessions: 0 }, "maxSessions must be a whole number above 0, not 0"],
    [
      "maxSessionsPerUser",
      { maxSessionsPerUser: 1.5 },
      "maxSessionsPerUser must be a whole number above 0, not 1.5",
    ],
    [
      "idleTimeoutMs",
      { idleTimeoutMs: Number.NaN },
      "idleTimeoutMs must be a positive, finite number of milliseconds, not NaN",
    ],
  ])("refuses a %s that would let sessions pile up or none open", (_, options, reason) => {
    expect(() => mcpHttp(app, options)).toThrow(McpConfigError);
    expect(() => mcpHttp(app, options)).toThrow(`mcpHttp: ${reason}`);
  });
});
