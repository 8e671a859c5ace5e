/**
 * The whole assistant over HTTP: the host, the real @anthropic-ai/sdk client
 * through `anthropic()`, and the stand-in Messages API on loopback. And the
 * same conversation on SQLite surviving its host.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp, createHost } from "elyra-assistant";
import { anthropic } from "elyra-assistant/anthropic";
import { sqliteStore } from "elyra-assistant/sqlite";
import { fakeModel, says, standInMessagesApi, toolCall } from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";

const ada: TestUser = { name: "Ada", abilities: ["customers.view", "invoices.view"] };
const crm = () => {
  const spies = spyCommands();
  const app = createApp({
    commands: spies.commands,
    userAbilities: (u) => (u as TestUser).abilities,
    assistant: { allow: ["customers.*", "invoices.view"], instructions: "You help staff at Acme." },
  });
  return { spies, app };
};

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

describe("a turn through the real SDK against the stand-in Messages API", () => {
  it("sends the offered tools and the cached system prompt, runs the tool, answers", async () => {
    const { app, spies } = crm();
    const api = await standInMessagesApi([
      toolCall("invoices_index", { overdue: true }),
      says("Invoice 1 is overdue."),
    ]);
    cleanup.push(api.close);
    const host = createHost(app, {
      model: anthropic({ baseURL: api.url, apiKey: "test-key", maxRetries: 0 }),
    });
    const w = host.window("w1", { user: ada });
    const end = await w.prompt({ text: "What is overdue?", route: "/invoices" });
    expect(end).toMatchObject({ _tag: "Answered", text: "Invoice 1 is overdue." });
    expect(spies.runs.get("invoices_index")).toBe(1);

    expect(api.requests).toHaveLength(2);
    const [first, second] = api.requests.map((r) => r.body as Record<string, unknown>) as [
      Record<string, unknown>,
      Record<string, unknown>,
    ];
    expect(first.model).toBe("claude-sonnet-5-5");
    expect((first.tools as Array<{ name: string }>).map((t) => t.name)).toEqual([
      "customers_show",
      "invoices_index",
    ]);
    expect(first.system).toEqual([
      {
        type: "text",
        text: expect.stringContaining("You help staff at Acme."),
        cache_control: { type: "ephemeral" },
      },
    ]);
    expect(second.system).toEqual(first.system);
    const last = (second.messages as Array<{ role: string; content: unknown }>).at(-1);
    expect(last).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: expect.any(String),
          content: '[{"id":1,"overdue":true}]',
          cache_control: { type: "ephemeral" },
        },
      ],
    });
    expect(api.requests[0]?.headers.authorization).toBe("Bearer test-key");
  });

  it("an overloaded API fails the turn after the SDK's own retries", async () => {
    const { app } = crm();
    const overloaded = { error: { status: 529, type: "overloaded_error", message: "Overloaded" } };
    const api = await standInMessagesApi([overloaded, overloaded, overloaded]);
    cleanup.push(api.close);
    const host = createHost(app, {
      model: anthropic({ baseURL: api.url, apiKey: "k", maxRetries: 2 }),
    });
    const end = await host.window("w", { user: ada }).prompt("hi");
    expect(end).toMatchObject({ _tag: "Failed", error: "Overloaded" });
    expect(api.requests).toHaveLength(3);
  });
});

describe("on SQLite", () => {
  it("a conversation outlives its host: reopened, it remembers and goes on", async () => {
    const dir = await mkdtemp(join(tmpdir(), "elyra-host-"));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, "assistant.db");
    const { app } = crm();

    const first = sqliteStore(file);
    const host = createHost(app, {
      model: fakeModel().says("Noted: Ada prefers email."),
      store: first,
    });
    const w = host.window("w1", { user: ada });
    await w.prompt("Ada prefers email.");
    await w.close();
    await first.close?.();

    const second = sqliteStore(file);
    cleanup.push(async () => second.close?.());
    const model = fakeModel().says("By email.");
    const again = createHost(app, { model, store: second }).window("w1", { user: ada });
    await again.ready;
    expect(again.history().messages).toHaveLength(2);
    expect(again.context().turn).toBe(1);
    expect((await again.prompt("How does Ada like to be contacted?"))._tag).toBe("Answered");
    expect(model.requests[0]?.messages).toEqual([
      { role: "user", content: "Ada prefers email." },
      { role: "assistant", content: "Noted: Ada prefers email." },
      { role: "user", content: "How does Ada like to be contacted?" },
    ]);
  });

  it("a turn the process died in is recorded interrupted when the window opens again", async () => {
    const dir = await mkdtemp(join(tmpdir(), "elyra-host-"));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, "assistant.db");
    const store = sqliteStore(file);
    await store.append(
      "conversation/w1",
      [{ _tag: "TurnStarted", at: 1, turn: 1, text: "hi", route: null, note: null }],
      0,
    );
    await store.close?.();

    const { app } = crm();
    const reopened = sqliteStore(file);
    cleanup.push(async () => reopened.close?.());
    const w = createHost(app, { model: fakeModel(), store: reopened }).window("w1", { user: ada });
    await w.settled();
    const log = await reopened.read("conversation/w1");
    expect(log.at(-1)).toMatchObject({ _tag: "Failed", turn: 1, error: "interrupted" });
    expect(w.state()).toBe("idle");
  });
});
