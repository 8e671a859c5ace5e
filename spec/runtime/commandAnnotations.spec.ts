/** A command's `title` and `mcp` hints: checked when it is declared, kept as declared. */
import { CommandDefinitionError, defineCommand } from "elyra-assistant";
import { describe, expect, it } from "vitest";
import { humanTitle, toolTitle } from "../../src/runtime/commands/toolHints.ts";

const base = {
  name: "things_do",
  description: "Does a thing.",
  can: "things.do",
  args: {},
  run: () => null,
};

/** The reason `defineCommand` refuses `spec` with. */
const refused = (spec: Record<string, unknown>): string => {
  try {
    defineCommand({ ...base, ...spec } as typeof base);
  } catch (error) {
    expect(error).toBeInstanceOf(CommandDefinitionError);
    return (error as CommandDefinitionError).reason;
  }
  throw new Error("expected a CommandDefinitionError");
};

const TITLE = "title must be one line of 1 to 100 characters";
const MCP_TITLE = "mcp.title must be one line of 1 to 100 characters";

describe("title", () => {
  it.each([[""], ["   "], ["x".repeat(101)], ["two\nlines"], [42], [null]])(
    "refuses the title %j",
    (title) => {
      expect(refused({ title })).toBe(TITLE);
    },
  );

  it("keeps a title of up to 100 characters, trimmed", () => {
    expect(defineCommand({ ...base, title: "  Do the thing " }).title).toBe("Do the thing");
    expect(defineCommand({ ...base, title: "x".repeat(100) }).title).toHaveLength(100);
  });

  it("has none unless declared", () => {
    const command = defineCommand(base);
    expect(command).not.toHaveProperty("title");
    expect(command).not.toHaveProperty("mcp");
  });
});

describe("mcp hints", () => {
  it("refuses what is not an object of hints", () => {
    for (const mcp of [null, true, "readOnly", ["readOnlyHint"]]) {
      expect(refused({ mcp })).toBe(
        "mcp must be an object of hints: title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint",
      );
    }
  });

  it("refuses a hint MCP doesn't have, such as a misspelt one", () => {
    expect(refused({ mcp: { readonlyHint: true } })).toBe(
      'mcp has no hint "readonlyHint": it takes title, readOnlyHint, destructiveHint, idempotentHint and openWorldHint',
    );
  });

  it.each([
    ["readOnlyHint", "yes"],
    ["destructiveHint", 1],
    ["idempotentHint", null],
    ["openWorldHint", "false"],
  ])("refuses %s %j: hints are true or false", (hint, value) => {
    expect(refused({ mcp: { [hint]: value } })).toBe(`mcp.${hint} must be true or false`);
  });

  it.each([[""], ["x".repeat(101)], [7]])("refuses the mcp.title %j", (title) => {
    expect(refused({ mcp: { title } })).toBe(MCP_TITLE);
  });

  it("refuses a read-only tool that says it is destructive", () => {
    const reason =
      "mcp.destructiveHint can't be true for a read-only tool (live, or mcp.readOnlyHint)";
    expect(refused({ live: true, mcp: { destructiveHint: true } })).toBe(reason);
    expect(refused({ mcp: { readOnlyHint: true, destructiveHint: true } })).toBe(reason);
  });

  it("a live command may say it is not read-only, and then destructive", () => {
    const command = defineCommand({
      ...base,
      live: true,
      mcp: { readOnlyHint: false, destructiveHint: true },
    });
    expect(command.mcp).toEqual({ readOnlyHint: false, destructiveHint: true });
  });

  it("keeps the declared hints, the title trimmed, and nothing else", () => {
    const command = defineCommand({
      ...base,
      title: "Do it",
      mcp: {
        title: " Do the thing now ",
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: true,
      },
    });
    expect(command.title).toBe("Do it");
    expect(command.mcp).toEqual({
      title: "Do the thing now",
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(defineCommand({ ...base, mcp: {} }).mcp).toEqual({});
  });
});

describe("humanTitle", () => {
  it.each([
    ["customers_destroy", "Customers destroy"],
    ["invoices-mark-paid", "Invoices mark paid"],
    ["invoicesMarkPaid", "Invoices mark paid"],
    ["getPDFReport", "Get PDF report"],
    ["admin_reindex_v2", "Admin reindex v2"],
    ["x", "X"],
    ["__", "__"],
  ])("%s → %s", (name, title) => {
    expect(humanTitle(name)).toBe(title);
  });
});

describe("toolTitle", () => {
  it.each([
    ["customers_destroy", "Delete a customer"],
    ["customers_delete", "Delete a customer"],
    ["invoices_store", "Create an invoice"],
    ["invoices_create", "Create an invoice"],
    ["customers_update", "Update a customer"],
    ["customers_show", "Show a customer"],
    ["invoices_index", "List invoices"],
    ["line_items_update", "Update a line item"],
    ["companies_show", "Show a company"],
    ["addresses_delete", "Delete an address"],
    ["users_show", "Show a user"],
    ["uploads_store", "Create an upload"],
    ["PDF_reports_show", "Show a PDF report"],
    ["profile_update", "Update the profile"],
    // Not a resource and a verb: its words.
    ["search_reindex", "Search reindex"],
    ["getPDFReport", "Get PDF report"],
    ["show", "Show"],
    ["x", "X"],
  ])("%s → %s", (name, title) => {
    expect(toolTitle(name)).toBe(title);
  });
});
