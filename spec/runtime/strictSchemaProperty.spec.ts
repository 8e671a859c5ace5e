/**
 * strictAllowed over commands' own schemas (issue 32), as a property: for
 * random argument schemas written with effect, it never says yes to one
 * holding a keyword outside the strict subset, an object without
 * `additionalProperties: false`, or a recursive `$ref`; and planting either
 * anywhere in a strict schema makes it not strict. The oracle walks the
 * JSON by plain recursion, apart from the checker's own walk.
 */
import { Schema } from "effect";
import { defineCommand } from "elyra-assistant";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../src/runtime/commands/command.ts";
import { strictAllowed } from "../../src/runtime/commands/strictSchema.ts";
import { runs } from "../properties/runs.ts";

const inputOf = (args: Schema.Struct.Fields): JsonSchema =>
  defineCommand({ name: "x", description: "d", can: "a.b", args, run: () => null }).inputSchema;

/** The keywords the docs list for the strict subset; anything else is unsupported. */
const SUPPORTED = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "minItems",
  "enum",
  "const",
  "anyOf",
  "allOf",
  "$ref",
  "$defs",
  "definitions",
  "default",
  "format",
  "description",
  "title",
]);

/** Keywords effect writes that the subset lacks: one of them is planted in a strict schema. */
const UNSUPPORTED: ReadonlyArray<readonly [string, unknown]> = [
  ["minLength", 1],
  ["maxLength", 5],
  ["pattern", "^a$"],
  ["minimum", 0],
  ["maximum", 9],
  ["exclusiveMinimum", 0],
  ["multipleOf", 2],
  ["maxItems", 3],
  ["uniqueItems", true],
  ["oneOf", [{ type: "string" }]],
  ["not", { type: "null" }],
  ["patternProperties", {}],
  ["$id", "/schemas/unknown"],
  ["$comment", "a note"],
  ["examples", ["x"]],
];

/**
 * Every schema position of `schema`, by plain recursion over the JSON (no
 * `$ref` followed): the oracle walks what the checker walks, differently.
 */
const positions = (schema: unknown): ReadonlyArray<Record<string, unknown>> => {
  const found: Record<string, unknown>[] = [];
  const visit = (node: unknown) => {
    if (typeof node !== "object" || node === null || Array.isArray(node)) return;
    const n = node as Record<string, unknown>;
    found.push(n);
    for (const key of ["properties", "$defs", "definitions", "patternProperties"])
      if (typeof n[key] === "object" && n[key] !== null)
        Object.values(n[key] as object).forEach(visit);
    for (const key of ["anyOf", "allOf", "oneOf"])
      if (Array.isArray(n[key])) (n[key] as unknown[]).forEach(visit);
    if (Array.isArray(n.items)) n.items.forEach(visit);
    else visit(n.items);
    for (const key of ["additionalProperties", "additionalItems", "not"]) visit(n[key]);
  };
  visit(schema);
  return found;
};

/** What the docs say strict cannot take, found in `schema`: unsupported keywords, open objects, recursion. */
const violations = (schema: JsonSchema): ReadonlyArray<string> => {
  const problems: string[] = [];
  for (const node of positions(schema)) {
    for (const key of Object.keys(node)) if (!SUPPORTED.has(key)) problems.push(`keyword ${key}`);
    const type = node.type;
    const types = Array.isArray(type) ? type : [type];
    if (types.includes("object") && node.additionalProperties !== false)
      problems.push("an open object");
    if ("minItems" in node && node.minItems !== 0 && node.minItems !== 1)
      problems.push("minItems > 1");
  }
  // A cycle among the $defs' references.
  const defs = (schema.$defs ?? {}) as Record<string, unknown>;
  const refsOf = (name: string) =>
    [...JSON.stringify(defs[name]).matchAll(/"#\/\$defs\/([^"]+)"/g)].map((m) => m[1] as string);
  const state = new Map<string, "open" | "done">();
  const cyclic = (name: string): boolean => {
    if (state.get(name) === "open") return true;
    if (state.get(name) === "done" || !(name in defs)) return false;
    state.set(name, "open");
    const found = refsOf(name).some(cyclic);
    state.set(name, "done");
    return found;
  };
  if (Object.keys(defs).some(cyclic)) problems.push("a recursive $ref");
  return problems;
};

interface Tree {
  readonly name: string;
  readonly kids: ReadonlyArray<Tree>;
}
const Tree: Schema.Schema<Tree> = Schema.Struct({
  name: Schema.String,
  kids: Schema.Array(Schema.suspend(() => Tree)),
}).annotations({ identifier: "Tree" });
const City = Schema.Struct({
  name: Schema.String,
  zip: Schema.optional(Schema.String),
}).annotations({
  identifier: "City",
});

/** Argument schemas as apps write them with effect: leaves, then wrappers around them. */
const leaf: fc.Arbitrary<Schema.Schema.Any> = fc.constantFrom<Schema.Schema.Any>(
  Schema.String,
  Schema.Number,
  Schema.Int,
  Schema.Boolean,
  Schema.Null,
  Schema.Literal("a", "b"),
  Schema.Literal(1, 2),
  Schema.DateFromString,
  Schema.NumberFromString,
  Schema.String.annotations({ description: "words", title: "Words", default: "" }),
  Schema.NonEmptyString,
  Schema.Trimmed,
  Schema.Char,
  Schema.UUID,
  Schema.String.pipe(Schema.maxLength(8)),
  Schema.String.pipe(Schema.pattern(/^[a-z]+$/)),
  Schema.Number.pipe(Schema.between(0, 10)),
  Schema.Number.pipe(Schema.positive()),
  Schema.Number.pipe(Schema.multipleOf(5)),
  Schema.String.annotations({ examples: ["x"] }),
  Schema.String.annotations({ jsonSchema: { format: "email" } }),
  Schema.String.annotations({ jsonSchema: { format: "money" } }),
  Schema.Enums({ A: "a", B: "b" }),
  Schema.Unknown,
  Schema.Object,
  Schema.BigInt,
  Tree,
  City,
);

const names = fc.constantFrom("id", "name", "note", "items", "address", "when", "tags", "kind");

const argSchema: fc.Arbitrary<Schema.Schema.Any> = fc.letrec<{ schema: Schema.Schema.Any }>(
  (tie) => ({
    schema: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaf,
      tie("schema").map((s) => Schema.Array(s)),
      tie("schema").map((s) => Schema.NonEmptyArray(s)),
      tie("schema").map((s) => Schema.Array(s).pipe(Schema.maxItems(3))),
      tie("schema").map((s) => Schema.NullOr(s)),
      fc.tuple(tie("schema"), tie("schema")).map(([a, b]) => Schema.Union(a, b)),
      fc.tuple(tie("schema"), tie("schema")).map(([a, b]) => Schema.Tuple(a, b)),
      tie("schema").map((s) => Schema.Record({ key: Schema.String, value: s })),
      fc
        .dictionary(names, fc.tuple(tie("schema"), fc.boolean()), { maxKeys: 3 })
        .map((fields) => Schema.Struct(fieldsOf(fields))),
    ),
  }),
).schema;

const fieldsOf = (
  fields: Record<string, readonly [Schema.Schema.Any, boolean]>,
): Schema.Struct.Fields =>
  Object.fromEntries(
    Object.entries(fields).map(([name, [s, optional]]) => [
      name,
      optional ? Schema.optional(s) : s,
    ]),
  );

/** A command's input schema from random arguments; undefined when effect cannot describe them. */
const commandSchema: fc.Arbitrary<JsonSchema | undefined> = fc
  .dictionary(names, fc.tuple(argSchema, fc.boolean()), { maxKeys: 4 })
  .map((fields) => {
    try {
      return inputOf(fieldsOf(fields));
    } catch {
      return undefined;
    }
  });

describe("strictAllowed over commands' own schemas (property)", () => {
  const holds = (allowed: (schema: JsonSchema) => boolean) =>
    fc.property(commandSchema, (schema) => {
      if (schema === undefined) return;
      if (allowed(schema)) expect(violations(schema)).toEqual([]);
    });

  it("never says yes to an unsupported keyword, an open object or recursion; says yes often enough to matter", () => {
    let yes = 0;
    let no = 0;
    fc.assert(
      fc.property(commandSchema, (schema) => {
        if (schema === undefined) return;
        const allowed = strictAllowed(schema);
        if (allowed) yes++;
        else no++;
        if (allowed) expect(violations(schema)).toEqual([]);
      }),
      { numRuns: runs(1_000) },
    );
    expect(yes).toBeGreaterThan(runs(1_000) / 10);
    expect(no).toBeGreaterThan(runs(1_000) / 10);
  });

  it("a checker that says yes to everything fails the property: the oracle has teeth", () => {
    expect(
      fc.check(
        holds(() => true),
        { numRuns: 1_000, seed: 32 },
      ).failed,
    ).toBe(true);
  });

  it("an unsupported keyword planted at any position of a strict schema makes it not strict", () => {
    const planted = commandSchema
      .filter((schema): schema is JsonSchema => schema !== undefined && strictAllowed(schema))
      .chain((schema) =>
        fc.record({
          schema: fc.constant(schema),
          at: fc.nat({ max: positions(schema).length - 1 }),
          keyword: fc.constantFrom(...UNSUPPORTED),
        }),
      );
    fc.assert(
      fc.property(planted, ({ schema, at, keyword: [key, value] }) => {
        const copy = structuredClone(schema) as Record<string, unknown>;
        const node = positions(copy)[at] as Record<string, unknown>;
        node[key] = value;
        expect(strictAllowed(copy)).toBe(false);
      }),
      { numRuns: runs(1_000) },
    );
  });

  it("opening any object of a strict schema makes it not strict", () => {
    const opened = commandSchema
      .filter((schema): schema is JsonSchema => schema !== undefined && strictAllowed(schema))
      .chain((schema) => {
        const objects = positions(schema).filter((n) => n.type === "object").length;
        return fc.record({
          schema: fc.constant(schema),
          at: fc.nat({ max: objects - 1 }),
          open: fc.constantFrom<unknown>(undefined, true, { type: "string" }),
        });
      });
    fc.assert(
      fc.property(opened, ({ schema, at, open }) => {
        const copy = structuredClone(schema) as Record<string, unknown>;
        const node = positions(copy).filter((n) => n.type === "object")[at] as Record<
          string,
          unknown
        >;
        if (open === undefined) delete node.additionalProperties;
        else node.additionalProperties = open;
        expect(strictAllowed(copy)).toBe(false);
      }),
      { numRuns: runs(1_000) },
    );
  });
});
