/**
 * Which input schemas may be sent with `strict: true` (issue 32): the
 * subset the Messages API documents for strict tool use (every object
 * closed, local non-recursive `$ref`s, `enum`/`const` of primitives, listed
 * string formats, `minItems` 0 or 1, no string, number or array bounds),
 * and each kind it refuses, with where and why. The property over
 * commands' own schemas is strictSchemaProperty.spec.ts.
 */
import { Schema } from "effect";
import { defineCommand } from "elyra-assistant";
import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../src/runtime/commands/command.ts";
import {
  STRICT_OPTIONAL_PARAMETERS,
  STRICT_UNION_PARAMETERS,
  strictAllowed,
  strictCheck,
} from "../../src/runtime/commands/strictSchema.ts";

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
  ...extra,
});

const inputOf = (args: Schema.Struct.Fields): JsonSchema =>
  defineCommand({ name: "x", description: "d", can: "a.b", args, run: () => null }).inputSchema;

describe("strictAllowed: schemas in the strict subset", () => {
  it.each([
    ["no arguments", inputOf({})],
    [
      "strings, numbers, integers, booleans and null",
      inputOf({
        s: Schema.String,
        n: Schema.Number,
        i: Schema.Int,
        b: Schema.Boolean,
        z: Schema.Null,
      }),
    ],
    ["optional arguments", inputOf({ id: Schema.Number, note: Schema.optional(Schema.String) })],
    ["literals (enum)", inputOf({ status: Schema.Literal("active", "paused") })],
    ["nullable (anyOf with null)", inputOf({ note: Schema.NullOr(Schema.String) })],
    [
      "arrays, and minItems 1",
      inputOf({ tags: Schema.Array(Schema.String), ids: Schema.NonEmptyArray(Schema.Number) }),
    ],
    [
      "nested structs, closed",
      inputOf({ address: Schema.Struct({ street: Schema.String, city: Schema.String }) }),
    ],
    [
      "named parts in $defs",
      inputOf({
        address: Schema.Struct({ city: Schema.String }).annotations({ identifier: "City" }),
      }),
    ],
    [
      "a union of structs",
      inputOf({
        by: Schema.Union(
          Schema.Struct({ id: Schema.Number }),
          Schema.Struct({ email: Schema.String }),
        ),
      }),
    ],
    ["dates as strings", inputOf({ on: Schema.DateFromString })],
    [
      "descriptions, titles and defaults",
      inputOf({
        q: Schema.String.annotations({ description: "What to find", title: "Query", default: "" }),
      }),
    ],
    ["a listed string format", object({ when: { type: "string", format: "date-time" } })],
    ["const", object({ kind: { const: "invoice" } })],
    ["a type array", object({ note: { type: ["string", "null"] } })],
    ["allOf without $ref", object({ n: { allOf: [{ type: "number" }, { type: "integer" }] } })],
    [
      "definitions, the older table",
      object({ a: { $ref: "#/definitions/A" } }, { definitions: { A: { type: "string" } } }),
    ],
  ])("%s", (_, schema) => {
    expect(strictCheck(schema)).toMatchObject({ strict: true });
    expect(strictAllowed(schema)).toBe(true);
  });

  it("counts what a schema spends of the request's limits: optional and union-typed parameters", () => {
    expect(
      strictCheck(
        inputOf({
          id: Schema.Number,
          note: Schema.optional(Schema.NullOr(Schema.String)),
          address: Schema.optional(
            Schema.Struct({ city: Schema.String, zip: Schema.optional(Schema.String) }),
          ),
        }),
      ),
    ).toEqual({ strict: true, optional: 3, unions: 1 });
  });

  it("counts a named part each time it is used", () => {
    const City = Schema.Struct({
      name: Schema.String,
      zip: Schema.optional(Schema.String),
    }).annotations({ identifier: "City" });
    expect(strictCheck(inputOf({ from: City, to: City }))).toEqual({
      strict: true,
      optional: 2,
      unions: 0,
    });
  });
});

describe("strictAllowed: what the subset refuses, and where", () => {
  it.each([
    [
      "a string's minLength",
      inputOf({ q: Schema.NonEmptyString }),
      "input_schema.properties.q→$defs/NonEmptyString",
      "minLength is not supported",
    ],
    [
      "a string's maxLength",
      inputOf({ q: Schema.String.pipe(Schema.maxLength(5)) }),
      "input_schema.properties.q",
      "maxLength is not supported",
    ],
    [
      "a pattern",
      inputOf({ zip: Schema.String.pipe(Schema.pattern(/^\d{5}$/)) }),
      "input_schema.properties.zip",
      "pattern is not supported",
    ],
    [
      "a number's minimum and maximum",
      inputOf({ n: Schema.Number.pipe(Schema.between(1, 5)) }),
      "input_schema.properties.n",
      "minimum is not supported",
    ],
    [
      "an exclusive bound",
      inputOf({ n: Schema.Number.pipe(Schema.positive()) }),
      "input_schema.properties.n",
      "exclusiveMinimum is not supported",
    ],
    [
      "multipleOf",
      inputOf({ n: Schema.Number.pipe(Schema.multipleOf(2)) }),
      "input_schema.properties.n",
      "multipleOf is not supported",
    ],
    [
      "maxItems",
      inputOf({ tags: Schema.Array(Schema.String).pipe(Schema.maxItems(3)) }),
      "input_schema.properties.tags",
      "maxItems is not supported",
    ],
    [
      "minItems over 1",
      object({ tags: { type: "array", items: { type: "string" }, minItems: 2 } }),
      "input_schema.properties.tags",
      "minItems 2 is not 0 or 1",
    ],
    [
      "a tuple",
      inputOf({ pair: Schema.Tuple(Schema.String, Schema.Number) }),
      "input_schema.properties.pair",
      "additionalItems is not supported",
    ],
    [
      "an object open to more properties (a record)",
      inputOf({ byName: Schema.Record({ key: Schema.String, value: Schema.Number }) }),
      "input_schema.properties.byName",
      "an object must have additionalProperties: false",
    ],
    [
      "an object without additionalProperties",
      object({ a: { type: "object", properties: {} } }),
      "input_schema.properties.a",
      "an object must have additionalProperties: false",
    ],
    [
      "a root without additionalProperties",
      { type: "object", properties: {} },
      "input_schema",
      "an object must have additionalProperties: false",
    ],
    [
      "any value (Schema.Unknown)",
      inputOf({ data: Schema.Unknown }),
      "input_schema.properties.data",
      "$id is not supported",
    ],
    [
      "a schema with no type",
      object({ data: { description: "anything" } }),
      "input_schema.properties.data",
      "no type: any value would do",
    ],
    [
      "an array with no items",
      object({ list: { type: "array" } }),
      "input_schema.properties.list",
      "an array must give one schema as items",
    ],
    [
      "a recursive $ref",
      recursive(),
      "input_schema.properties.c→$defs/Cat.properties.kids.items",
      '$ref "#/$defs/Cat" is recursive',
    ],
    [
      "an external $ref",
      object({ a: { $ref: "https://example.com/a.json" } }),
      "input_schema.properties.a",
      '$ref "https://example.com/a.json" is not a local #/$defs/ reference',
    ],
    [
      "a $ref to nothing",
      object({ a: { $ref: "#/$defs/Nope" } }),
      "input_schema.properties.a",
      '$ref "#/$defs/Nope" names no schema',
    ],
    [
      "allOf with $ref",
      object({ a: { allOf: [{ $ref: "#/$defs/A" }] } }, { $defs: { A: { type: "string" } } }),
      "input_schema.properties.a.allOf",
      "allOf with $ref is not supported",
    ],
    [
      "oneOf",
      object({ a: { oneOf: [{ type: "string" }] } }),
      "input_schema.properties.a",
      "oneOf is not supported",
    ],
    [
      "an enum of objects",
      object({ a: { enum: [{ x: 1 }] } }),
      "input_schema.properties.a",
      "enum must list strings, numbers, booleans or null",
    ],
    [
      "a format not listed",
      object({ a: { type: "string", format: "money" } }),
      "input_schema.properties.a",
      'format "money" is not supported',
    ],
    [
      "the examples annotation",
      inputOf({ q: Schema.String.annotations({ examples: ["x"] }) }),
      "input_schema.properties.q",
      "examples is not supported",
    ],
    [
      "$comment (Schema.Enums)",
      inputOf({ e: Schema.Enums({ A: "a" }) }),
      "input_schema.properties.e",
      "$comment is not supported",
    ],
    [
      "$defs below the root",
      object({ a: { type: "string", $defs: {} } }),
      "input_schema.properties.a",
      "$defs is only read at the root",
    ],
    [
      "required naming no property",
      { ...object({}), required: ["ghost"] },
      "input_schema",
      "required must name properties of the object, once each",
    ],
    [
      "a root that is not an object",
      { type: "string" },
      "input_schema",
      'the root must be of type "object"',
    ],
    [
      "an unsupported keyword in an unused definition",
      object({}, { $defs: { A: { type: "string", minLength: 1 } } }),
      "input_schema.$defs.A",
      "minLength is not supported",
    ],
  ])("%s", (_, schema, at, reason) => {
    expect(strictCheck(schema)).toEqual({ strict: false, at, reason });
    expect(strictAllowed(schema)).toBe(false);
  });

  it(`refuses a schema that alone has over ${STRICT_OPTIONAL_PARAMETERS} optional parameters`, () => {
    const many = (n: number) =>
      inputOf(
        Object.fromEntries(
          Array.from({ length: n }, (_, i) => [`p${i}`, Schema.optional(Schema.String)]),
        ),
      );
    expect(strictCheck(many(STRICT_OPTIONAL_PARAMETERS))).toMatchObject({ strict: true });
    expect(strictCheck(many(STRICT_OPTIONAL_PARAMETERS + 1))).toMatchObject({
      strict: false,
      reason: `${STRICT_OPTIONAL_PARAMETERS + 1} optional parameters, over the ${STRICT_OPTIONAL_PARAMETERS} a request's strict schemas may have`,
    });
  });

  it(`refuses a schema that alone has over ${STRICT_UNION_PARAMETERS} union-typed parameters`, () => {
    const many = (n: number) =>
      inputOf(
        Object.fromEntries(
          Array.from({ length: n }, (_, i) => [`p${i}`, Schema.NullOr(Schema.String)]),
        ),
      );
    expect(strictCheck(many(STRICT_UNION_PARAMETERS))).toMatchObject({ strict: true });
    expect(strictCheck(many(STRICT_UNION_PARAMETERS + 1))).toMatchObject({ strict: false });
  });

  it("refuses a schema whose $refs expand past 10 000 schemas, without walking them all", () => {
    // Each level refers to the one below twice: 2^20 schemas once expanded.
    const $defs: Record<string, unknown> = { L0: { type: "string" } };
    for (let i = 1; i <= 20; i++)
      $defs[`L${i}`] = object({
        a: { $ref: `#/$defs/L${i - 1}` },
        b: { $ref: `#/$defs/L${i - 1}` },
      });
    const schema = object({ top: { $ref: "#/$defs/L20" } }, { $defs });
    expect(strictCheck(schema)).toMatchObject({
      strict: false,
      reason: "more than 10000 schemas to check",
    });
  });
});

function recursive(): JsonSchema {
  interface Cat {
    readonly name: string;
    readonly kids: ReadonlyArray<Cat>;
  }
  const Cat: Schema.Schema<Cat> = Schema.Struct({
    name: Schema.String,
    kids: Schema.Array(Schema.suspend(() => Cat)),
  }).annotations({ identifier: "Cat" });
  return inputOf({ c: Cat });
}
