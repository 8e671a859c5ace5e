/** The public surface: a change to what each entry point exports shows up here. */
import * as main from "elyra-assistant";
import * as anthropic from "elyra-assistant/anthropic";
import * as testing from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";

describe("public exports", () => {
  it("elyra-assistant", () => {
    expect(Object.keys(main).sort()).toMatchInlineSnapshot(`
      [
        "AgentCalled",
        "AppConfigError",
        "AssistantConfig",
        "CONFIRM_TIMEOUT_MS",
        "CommandDefinitionError",
        "GrantConfig",
        "canonicalJson",
        "catalog",
        "confirmationBroker",
        "covers",
        "createApp",
        "createCallPath",
        "defineCommand",
        "digestOf",
        "formatOutcome",
        "isAbility",
        "isAbilityPattern",
        "isAppPath",
        "memoryRateLimitStore",
        "offered",
        "percentEncode",
        "ran",
        "randomIds",
        "systemClock",
        "toolOf",
      ]
    `);
  });

  it("elyra-assistant/testing", () => {
    expect(Object.keys(testing).sort()).toMatchInlineSnapshot(`
      [
        "answeringConfirmer",
        "confirmationBroker",
        "countingIds",
        "failingRateLimitStore",
        "fails",
        "isFailure",
        "memoryRateLimitStore",
        "overloaded",
        "refuses",
        "says",
        "silentConfirmer",
        "simulatedClock",
        "standInMessagesApi",
        "toErrorBody",
        "toMessage",
        "toolCall",
      ]
    `);
  });

  it("elyra-assistant/anthropic", () => {
    expect(Object.keys(anthropic).sort()).toMatchInlineSnapshot(`
      [
        "anthropic",
      ]
    `);
  });
});
