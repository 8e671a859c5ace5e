/**
 * A backend that will not run code mode answers 422 naming the code
 * execution tool: the step fails telling the user so in words, streamed or
 * whole; other 422s keep the API's message.
 */
import { anthropic } from "elyra-assistant/anthropic";
import { fails, type StandInMessagesApi, standInMessagesApi } from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";

const request = {
  model: "claude-sonnet-5-5",
  system: "You help.",
  tools: [{ type: "code_execution_20260120", name: "code_execution" }],
  maxTokens: 100,
  messages: [{ role: "user" as const, content: "Sum the invoices" }],
};

let api: StandInMessagesApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const failureOf = async (message: string, stream: boolean) => {
  api = await standInMessagesApi([fails(422, "invalid_request_error", message)]);
  const model = anthropic({ baseURL: api.url, authToken: "session", maxRetries: 0, stream });
  return model.step(request, { signal: new AbortController().signal }).catch((e: unknown) => e);
};

describe.each([true, false])("a backend's 422, stream: %s", (stream) => {
  it("naming the code execution tool reads as code mode not allowed", async () => {
    expect(await failureOf("code_execution_20260120 is not allowed here", stream)).toMatchObject({
      _tag: "ModelError",
      kind: "invalidRequest",
      status: 422,
      message:
        "This server doesn't allow code mode (code_execution_20260120 is refused by the backend).",
    });
    expect(api?.requests).toHaveLength(1);
  });

  it("naming anything else keeps the API's message", async () => {
    expect(await failureOf("max_tokens: too large for this server", stream)).toMatchObject({
      status: 422,
      message: "max_tokens: too large for this server",
    });
  });
});
