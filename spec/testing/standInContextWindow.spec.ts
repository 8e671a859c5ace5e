/**
 * The stand-in refuses a prompt over the model's context window as the API
 * does (a 400, "prompt is too long: N tokens > M maximum"), using no script
 * entry; through a host, the turn fails in words and the window goes on.
 * (Through HTTP a prompt is at most 64 KB, and summaries keep the earlier
 * turns near `compactHistoryAbove`: a real window stays far below it.)
 */
import { createApp, createHost } from "elyra-assistant";
import { anthropic } from "elyra-assistant/anthropic";
import { afterEach, describe, expect, it } from "vitest";
import { STAND_IN_CONTEXT_WINDOW } from "../../src/testing/standInMessagesApi.ts";
import { says, standInMessagesApi } from "../../src/testing.ts";

const headers = {
  "content-type": "application/json",
  authorization: "Bearer test-key",
  "anthropic-version": "2026-10-21",
};
const bodyOf = (text: string) => ({
  model: "claude-sonnet-5-5",
  max_tokens: 1024,
  messages: [{ role: "user", content: text }],
});

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

describe("the stand-in's context window", () => {
  it("refuses a prompt over it with the API's words, and plays the script's entry on the next request", async () => {
    const api = await standInMessagesApi([says("Fits.")], { contextWindow: 1_000 });
    closing.push(api.close);
    const post = (text: string) =>
      fetch(`${api.url}/v1/messages`, {
        method: "POST",
        headers,
        body: JSON.stringify(bodyOf(text)),
      });
    const over = await post("x".repeat(4_400));
    expect(over.status).toBe(400);
    const refused = (await over.json()) as { error: { type: string; message: string } };
    expect(refused.error.type).toBe("invalid_request_error");
    expect(refused.error.message).toMatch(/^prompt is too long: \d+ tokens > 1000 maximum$/);
    const fits = await post("Hi");
    expect(fits.status).toBe(200);
    expect(JSON.stringify(await fits.json())).toContain("Fits.");
  });

  it("is Claude's standard 200 000 tokens unless told", () => {
    expect(STAND_IN_CONTEXT_WINDOW).toBe(200_000);
  });

  it("through a host: the turn that does not fit fails in words, and the window goes on", async () => {
    const api = await standInMessagesApi([says("Short answer.")], { contextWindow: 2_000 });
    closing.push(api.close);
    const app = createApp({ commands: [], userAbilities: () => [], assistant: { allow: [] } });
    const host = createHost(app, {
      model: anthropic({ baseURL: api.url, apiKey: "test-key", maxRetries: 0 }),
    });
    closing.push(() => host.close());
    const w = host.window("w1", { user: { name: "Ada" } });
    const failed = await w.prompt("word ".repeat(3_000));
    expect(failed._tag).toBe("Failed");
    expect(JSON.stringify(failed)).toContain("prompt is too long");
    expect(w.failed()).toBe(false);
    // The question stays in the history it was asked in; a new conversation fits.
    await w.reset();
    expect((await w.prompt("Hi"))._tag).toBe("Answered");
  });
});
