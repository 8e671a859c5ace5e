/**
 * Issue 32, item 5: `POST /usage` answers what the window's conversation
 * holds, has used of its budget and cost, for its own user only.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp, createHost } from "elyra-assistant";
import { assistantHttp } from "elyra-assistant/http";
import { sqliteStore } from "elyra-assistant/sqlite";
import { fakeModel } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import { DEFAULT_TOKEN_BUDGET } from "../../src/runtime/commands/app.ts";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";
import { setup, TOKEN, users } from "./fixture.ts";

const app = createApp({
  commands: spyCommands().commands,
  userAbilities: (u) => (u as TestUser).abilities,
  assistant: { allow: ["customers.*", "invoices.view"] },
});

describe("POST /usage", () => {
  it("answers the conversation's last context, its budget used and the whole, and what it cost", async () => {
    const model = fakeModel()
      .says("One.", { usage: { inputTokens: 1_000, outputTokens: 100 } })
      .says("Two.", { usage: { inputTokens: 200, outputTokens: 50, cacheReadTokens: 1_000 } });
    const t = setup(model);
    const before = await (await t.call("usage")).json();
    expect(before).toEqual({
      context: 0,
      budget: { used: 0, max: DEFAULT_TOKEN_BUDGET },
      dollars: 0,
    });
    await t.ada.prompt("first");
    await t.ada.prompt("second");
    await t.ada.settled();
    const response = await t.call("usage");
    expect(response.status).toBe(200);
    // Sonnet 5.5: $2 in, $10 out, $0.10 a cache read, a million tokens.
    expect(await response.json()).toEqual({
      context: 1_200,
      budget: { used: 1_000 + 100 + 200 + 50 + 100, max: DEFAULT_TOKEN_BUDGET },
      dollars: (1_200 * 2 + 150 * 10 + 1_000 * 0.1) / 1e6,
    });
  });

  it("?cost=false: the budget and context alone, from the window's memory", async () => {
    const t = setup(fakeModel().says("One.", { usage: { inputTokens: 1_000, outputTokens: 100 } }));
    await t.ada.prompt("first");
    await t.ada.settled();
    const response = await t.call("usage?cost=false");
    expect(await response.json()).toEqual({
      context: 1_000,
      budget: { used: 1_100, max: DEFAULT_TOKEN_BUDGET },
    });
  });

  it("is another user's window's: refused, and tells nothing of it", async () => {
    const t = setup(fakeModel().says("One.", { usage: { inputTokens: 1_000, outputTokens: 100 } }));
    await t.ada.prompt("first");
    const response = await t.call("usage", { user: "bob" });
    expect(response.status).toBe(403);
    expect(await response.text()).not.toContain("1000");
  });

  it("on a durable store, another user's window not open here: refused before its log is folded", async () => {
    const dir = await mkdtemp(join(tmpdir(), "elyra-usage-http-"));
    try {
      const store = sqliteStore(join(dir, "assistant.db"));
      const first = createHost(app, {
        model: fakeModel().says("One.", { usage: { inputTokens: 123_456, outputTokens: 100 } }),
        store,
      });
      await first.window("w1", { user: users.ada }).prompt("first");
      await first.window("w1", { user: users.ada }).settled();
      await first.close();
      // A host that has not opened w1: Bob asks for it.
      const host = createHost(app, { model: fakeModel(), store });
      const handle = assistantHttp(host, {
        token: TOKEN,
        authenticate: () => users.bob,
        heartbeatMs: 60_000,
        onError: () => undefined,
      });
      for (const path of ["usage", "usage?cost=false"]) {
        const response = await handle(
          new Request(`http://app.test/__assistant/${path}`, {
            method: "POST",
            headers: { "x-elyra-token": TOKEN, "x-elyra-client": "w1" },
          }),
        );
        expect(response.status).toBe(403);
        const text = await response.text();
        expect(text).not.toContain("123456");
        expect(text).not.toContain("dollars");
      }
      await host.close();
      await store.close?.();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
