/**
 * The tools a request carries (issue 32): `strict: true` for each tool whose
 * schema is in the strict subset, while the request's strict limits allow;
 * a command's `examples` as `input_examples`; in code mode, a tool code may
 * call keeps `allowed_callers` and is never strict (the API refuses strict
 * tools in programmatic calling).
 */
import { Schema } from "effect";
import { type AnyCommand, catalog, createApp, defineCommand } from "elyra-assistant";
import { describe, expect, it } from "vitest";
import {
  STRICT_OPTIONAL_PARAMETERS,
  STRICT_TOOLS_PER_REQUEST,
  STRICT_UNION_PARAMETERS,
} from "../../src/runtime/commands/strictSchema.ts";
import type { ClientTool } from "../../src/runtime/prompt/model.ts";
import { requestTools } from "../../src/runtime/prompt/requestTools.ts";

const command = (
  name: string,
  args: Schema.Struct.Fields,
  more: { readonly can?: string; readonly examples?: ReadonlyArray<object> } = {},
): AnyCommand =>
  defineCommand({
    name,
    description: `Does ${name}.`,
    can: more.can ?? `things.${name}`,
    args,
    ...(more.examples === undefined ? {} : { examples: more.examples as never }),
    run: () => null,
  });

const toolsOf = (
  commands: ReadonlyArray<AnyCommand>,
  assistant: { readonly codeMode?: boolean; readonly confirm?: ReadonlyArray<string> } = {},
): ReadonlyArray<ClientTool & { readonly type?: string }> => {
  const app = createApp({
    commands,
    userAbilities: () => ["*"],
    assistant: { allow: ["*"], ...assistant },
  });
  const grant = app.assistant;
  if (grant === undefined) throw new Error("no assistant");
  return requestTools(grant, catalog(grant)) as ReadonlyArray<ClientTool>;
};

const byName = (tools: ReadonlyArray<ClientTool & { readonly type?: string }>) =>
  Object.fromEntries(tools.map((t) => [t.name, t]));

describe("requestTools: strict and examples", () => {
  const show = command("show", { id: Schema.Number }, { examples: [{ id: 42 }] });
  const search = command("search", {
    q: Schema.NonEmptyString,
    limit: Schema.optional(Schema.Int),
  });
  const tag = command("tag", { id: Schema.Number, tags: Schema.Array(Schema.String) });

  it("sends strict: true for a schema in the strict subset, none for one outside it", () => {
    const tools = byName(toolsOf([show, search, tag]));
    expect(tools.show?.strict).toBe(true);
    expect(tools.tag?.strict).toBe(true);
    // NonEmptyString is minLength: 1, which strict tool use does not take.
    expect(tools.search).not.toHaveProperty("strict");
  });

  it("sends a command's examples as input_examples, and none for a command without", () => {
    const tools = byName(toolsOf([show, search]));
    expect(tools.show).toEqual({
      name: "show",
      description: "Does show.",
      input_schema: show.inputSchema,
      input_examples: [{ id: 42 }],
      strict: true,
    });
    expect(tools.search).toEqual({
      name: "search",
      description: "Does search.",
      input_schema: search.inputSchema,
    });
  });

  it("sends the catalog's schema as it is, strict or not", () => {
    const tools = byName(toolsOf([show, search]));
    expect(tools.show?.input_schema).toBe(show.inputSchema);
    expect(tools.search?.input_schema).toBe(search.inputSchema);
    expect(tools.show?.input_schema).toEqual({
      type: "object",
      required: ["id"],
      properties: { id: { type: "number" } },
      additionalProperties: false,
    });
  });
});

describe("requestTools: code mode", () => {
  const read = command(
    "read",
    { id: Schema.Number },
    { can: "things.read", examples: [{ id: 1 }] },
  );
  const drop = command(
    "drop",
    { id: Schema.Number },
    { can: "things.drop", examples: [{ id: 2 }] },
  );

  it("a tool code may call keeps allowed_callers and is not strict; a confirm tool is direct only and strict", () => {
    const tools = toolsOf([read, drop], { codeMode: true, confirm: ["things.drop"] });
    expect(tools.map((t) => t.name)).toEqual(["drop", "read", "code_execution"]);
    const named = byName(tools);
    expect(named.read).toEqual({
      name: "read",
      description: "Does read.",
      input_schema: read.inputSchema,
      input_examples: [{ id: 1 }],
      allowed_callers: ["direct", "code_execution_20260120"],
    });
    expect(named.drop).toEqual({
      name: "drop",
      description: "Does drop.",
      input_schema: drop.inputSchema,
      input_examples: [{ id: 2 }],
      strict: true,
    });
    expect(named.code_execution).toEqual({
      type: "code_execution_20260120",
      name: "code_execution",
    });
  });

  it("without code mode the same tools are strict and have no allowed_callers", () => {
    const tools = byName(toolsOf([read, drop], { confirm: ["things.drop"] }));
    expect(tools.read?.strict).toBe(true);
    expect(tools.read).not.toHaveProperty("allowed_callers");
    expect(tools).not.toHaveProperty("code_execution");
  });
});

describe("requestTools: the request's strict limits, spent in order", () => {
  const named = (i: number) => `t${String(i).padStart(2, "0")}`;

  it(`makes at most ${STRICT_TOOLS_PER_REQUEST} tools strict`, () => {
    const commands = Array.from({ length: STRICT_TOOLS_PER_REQUEST + 3 }, (_, i) =>
      command(named(i), { id: Schema.Number }),
    );
    const tools = toolsOf(commands);
    expect(tools.filter((t) => t.strict === true).map((t) => t.name)).toEqual(
      commands.slice(0, STRICT_TOOLS_PER_REQUEST).map((c) => c.name),
    );
  });

  it(`spends at most ${STRICT_OPTIONAL_PARAMETERS} optional parameters; a later tool that fits is still strict`, () => {
    const optional = (n: number) =>
      Object.fromEntries(
        Array.from({ length: n }, (_, i) => [`p${i}`, Schema.optional(Schema.String)]),
      );
    const tools = toolsOf([
      command("a", optional(10)),
      command("b", optional(10)),
      command("c", optional(10)), // 30 > 24: not strict
      command("d", optional(4)), // 24: strict
      command("e", optional(1)), // 25: not strict
      command("f", { id: Schema.Number }), // no optional parameter: strict
    ]);
    expect(Object.fromEntries(tools.map((t) => [t.name, t.strict === true]))).toEqual({
      a: true,
      b: true,
      c: false,
      d: true,
      e: false,
      f: true,
    });
  });

  it(`spends at most ${STRICT_UNION_PARAMETERS} union-typed parameters`, () => {
    const unions = (n: number) =>
      Object.fromEntries(
        Array.from({ length: n }, (_, i) => [`p${i}`, Schema.NullOr(Schema.String)]),
      );
    const tools = toolsOf([
      command("a", unions(10)),
      command("b", unions(7)),
      command("c", unions(6)),
    ]);
    expect(Object.fromEntries(tools.map((t) => [t.name, t.strict === true]))).toEqual({
      a: true,
      b: false,
      c: true,
    });
  });

  it("counts only the tools it makes strict: code-callable tools spend nothing", () => {
    const commands = Array.from({ length: STRICT_TOOLS_PER_REQUEST + 5 }, (_, i) =>
      command(named(i), { id: Schema.Number }, { can: i < 5 ? "code.run" : "direct.run" }),
    );
    const tools = toolsOf(commands, { codeMode: true, confirm: ["direct.*"] });
    expect(tools.filter((t) => t.strict === true)).toHaveLength(STRICT_TOOLS_PER_REQUEST);
    expect(tools.filter((t) => t.allowed_callers !== undefined)).toHaveLength(5);
    expect(tools.some((t) => t.strict === true && t.allowed_callers !== undefined)).toBe(false);
  });
});
