/**
 * Which model the example CRM talks to: an API key, a proxy (the real SDK
 * against the stand-in Messages API, as a proxy would answer), or the demo.
 */
import { says, standInMessagesApi } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import { DEMO_NOTICE } from "../../examples/crm/demoModel.ts";
import { modelFromEnv } from "../../examples/crm/modelSource.ts";

const request = {
  model: "claude-sonnet-5-5",
  system: "You help.",
  tools: [],
  maxTokens: 100,
  messages: [{ role: "user" as const, content: "Hi" }],
};

describe("modelFromEnv", () => {
  it("uses the demo model, with its notice, when nothing is set", () => {
    const choice = modelFromEnv({ ANTHROPIC_API_KEY: " ", ELYRA_PROXY_URL: "" });
    expect(choice.notice).toBe(DEMO_NOTICE);
    expect(choice.label).toMatch(/^the offline demo model/);
  });

  it("uses Claude with an API key, before any proxy", () => {
    const choice = modelFromEnv({ ANTHROPIC_API_KEY: "sk-test", ELYRA_PROXY_URL: "http://x" });
    expect(choice).toMatchObject({ label: "Claude (ANTHROPIC_API_KEY)", notice: null });
  });

  it("asks Claude through the proxy with the token as a bearer token", async () => {
    const api = await standInMessagesApi([says("Hello from the proxy.")]);
    try {
      const choice = modelFromEnv({ ELYRA_PROXY_URL: api.url, ELYRA_PROXY_TOKEN: "user-token" });
      expect(choice).toMatchObject({ notice: null });
      expect(choice.label).toBe(`Claude through the proxy at ${api.url}`);
      const pieces: string[] = [];
      const response = await choice.model.step(request, {
        signal: new AbortController().signal,
        onText: (piece) => pieces.push(piece),
      });
      expect(pieces.join("")).toBe("Hello from the proxy.");
      expect(response.stopReason).toBe("end_turn");
      expect(api.requests[0]?.headers.authorization).toBe("Bearer user-token");
      expect(api.requests[0]?.headers["x-api-key"]).toBeUndefined();
    } finally {
      await api.close();
    }
  });
});
