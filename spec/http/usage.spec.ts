/**
 * Issue 32, item 5: `POST /usage` answers what the window's conversation
 * holds, has used of its budget and cost, for its own user only.
 */

import { fakeModel } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import { DEFAULT_TOKEN_BUDGET } from "../../src/runtime/commands/app.ts";
import { setup } from "./fixture.ts";

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

  it("is another user's window's: refused, and tells nothing of it", async () => {
    const t = setup(fakeModel().says("One.", { usage: { inputTokens: 1_000, outputTokens: 100 } }));
    await t.ada.prompt("first");
    const response = await t.call("usage", { user: "bob" });
    expect(response.status).toBe(403);
    expect(await response.text()).not.toContain("1000");
  });
});
