/** The public surface: a change to what each entry point exports shows up here. */

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as main from "elyra-assistant";
import * as anthropic from "elyra-assistant/anthropic";
import * as http from "elyra-assistant/http";
import * as machines from "elyra-assistant/machines";
import * as mcp from "elyra-assistant/mcp";
import * as postgres from "elyra-assistant/postgres";
import * as proxy from "elyra-assistant/proxy";
import * as react from "elyra-assistant/react";
import * as redis from "elyra-assistant/redis";
import * as secrets from "elyra-assistant/secrets";
import * as sqlite from "elyra-assistant/sqlite";
import * as testing from "elyra-assistant/testing";
import * as ui from "elyra-assistant/ui";
import * as uiBundle from "elyra-assistant/ui/bundle.js";
import { describe, expect, it } from "vitest";
import pkg from "../package.json" with { type: "json" };

describe("public exports", () => {
  it("elyra-assistant", () => {
    expect(Object.keys(main).sort()).toMatchInlineSnapshot(`
      [
        "AgentCalled",
        "Answered",
        "AppConfigError",
        "AppendConflict",
        "AssistantConfig",
        "CODE_CALL_DEADLINE_MS",
        "CONFIRM_LABEL_TIMEOUT_MS",
        "CONFIRM_TIMEOUT_MS",
        "CommandDefinitionError",
        "ConfirmAnswered",
        "ConfirmRequested",
        "Failed",
        "FeedBehind",
        "GrantConfig",
        "HostConfigError",
        "HostFull",
        "IDLE_WINDOW_MS",
        "LeaseLost",
        "LiveQueryRefused",
        "LogEvent",
        "MAX_BEHIND",
        "MAX_CODE_CALLS",
        "MAX_LIVE_QUERIES",
        "MAX_STREAMS_PER_USER",
        "MAX_STREAMS_PER_WINDOW",
        "MAX_WINDOWS",
        "MissingPeerDependency",
        "ModelError",
        "NOTE_BOUNDS",
        "PROTOCOL_VERSION",
        "PromptRefused",
        "Reset",
        "ScriptCodeDelta",
        "ScriptFinished",
        "ScriptStarted",
        "ScriptWriting",
        "SelectionChanged",
        "SelectionRefused",
        "StepFinished",
        "StepStarted",
        "Stopped",
        "StoreContractBroken",
        "StreamsRefused",
        "TextDelta",
        "ToolFinished",
        "ToolStarted",
        "TurnStarted",
        "Usage",
        "VERSION",
        "WindowOwned",
        "WindowOwnerMismatch",
        "canonicalJson",
        "catalog",
        "confirmationBroker",
        "covers",
        "createApp",
        "createCallPath",
        "createHost",
        "defineCommand",
        "digestOf",
        "formatOutcome",
        "history",
        "isAbility",
        "isAbilityPattern",
        "memoryRateLimitStore",
        "memorySecrets",
        "memoryStore",
        "memoryUsageStore",
        "offered",
        "panelItems",
        "ran",
        "randomIds",
        "resourceOf",
        "selections",
        "status",
        "systemClock",
        "systemPrompt",
        "toolOf",
        "usage",
        "windowNote",
      ]
    `);
  });

  it("elyra-assistant/testing", () => {
    expect(Object.keys(testing).sort()).toMatchInlineSnapshot(`
      [
        "CODE_TOOL",
        "ScriptInvalid",
        "StoreUnavailable",
        "answeringConfirmer",
        "argumentsOf",
        "checkCallPath",
        "codeCalls",
        "codeFinished",
        "codeRuns",
        "confirmationBroker",
        "countingIds",
        "editingConfirmer",
        "encodeEvent",
        "failingRateLimitStore",
        "fails",
        "fakeModel",
        "faultRates",
        "faultyModel",
        "faultyStore",
        "invalidArgumentsOf",
        "isFailure",
        "mayRun",
        "memoryLeases",
        "memoryRateLimitStore",
        "memorySecrets",
        "memoryStore",
        "memoryUsageStore",
        "overloaded",
        "refuses",
        "responseOf",
        "says",
        "silentConfirmer",
        "simulatedClock",
        "standInMessagesApi",
        "testApp",
        "toErrorBody",
        "toMessage",
        "toStreamEvents",
        "toolCall",
        "toolCallsOf",
        "usersOf",
        "wordsOf",
      ]
    `);
  });

  it("elyra-assistant/ui", () => {
    expect(Object.keys(ui).sort()).toMatchInlineSnapshot(`
      [
        "AssistantPanel",
        "ConnectionError",
        "DEFAULT_GREETING",
        "HostError",
        "PANEL_TAG",
        "assistant",
        "assistantClient",
        "assistantPaletteEntry",
        "createAssistantStore",
        "defineAssistantPanel",
        "installAssistant",
        "isAppPath",
        "openAssistant",
        "panelItems",
        "stepHref",
      ]
    `);
  });

  it("elyra-assistant/ui/bundle.js, prebuilt for a page with no bundler, exports what elyra-assistant/ui does", () => {
    expect(Object.keys(uiBundle).sort()).toEqual(Object.keys(ui).sort());
  });

  it("elyra-assistant/react", () => {
    expect(Object.keys(react).sort()).toMatchInlineSnapshot(`
      [
        "AssistantProvider",
        "ConnectionError",
        "HostError",
        "assistantClient",
        "createAssistantStore",
        "isAppPath",
        "stepHref",
        "useAssistant",
        "useLiveQuery",
      ]
    `);
  });

  it("elyra-assistant/http", () => {
    expect(Object.keys(http).sort()).toMatchInlineSnapshot(`
      [
        "API_KEY_PATTERN",
        "BASE_PATH",
        "CLIENT_HEADER",
        "ClientId",
        "ConfirmBody",
        "KeyBody",
        "LastEventId",
        "LiveQuery",
        "MAX_BODY_BYTES",
        "PromptBody",
        "PromptFields",
        "ROUTES",
        "ROUTE_METHODS",
        "START_OVER_EVENT",
        "SelectedBody",
        "TOKEN_HEADER",
        "assistantHttp",
        "toNodeListener",
      ]
    `);
  });

  it("elyra-assistant/proxy", () => {
    expect(Object.keys(proxy).sort()).toMatchInlineSnapshot(`
      [
        "DEFAULT_ANTHROPIC_VERSION",
        "MessagesRequest",
        "ProxyConfigError",
        "ProxyRefusal",
        "STREAMING_REFUSED",
        "createProxy",
      ]
    `);
  });

  it("elyra-assistant/mcp", () => {
    expect(Object.keys(mcp).sort()).toMatchInlineSnapshot(`
      [
        "MCP_MAX_MESSAGE_BYTES",
        "MCP_MAX_MESSAGE_VALUES",
        "MCP_SESSIONS_MAX",
        "MCP_SESSIONS_PER_USER",
        "MCP_SESSION_IDLE_MS",
        "McpConfigError",
        "cannotConfirmText",
        "mcpHttp",
        "mcpServer",
        "notifyToolsChanged",
        "serveMcpStdio",
      ]
    `);
  });

  it("elyra-assistant/redis", () => {
    expect(Object.keys(redis).sort()).toMatchInlineSnapshot(`
      [
        "redisStore",
      ]
    `);
  });

  it("elyra-assistant/postgres", () => {
    expect(Object.keys(postgres).sort()).toMatchInlineSnapshot(`
      [
        "PostgresConfigError",
        "PostgresUnavailable",
        "PostgresWriterRequired",
        "postgresStore",
      ]
    `);
  });

  it("elyra-assistant/secrets", () => {
    expect(Object.keys(secrets).sort()).toMatchInlineSnapshot(`
      [
        "SecretsDirectoryUnsafe",
        "SecretsFileInvalid",
        "fileSecrets",
      ]
    `);
  });

  it("elyra-assistant/anthropic", () => {
    expect(Object.keys(anthropic).sort()).toMatchInlineSnapshot(`
      [
        "NoKeySlot",
        "anthropic",
        "modelSource",
      ]
    `);
  });

  it("elyra-assistant/sqlite", () => {
    expect(Object.keys(sqlite).sort()).toMatchInlineSnapshot(`
      [
        "StoreInUse",
        "sqliteStore",
      ]
    `);
  });

  it("elyra-assistant/machines", () => {
    expect(Object.keys(machines).sort()).toMatchInlineSnapshot(`
      [
        "ActorNotProvided",
        "COALESCE_MS",
        "INTERRUPTED",
        "REFUSED",
        "SCRIPT_CUT_SHORT",
        "STOPPED_MARK",
        "WINDOW_RULE",
        "budgetSpent",
        "coalescerMachine",
        "codeRunMachine",
        "confirmationMachine",
        "conversationId",
        "conversationMachine",
        "lateResult",
        "recoverFrom",
        "recoveryId",
        "stepsSpent",
        "supervisorMachine",
        "tooManyCodeCalls",
      ]
    `);
  });

  it("package.json exports exactly the entries above, each to compiled types and JavaScript only", () => {
    type Target = Record<"types" | "default", string>;
    const entries = Object.entries(pkg.exports).filter(
      (entry): entry is [string, Target] => entry[0] !== "./package.json",
    );
    expect(entries.map(([key]) => key).sort()).toEqual(
      [
        ".",
        ...[
          "anthropic",
          "http",
          "machines",
          "mcp",
          "postgres",
          "proxy",
          "react",
          "redis",
          "secrets",
          "sqlite",
          "testing",
          "ui",
          "ui/bundle.js",
        ].map((n) => `./${n}`),
      ].sort(),
    );
    for (const [, target] of entries) {
      // Nothing a consumer can reach names a .ts file: no condition selects the sources.
      expect(Object.keys(target)).toEqual(["types", "default"]);
      expect(target.default).toMatch(/^\.\/dist\/.*\.js$/);
      expect(target.types).toBe(target.default.replace(/\.js$/, ".d.ts"));
    }
    expect(pkg.exports["./package.json"]).toBe("./package.json");
    expect(pkg.imports).toEqual({ "#cli": "./dist/cli/main.js" });
    expect(JSON.stringify(pkg.exports)).not.toMatch(/(?<!\.d)\.ts"/);
  });

  it("tsconfig.json's paths send each entry point (and #cli) to the source of its compiled file", () => {
    // How this repository runs its sources (tsc, tsx, Vitest, esbuild, dependency-cruiser
    // all follow `paths`): the same map as package.json's, dist/x.js read as src/x.ts.
    const text = readFileSync(join(import.meta.dirname, "..", "tsconfig.json"), "utf8");
    const paths: Record<string, string[]> = JSON.parse(text).compilerOptions.paths;
    const sourceOf = (compiled: string) =>
      compiled.replace("./dist/", "./src/").replace(/\.js$/, ".ts");
    const expected: Record<string, string[]> = { "#cli": [sourceOf(pkg.imports["#cli"])] };
    for (const [key, target] of Object.entries(pkg.exports)) {
      if (typeof target === "string") continue;
      const name = key === "." ? "elyra-assistant" : `elyra-assistant/${key.slice(2)}`;
      expected[name] = [sourceOf(target.default)];
    }
    expect(paths).toEqual(expected);
    for (const [source] of Object.values(paths))
      expect(existsSync(join(import.meta.dirname, "..", source ?? ""))).toBe(true);
  });

  it("the README's table of entry points names each entry of the exports map, and only those", () => {
    const readme = readFileSync(join(import.meta.dirname, "..", "README.md"), "utf8");
    const listed = [...readme.matchAll(/^\| `(elyra-assistant(?:\/[a-z]+)*(?:\.js)?)` +\|/gm)].map(
      (m) => m[1],
    );
    const exported = Object.keys(pkg.exports)
      .filter((key) => key !== "./package.json")
      .map((key) => (key === "." ? "elyra-assistant" : `elyra-assistant/${key.slice(2)}`));
    expect([...listed].sort()).toEqual(exported.sort());
  });
});
