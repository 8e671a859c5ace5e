/**
 * Tool search through a real host (issue 32): an app of 60 commands, a user
 * offered 40 of them, the real SDK through `anthropic()` and the stand-in
 * Messages API playing the search. The request holds exactly the offered
 * tools, every one deferred but the tool search tool; the model searches,
 * calls what it found, and answers; a call of a tool the user lacks is
 * refused and its command does not run.
 */
import { Schema } from "effect";
import { type AnyCommand, createApp, createHost, defineCommand, offered } from "elyra-assistant";
import { anthropic } from "elyra-assistant/anthropic";
import { says, standInMessagesApi, toolCall } from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";

const RESOURCES = ["customers", "invoices", "projects", "contracts", "reports", "payroll"];
const VERBS = ["index", "show", "create", "update", "archive", "export", "import", "merge", "tag"];

/** 60 commands, each counting its runs: nine verbs and `overdue` (or `audit`) for six resources. */
const generated = () => {
  const runs = new Map<string, number>();
  const commands: AnyCommand[] = RESOURCES.flatMap((resource) =>
    [...VERBS, resource === "invoices" ? "overdue" : "audit"].map((verb) =>
      defineCommand({
        name: `${resource}_${verb}`,
        description:
          verb === "overdue"
            ? "List the invoices past their due date, oldest first."
            : `${verb[0]?.toUpperCase()}${verb.slice(1)} ${resource}.`,
        can: `${resource}.${verb}`,
        args: { note: Schema.optional(Schema.String) },
        run: () => {
          const name = `${resource}_${verb}`;
          runs.set(name, (runs.get(name) ?? 0) + 1);
          return verb === "overdue" ? [{ id: 7, customer: "Ada", overdue: true }] : { ok: true };
        },
      }),
    ),
  );
  const app = createApp({
    commands,
    userAbilities: (user) => (user as { abilities: string[] }).abilities,
    // The grant covers all but payroll.
    assistant: { allow: RESOURCES.filter((r) => r !== "payroll").map((r) => `${r}.*`) },
  });
  return { app, runs, commands };
};

/** Grace may do everything about four resources, and payroll, which the grant does not cover. */
const grace = {
  name: "Grace",
  abilities: ["customers.*", "invoices.*", "projects.*", "contracts.*", "payroll.*"],
};

type Tool = Record<string, unknown> & { name: string };
type Block = Record<string, unknown> & { type: string };
type Body = { tools: Tool[]; messages: Array<{ role: string; content: string | Block[] }> };

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

describe("tool search through the host, the SDK and the stand-in", () => {
  it.each([
    ["streamed", true],
    ["whole", false],
  ])("%s: searches, runs what it found, refuses what Grace lacks, answers", async (_, stream) => {
    const { app, runs, commands } = generated();
    const api = await standInMessagesApi([
      toolCall(
        "invoices_overdue",
        {},
        { text: "Let me find that.", searchTools: "overdue invoices" },
      ),
      {
        toolCalls: [
          { name: "invoices_overdue", input: { note: "again" } },
          { name: "payroll_run", input: {} },
          { name: "reports_export", input: {} },
        ],
      },
      says("Invoice 7, for Ada, is overdue."),
    ]);
    cleanup.push(api.close);
    const host = createHost(app, {
      model: anthropic({ baseURL: api.url, apiKey: "test-key", maxRetries: 0, stream }),
    });
    cleanup.push(() => host.close());

    const end = await host.window("w1", { user: grace }).prompt("What is overdue?");

    expect(end).toMatchObject({ _tag: "Answered", text: "Invoice 7, for Ada, is overdue." });
    expect(commands).toHaveLength(60);
    expect(runs.get("invoices_overdue")).toBe(2);
    expect(runs.get("payroll_run")).toBeUndefined();
    expect(runs.get("reports_export")).toBeUndefined();
    expect([...runs.keys()]).toEqual(["invoices_overdue"]);

    const [first, second, third] = api.requests.map((r) => r.body as Body) as [Body, Body, Body];
    expect(api.requests).toHaveLength(3);
    // Exactly the offered tools, the grant's that Grace has: 40, by name, then the search tool.
    const names = offered(app, "assistant", grace).map((t) => t.name);
    expect(names).toHaveLength(40);
    expect(names.some((n) => n.startsWith("payroll_") || n.startsWith("reports_"))).toBe(false);
    expect(first.tools.map((t) => t.name)).toEqual([...names, "tool_search_tool_bm25"]);
    expect(first.tools.filter((t) => t.defer_loading !== true)).toEqual([
      expect.objectContaining({
        type: "tool_search_tool_bm25_20251119",
        name: "tool_search_tool_bm25",
      }),
    ]);
    // A deferred tool carries no cache breakpoint (the API refuses one).
    expect(first.tools.filter((t) => t.defer_loading === true && "cache_control" in t)).toEqual([]);
    expect(second.tools).toEqual(first.tools);
    expect(third.tools).toEqual(first.tools);

    // The search went back as the stand-in answered it, and found only an offered tool.
    const answered = second.messages[1]?.content as Block[];
    expect(answered.map((b) => b.type)).toEqual([
      "text",
      "server_tool_use",
      "tool_search_tool_result",
      "tool_use",
    ]);
    expect(answered[1]).toMatchObject({
      name: "tool_search_tool_bm25",
      input: { query: "overdue invoices" },
    });
    const found = answered[2] as unknown as {
      tool_use_id: string;
      content: { type: string; tool_references: Array<{ tool_name: string }> };
    };
    expect(found.tool_use_id).toBe(answered[1]?.id);
    expect(found.content.type).toBe("tool_search_tool_search_result");
    const references = found.content.tool_references.map((r) => r.tool_name);
    expect(references[0]).toBe("invoices_overdue");
    expect(references).toHaveLength(5);
    expect(references.every((name) => names.includes(name))).toBe(true);

    // No tool_result for the search; the refused calls are unknown tools to the model.
    const results = third.messages.at(-1)?.content as Block[];
    expect(results.map((b) => [b.content, b.is_error ?? false])).toEqual([
      ['[{"id":7,"customer":"Ada","overdue":true}]', false],
      ["unknown tool: payroll_run", true],
      ["unknown tool: reports_export", true],
    ]);
    const allResults = [second, third].flatMap((b) =>
      b.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])),
    );
    expect(
      allResults.filter(
        (b) => b.type === "tool_result" && String(b.tool_use_id).startsWith("srvtoolu_"),
      ),
    ).toEqual([]);
  });

  it("a user offered few tools gets them all loaded, with no search tool", async () => {
    const { app } = generated();
    const api = await standInMessagesApi([says("Hello.")]);
    cleanup.push(api.close);
    const host = createHost(app, {
      model: anthropic({ baseURL: api.url, apiKey: "test-key", maxRetries: 0 }),
    });
    cleanup.push(() => host.close());
    const ivan = { name: "Ivan", abilities: ["customers.*", "invoices.show"] };
    await host.window("w2", { user: ivan }).prompt("Hi");
    const tools = (api.requests[0]?.body as Body | undefined)?.tools ?? [];
    expect(tools.map((t) => t.name)).toEqual(offered(app, "assistant", ivan).map((t) => t.name));
    expect(tools).toHaveLength(11);
    expect(tools.some((t) => "defer_loading" in t)).toBe(false);
  });
});
