import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Schema } from "effect";
import { createApp, createCallPath, defineCommand, toolOf } from "elyra-assistant";
import type { Activity, AgentCalled } from "elyra-assistant/log";
import { cannotConfirmText, mcpServer, notifyToolsChanged } from "elyra-assistant/mcp";
import { describe, expect, it, vi } from "vitest";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";
import { connect, textOf } from "./connect.ts";

const appWith = (mcp: Parameters<typeof createApp>[0]["mcp"], userAbilities: string[] = []) => {
  const spies = spyCommands();
  const app = createApp({
    commands: spies.commands,
    userAbilities: (u) => (u as TestUser | undefined)?.abilities ?? userAbilities,
    assistant: { allow: ["*"] },
    ...(mcp === undefined ? {} : { mcp }),
  });
  return { app, spies };
};

const NOT_CONFIRMED = "The user didn't confirm customers_delete, so it did not run.";

describe("tools/list", () => {
  it("lists the MCP grant's tools only, sorted, with the commands' own schemas", async () => {
    const { app } = appWith({ allow: ["invoices.*", "customers.view", "customers.delete"] });
    const s = await connect(app);
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "customers_delete",
      "customers_show",
      "invoices_create",
      "invoices_index",
    ]);
    for (const tool of tools) {
      const command = app.commands.get(tool.name);
      expect(command).toBeDefined();
      expect(tool.description).toBe(command?.description);
      expect(tool.inputSchema).toEqual(toolOf(command as never).inputSchema);
    }
    const create = tools.find((t) => t.name === "invoices_create");
    expect(create?.outputSchema).toEqual({
      type: "object",
      properties: {
        id: { type: "number" },
        customerId: { type: "number" },
        amount: { type: "number" },
      },
      required: ["id", "customerId", "amount"],
      additionalProperties: false,
    });
    expect(create?.inputSchema.$defs).toHaveProperty("Address");
    expect(tools.find((t) => t.name === "customers_show")).not.toHaveProperty("outputSchema");
    await s.close();
  });

  it("an app without an mcp grant lists nothing and runs nothing", async () => {
    const { app, spies } = appWith(undefined);
    const s = await connect(app);
    expect((await s.client.listTools()).tools).toEqual([]);
    const result = await s.call("customers_show", { id: 1 });
    expect(textOf(result)).toBe("unknown tool: customers_show");
    expect(spies.total()).toBe(0);
    await s.close();
  });

  it("declares tools.listChanged, and notifyToolsChanged tells the client", async () => {
    const { app } = appWith({ allow: ["*"] });
    const s = await connect(app);
    expect(s.client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    const told = new Promise<string>((resolve) =>
      s.client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => resolve(n.method)),
    );
    await notifyToolsChanged(s.server);
    await expect(told).resolves.toBe("notifications/tools/list_changed");
    await s.close();
    // Not connected: nothing to tell, no error.
    await expect(notifyToolsChanged(mcpServer(app))).resolves.toBeUndefined();
  });
});

describe("tools/call", () => {
  it("runs a read tool: the result as JSON text; structuredContent when it has a result schema", async () => {
    const { app, spies } = appWith({ allow: ["customers.view", "invoices.*"] });
    const s = await connect(app);
    const show = await s.call("customers_show", { id: 42 });
    expect(show.isError).toBeFalsy();
    expect(textOf(show)).toBe('{"id":42,"name":"Ada"}');
    expect(show).not.toHaveProperty("structuredContent");
    const created = await s.call("invoices_create", {
      customerId: 3,
      amount: 12.5,
      address: { street: "Main St", zip: "12345" },
    });
    expect(created.isError).toBeFalsy();
    expect(created.structuredContent).toEqual({ id: 7, customerId: 3, amount: 12.5 });
    expect(JSON.parse(textOf(created))).toEqual(created.structuredContent);
    expect(spies.runs.get("customers_show")).toBe(1);
    expect(spies.runs.get("invoices_create")).toBe(1);
    await s.close();
  });

  it("bad arguments: one readable line per issue, isError, nothing run", async () => {
    const { app, spies } = appWith({ allow: ["*"] });
    const s = await connect(app);
    const result = await s.call("customers_update", { id: "seven", email: "nope" });
    expect(result.isError).toBe(true);
    const lines = textOf(result).split("\n");
    expect(lines).toContain("email: must be a valid email");
    expect(lines.some((l) => l.startsWith("id: "))).toBe(true);
    expect(lines).toHaveLength(2);
    expect(
      await s.call("invoices_create", { customerId: 1, amount: -1, address: {} }),
    ).toMatchObject({ isError: true });
    expect(spies.total()).toBe(0);
    await s.close();
  });

  it("a call without arguments is a call with none", async () => {
    const { app, spies } = appWith({ allow: ["*"] });
    const s = await connect(app);
    expect(textOf(await s.call("admin_reindex"))).toBe('{"ok":true}');
    expect(spies.runs.get("admin_reindex")).toBe(1);
    await s.close();
  });

  it.each([
    "__proto__",
    "constructor",
    "toString",
    "hasOwnProperty",
    "internal_sync",
    "customers_delete",
    "nope",
  ])("%s is an unknown tool", async (name) => {
    const { app, spies } = appWith({ allow: ["customers.view"] });
    const s = await connect(app);
    const result = await s.call(name, {});
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(`unknown tool: ${name}`);
    expect(spies.total()).toBe(0);
    await s.close();
  });

  it("the rate limit: the documented sentence once it is spent, per session", async () => {
    const { app, spies } = appWith({ allow: ["*"], rateLimit: { calls: 2, perSeconds: 60 } });
    const path = createCallPath(app);
    const s = await connect(app, { path });
    expect((await s.call("customers_show", { id: 1 })).isError).toBeFalsy();
    expect((await s.call("customers_show", { id: 2 })).isError).toBeFalsy();
    const third = await s.call("customers_show", { id: 3 });
    expect(third.isError).toBe(true);
    expect(textOf(third)).toBe("rate limit reached for customers_show: try again in 60 s");
    expect(spies.runs.get("customers_show")).toBe(2);
    // Another session on the same path has its own allowance.
    const other = await connect(app, { path });
    expect((await other.call("customers_show", { id: 4 })).isError).toBeFalsy();
    expect(spies.runs.get("customers_show")).toBe(3);
    await s.close();
    await other.close();
  });

  it("checks no user ability: the grant alone decides (the user has none here)", async () => {
    const { app, spies } = appWith({ allow: ["customers.update"] }, []);
    const s = await connect(app, { user: { name: "Nobody", abilities: [] } satisfies TestUser });
    const result = await s.call("customers_update", { id: 1, email: "a@b.co" });
    expect(result.isError).toBeFalsy();
    expect(spies.runs.get("customers_update")).toBe(1);
    await s.close();
  });

  it("gives commands the origin with the client's handshake name, and the user option", async () => {
    const seen: unknown[] = [];
    const whoami = defineCommand({
      name: "whoami",
      description: "Who is calling.",
      can: "me.view",
      args: {},
      run: (_args, ctx) => {
        seen.push({ user: ctx.user, origin: ctx.origin });
        return null;
      },
    });
    const app = createApp({ commands: [whoami], userAbilities: () => [], mcp: { allow: ["*"] } });
    const a = await connect(app, {
      clientName: "claude-code",
      user: (client: string) => ({ client }),
    });
    await a.call("whoami");
    const b = await connect(app, { user: { name: "Ada" } });
    await b.call("whoami");
    expect(seen).toEqual([
      { user: { client: "claude-code" }, origin: { kind: "agent", client: "claude-code" } },
      { user: { name: "Ada" }, origin: { kind: "agent", client: "cursor" } },
    ]);
    await a.close();
    await b.close();
  });
});

describe("confirmation by elicitation", () => {
  const confirmApp = () => appWith({ allow: ["*"], confirm: ["customers.delete"] });

  it("accepted with confirm true: asked once, with the tool, its description and arguments; runs once", async () => {
    const { app, spies } = confirmApp();
    const s = await connect(app, {
      answer: () => ({ action: "accept", content: { confirm: true } }),
    });
    const result = await s.call("customers_delete", { id: 42 });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('{"deleted":42}');
    expect(spies.runs.get("customers_delete")).toBe(1);
    expect(s.asked).toHaveLength(1);
    const asked = s.asked[0] as { message: string; requestedSchema: unknown };
    expect(asked.message).toContain("customers_delete");
    expect(asked.message).toContain("Delete a customer. It cannot be undone.");
    expect(asked.message).toContain('"id": 42');
    expect(asked.requestedSchema).toEqual({
      type: "object",
      properties: { confirm: { type: "boolean", title: "Run it?" } },
      required: ["confirm"],
    });
    // A tool the grant does not ask about is not asked.
    await s.call("customers_show", { id: 1 });
    expect(s.asked).toHaveLength(1);
    await s.close();
  });

  it.each([
    ["declined", { action: "decline" as const }],
    ["cancelled", { action: "cancel" as const }],
    ["accepted with confirm false", { action: "accept" as const, content: { confirm: false } }],
  ])("%s: the documented sentence, not run", async (_label, answer) => {
    const { app, spies } = confirmApp();
    const s = await connect(app, { answer: () => answer });
    const result = await s.call("customers_delete", { id: 42 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(NOT_CONFIRMED);
    expect(s.asked).toHaveLength(1);
    expect(spies.total()).toBe(0);
    await s.close();
  });

  it("no answer in time: the documented sentence, not run", async () => {
    const { app, spies } = confirmApp();
    const s = await connect(app, { confirmTimeoutMs: 30, answer: () => new Promise(() => {}) });
    const result = await s.call("customers_delete", { id: 42 });
    expect(textOf(result)).toBe(NOT_CONFIRMED);
    expect(spies.total()).toBe(0);
    await s.close();
  });

  it("a client without elicitation: refused with its own sentence, not run, nobody asked", async () => {
    const { app, spies } = confirmApp();
    const s = await connect(app);
    const elicit = vi.spyOn(s.server, "elicitInput");
    const result = await s.call("customers_delete", { id: 42 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(cannotConfirmText("customers_delete"));
    expect(textOf(result)).toBe(
      "customers_delete needs the user's confirmation, which this client can't ask for (it does not support elicitation), so it did not run.",
    );
    expect(elicit).not.toHaveBeenCalled();
    expect(spies.total()).toBe(0);
    // Bad arguments are still told as such, before any question.
    expect(textOf(await s.call("customers_delete", { id: "x" }))).toMatch(/^id: /);
    await s.close();
  });
});

describe("activity and audit", () => {
  it("MCP calls publish on the shared path: activity and AgentCalled with the client's name, no arguments", async () => {
    const { app } = appWith({ allow: ["*"], confirm: ["customers.delete"] });
    const path = createCallPath(app);
    const activity: Activity[] = [];
    const audit: AgentCalled[] = [];
    path.activity$.subscribe((a) => activity.push(a));
    path.audit$.subscribe((a) => audit.push(a));
    const s = await connect(app, {
      path,
      clientName: "claude-desktop",
      answer: () => ({ action: "decline" }),
    });
    await s.call("customers_update", { id: 1, email: "secret-ada@example.com" });
    await s.call("customers_update", { id: 1, email: "not-an-email-SECRET" });
    await s.call("customers_delete", { id: 987_654_321 });
    await s.call("__proto__", {});
    expect(audit.map(({ client, tool, outcome }) => ({ client, tool, outcome }))).toEqual([
      { client: "claude-desktop", tool: "customers_update", outcome: "ok" },
      { client: "claude-desktop", tool: "customers_update", outcome: "invalidArguments" },
      { client: "claude-desktop", tool: "customers_delete", outcome: "notConfirmed" },
      { client: "claude-desktop", tool: "__proto__", outcome: "unknownTool" },
    ]);
    for (const record of audit) {
      expect(Object.keys(record).sort()).toEqual([
        "_tag",
        "client",
        "durationMs",
        "outcome",
        "tool",
      ]);
      expect(record._tag).toBe("AgentCalled");
      expect(record.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(activity.map((a) => [a.type, a.tool])).toEqual([
      ["started", "customers_update"],
      ["finished", "customers_update"],
    ]);
    for (const a of activity) {
      expect(a.origin).toEqual({ kind: "agent", client: "claude-desktop" });
      expect(a.scope).toMatch(/^mcp:/);
    }
    const published = JSON.stringify([...activity, ...audit]);
    // The scope is a random uuid, so argument values are looked for whole.
    expect(published).not.toMatch(/secret|SECRET|"id"|987654321/);
    await s.close();
  });

  it("the host's path and the assistant share one stream", async () => {
    const { app } = appWith({ allow: ["*"] });
    const path = createCallPath(app);
    const audit: AgentCalled[] = [];
    path.audit$.subscribe((a) => audit.push(a));
    const s = await connect(app, { path });
    await s.call("customers_show", { id: 1 });
    await path.call(
      { tool: "customers_show", input: { id: 1 } },
      { user: { name: "Ada", abilities: ["*"] }, origin: { kind: "assistant" }, scope: "w1" },
    );
    expect(audit.map((a) => a.client)).toEqual(["cursor", "assistant"]);
    await s.close();
  });
});

describe("output schemas MCP can take", () => {
  it("a Schema.Class result is listed as an object schema and sent as structuredContent; an array result as text only", async () => {
    class Customer extends Schema.Class<Customer>("Customer")({
      id: Schema.Number,
      name: Schema.String,
    }) {}
    const get = defineCommand({
      name: "customer_get",
      description: "One customer.",
      can: "c.view",
      args: { id: Schema.Number },
      result: Customer,
      run: ({ id }) => new Customer({ id, name: "Ada" }),
    });
    const list = defineCommand({
      name: "customer_list",
      description: "Customers.",
      can: "c.view",
      args: {},
      result: Schema.Array(Schema.Number),
      run: () => [1, 2],
    });
    const app = createApp({
      commands: [get, list],
      userAbilities: () => [],
      mcp: { allow: ["*"] },
    });
    const s = await connect(app);
    const { tools } = await s.client.listTools();
    expect(tools.find((t) => t.name === "customer_get")?.outputSchema).toMatchObject({
      type: "object",
      required: ["id", "name"],
    });
    expect(tools.find((t) => t.name === "customer_list")).not.toHaveProperty("outputSchema");
    const got = await s.call("customer_get", { id: 5 });
    expect(got.structuredContent).toEqual({ id: 5, name: "Ada" });
    const listed = await s.call("customer_list");
    expect(listed).not.toHaveProperty("structuredContent");
    expect(textOf(listed)).toBe("[1,2]");
    await s.close();
  });
});

describe("input and results JSON can't carry (issue 16): an answer and an audit record for every call", () => {
  const deep = (levels: number): unknown => {
    let value: unknown = 1;
    for (let i = 0; i < levels; i++) value = { a: value };
    return value;
  };
  const inserted = defineCommand({
    name: "rows_insert",
    description: "Inserts a row.",
    can: "rows.create",
    args: {},
    // better-sqlite3's lastInsertRowid is a BigInt when safeIntegers is on.
    run: () => ({ changes: 1, lastInsertRowid: 7n }),
  });

  const session = async () => {
    const spies = spyCommands();
    const app = createApp({
      commands: [...spies.commands, inserted],
      userAbilities: () => [],
      mcp: { allow: ["*"] },
    });
    const path = createCallPath(app);
    const audit: AgentCalled[] = [];
    path.audit$.subscribe((a) => audit.push(a));
    return { s: await connect(app, { path }), audit, spies };
  };

  it("arguments nested 10 000 levels deep: invalid arguments, isError, audited, nothing run", async () => {
    const { s, audit, spies } = await session();
    const result = await s.call("customers_show", { id: deep(10_000) });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("arguments: nested deeper than 64 levels");
    expect(audit.map((a) => a.outcome)).toEqual(["invalidArguments"]);
    expect(spies.total()).toBe(0);
    await s.close();
  });

  it("a BigInt result: isError naming it, not a thrown call; audited as failed", async () => {
    const { s, audit } = await session();
    const result = await s.call("rows_insert");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      "the command's result can't be sent as JSON: result.lastInsertRowid is a BigInt (7n)",
    );
    expect(audit.map((a) => a.outcome)).toEqual(["failed"]);
    await s.close();
  });
});
