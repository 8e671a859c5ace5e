/**
 * What `tools/list` sends of a tool is MCP's own fields only (issue 32): a
 * command's `examples` and strictness are the Messages API's (its
 * `input_examples` and `strict`) and MCP's Tool has no field for them, so a
 * command that declares examples is listed exactly as one that doesn't.
 */
import { Schema } from "effect";
import { createApp, defineCommand } from "elyra-assistant";
import { afterEach, describe, expect, it } from "vitest";
import { connect, type Session } from "./connect.ts";

const sessions: Session[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.close();
});

/** The fields MCP's Tool has (2025-06-18): name, title, description, the schemas, annotations, _meta. */
const MCP_TOOL_FIELDS = new Set([
  "name",
  "title",
  "description",
  "inputSchema",
  "outputSchema",
  "annotations",
  "_meta",
]);

describe("tools/list of a command with examples", () => {
  it("lists MCP's fields only: no examples, input_examples or strict", async () => {
    const invoicesShow = defineCommand({
      name: "invoices_show",
      description: "Show one invoice.",
      title: "Show invoice",
      can: "invoices.view",
      args: { id: Schema.Number },
      examples: [{ id: 42 }, { id: 7 }],
      result: Schema.Struct({ id: Schema.Number }),
      run: ({ id }) => ({ id }),
    });
    const plain = defineCommand({
      name: "invoices_plain",
      description: "Show one invoice.",
      title: "Show invoice",
      can: "invoices.view",
      args: { id: Schema.Number },
      result: Schema.Struct({ id: Schema.Number }),
      run: ({ id }) => ({ id }),
    });
    const app = createApp({
      commands: [invoicesShow, plain],
      userAbilities: () => ["*"],
      mcp: { allow: ["invoices.*"] },
    });
    const session = await connect(app);
    sessions.push(session);
    const { tools } = await session.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["invoices_plain", "invoices_show"]);
    for (const tool of tools)
      expect(Object.keys(tool).filter((key) => !MCP_TOOL_FIELDS.has(key))).toEqual([]);
    const [withExamples, without] = [tools[1], tools[0]];
    expect({ ...withExamples, name: "x" }).toEqual({ ...without, name: "x" });
  });
});
