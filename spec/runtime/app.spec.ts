import { AppConfigError, catalog, createApp, offered } from "elyra-assistant";
import { describe, expect, it } from "vitest";
import { spyCommands, type TestUser, userOf } from "../fixtures/spyCommands.ts";

const make = (assistant: unknown, mcp?: unknown) =>
  createApp({
    commands: spyCommands().commands,
    userAbilities: (user) => (user as TestUser).abilities,
    assistant: assistant as never,
    ...(mcp === undefined ? {} : { mcp: mcp as never }),
  });

const configError = (f: () => unknown): string => {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(AppConfigError);
    return (error as AppConfigError).message;
  }
  throw new Error("expected an AppConfigError");
};

describe("createApp", () => {
  it("fills the assistant's documented defaults", () => {
    const app = make({ allow: ["customers.*"] });
    expect(app.assistant).toMatchObject({
      allow: ["customers.*"],
      confirm: [],
      model: "claude-sonnet-5-5",
      maxSteps: 8,
      maxTokensPerConversation: 5_000_000,
      windowContext: true,
      codeMode: false,
      codeExecutionTool: "code_execution_20260120",
      toolSearch: "auto",
      toolSearchAboveTools: 30,
      toolSearchAboveTokens: 10_000,
      toolSearchTool: "tool_search_tool_bm25_20251119",
      instructions: "",
    });
    expect(app.assistant?.rateLimit).toBeUndefined();
    expect(app.mcp).toBeUndefined();
  });

  it.each([
    [
      { allow: ["cust*"] },
      'createApp: assistant.allow[0]: must be an ability, "resource.*" or "*"',
    ],
    [
      { allow: ["a"], confirm: ["*.delete"] },
      'createApp: assistant.confirm[0]: must be an ability, "resource.*" or "*"',
    ],
    [{}, "createApp: assistant.allow: is missing"],
    [
      { allow: ["a"], maxSteps: 0 },
      "createApp: assistant.maxSteps: expected a number between 1 and 64, got 0",
    ],
    [
      { allow: ["a"], rateLimit: { calls: 0, perSeconds: 60 } },
      "createApp: assistant.rateLimit.calls: expected a number greater than or equal to 1, got 0",
    ],
    [
      { allow: ["a"], rateLimit: { calls: 1, perSeconds: -1 } },
      "createApp: assistant.rateLimit.perSeconds: expected a positive number, got -1",
    ],
    [
      { allow: ["a"], alow: ["b"] },
      'createApp: assistant.alow: is unexpected, expected: "allow" | "confirm" | "rateLimit" | "instructions" | "model" | "maxSteps" | "maxTokensPerConversation" | "windowContext" | "codeMode" | "codeExecutionTool" | "toolSearch" | "toolSearchAboveTools" | "toolSearchAboveTokens" | "toolSearchTool" | "compactHistoryAbove" | "compac…',
    ],
  ])("refuses the assistant config %j", (config, message) => {
    expect(configError(() => make(config))).toBe(message);
  });

  it("names the mcp field when its grant is bad", () => {
    expect(configError(() => make({ allow: ["a"] }, { allow: "customers.view" }))).toMatch(
      /^createApp: mcp\.allow: /,
    );
  });

  it("refuses a userAbilities that is not a function", () => {
    expect(configError(() => createApp({ commands: [], userAbilities: undefined as never }))).toBe(
      "createApp: userAbilities must be a function of the user",
    );
  });
});

describe("the catalog", () => {
  const app = make({ allow: ["*"] }, { allow: ["customers.view", "invoices.*"] });

  it("makes a tool of each granted command that has an ability, sorted by name", () => {
    expect(catalog(app.assistant!).map((t) => t.name)).toEqual([
      "admin_reindex",
      "customers_delete",
      "customers_show",
      "customers_update",
      "invoices_create",
      "invoices_index",
    ]);
  });

  it("never makes a tool of a command without an ability, even under *", () => {
    expect(catalog(app.assistant!).some((t) => t.name === "internal_sync")).toBe(false);
  });

  it("keeps MCP's grant separate from the assistant's", () => {
    expect(catalog(app.mcp!).map((t) => t.name)).toEqual([
      "customers_show",
      "invoices_create",
      "invoices_index",
    ]);
  });

  it("each tool has a name, description and input schema; an output schema only with a result schema", () => {
    const tool = catalog(app.assistant!).find((t) => t.name === "customers_show");
    expect(tool).toEqual({
      name: "customers_show",
      description: "Show one customer by id.",
      inputSchema: {
        type: "object",
        required: ["id"],
        properties: { id: { type: "number" } },
        additionalProperties: false,
      },
    });
  });
});

describe("offered", () => {
  const app = make({ allow: ["customers.*", "invoices.view"] }, { allow: ["customers.delete"] });

  it("filters the assistant's catalog by the user's abilities now", () => {
    expect(
      offered(app, "assistant", userOf(["customers.view", "invoices.*"])).map((t) => t.name),
    ).toEqual(["customers_show", "invoices_index"]);
    expect(offered(app, "assistant", userOf(["*"])).map((t) => t.name)).toEqual([
      "customers_delete",
      "customers_show",
      "customers_update",
      "invoices_index",
    ]);
    expect(offered(app, "assistant", userOf([]))).toEqual([]);
  });

  it("does not filter MCP by the user (the app's grant decides)", () => {
    expect(offered(app, "mcp").map((t) => t.name)).toEqual(["customers_delete"]);
  });

  it("offers nothing on a surface the app has no grant for", () => {
    const bare = createApp({ commands: spyCommands().commands, userAbilities: () => ["*"] });
    expect(offered(bare, "assistant", userOf(["*"]))).toEqual([]);
    expect(offered(bare, "mcp")).toEqual([]);
  });
});
