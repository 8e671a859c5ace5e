import { Either, Schema } from "effect";
import { CommandDefinitionError, createApp, defineCommand } from "elyra-assistant";
import { describe, expect, it } from "vitest";
import { Address, Email } from "../fixtures/spyCommands.ts";

const base = { description: "Does a thing.", can: "things.do", args: {}, run: () => null };

const definitionError = (f: () => unknown): CommandDefinitionError => {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(CommandDefinitionError);
    return error as CommandDefinitionError;
  }
  throw new Error("expected a CommandDefinitionError");
};

describe("defineCommand: errors when defined", () => {
  it.each([[""], ["has space"], ["dots.are.not.tool.names"], ["x".repeat(65)], ["émoji"]])(
    "refuses the name %j",
    (name) => {
      const error = definitionError(() => defineCommand({ ...base, name }));
      expect(error.message).toBe(
        `command ${JSON.stringify(name)}: the name must be 1 to 64 letters, digits, _ or - (a tool name)`,
      );
    },
  );

  it("accepts a 64-character name of letters, digits, _ and -", () => {
    expect(defineCommand({ ...base, name: `a-_9${"x".repeat(60)}` }).name).toHaveLength(64);
  });

  it("refuses an empty description", () => {
    expect(
      definitionError(() => defineCommand({ ...base, name: "x", description: "  " })).reason,
    ).toBe("the description is empty");
  });

  it("refuses a wildcard or malformed ability in can", () => {
    for (const can of ["customers.*", "*", "customers..view", ""]) {
      expect(definitionError(() => defineCommand({ ...base, name: "x", can })).reason).toBe(
        `can ${JSON.stringify(can)} is not an ability (dot-separated names, no wildcard)`,
      );
    }
  });

  it("refuses a duplicate name when the app is made", () => {
    const a = defineCommand({ ...base, name: "customers_show" });
    const b = defineCommand({ ...base, name: "customers_show", description: "Another." });
    const error = definitionError(() => createApp({ commands: [a, b], userAbilities: () => [] }));
    expect(error.message).toBe('command "customers_show": another command has this name');
  });

  it.each([
    ["customers/{id}", 'link "customers/{id}" is not an app path'],
    ["//evil.example/{id}", 'link "//evil.example/{id}" is not an app path'],
    ["https://evil.example/{id}", 'link "https://evil.example/{id}" is not an app path'],
    ["/customers/ {id}", 'link "/customers/ {id}" is not an app path'],
    ["/\\evil/{id}", 'link "/\\\\evil/{id}" is not an app path'],
    ["/customers/{name}", "link placeholder {name} is neither an argument nor result.<field>"],
    ["/customers/{result.id}", "link placeholder {result.id} names no field of the result"],
    ["/customers/{id", 'link "/customers/{id" has an unmatched brace'],
    ["/customers/id}", 'link "/customers/id}" has an unmatched brace'],
  ])("refuses the link %j", (link, problem) => {
    const error = definitionError(() =>
      defineCommand({ ...base, name: "customers_show", link, args: { id: Schema.Number } }),
    );
    expect(error.reason.startsWith(problem)).toBe(true);
  });

  it("checks result.<field> against the result's fields", () => {
    const result = Schema.Struct({ id: Schema.Number, total: Schema.Number });
    expect(
      defineCommand({
        ...base,
        name: "invoices_create",
        link: "/invoices/{result.id}",
        result,
        run: () => ({ id: 1, total: 2 }),
      }).link,
    ).toBe("/invoices/{result.id}");
    expect(
      definitionError(() =>
        defineCommand({
          ...base,
          name: "invoices_create",
          link: "/invoices/{result.nope}",
          result,
          run: () => ({ id: 1, total: 2 }),
        }),
      ).reason,
    ).toBe("link placeholder {result.nope} names no field of the result");
  });

  it("refuses arguments that have no JSON Schema", () => {
    const error = definitionError(() =>
      defineCommand({ ...base, name: "x", args: { when: Schema.DateFromSelf } }),
    );
    expect(error.reason).toMatch(/^args cannot be described as JSON Schema: /);
  });
});

describe("defineCommand: what is derived", () => {
  const command = defineCommand({
    name: "customers_update",
    description: "Change a customer.",
    can: "customers.update",
    args: {
      id: Schema.Number,
      email: Schema.optional(Email),
      address: Address,
      billing: Schema.optional(Address),
      status: Schema.Union(Schema.Literal("active"), Schema.Literal("paused")),
      tags: Schema.Array(Schema.String),
      note: Schema.NullOr(Schema.String),
    },
    result: Schema.Struct({ id: Schema.Number }),
    run: ({ id }) => ({ id }),
  });

  it("keeps argument names in positional order", () => {
    expect(command.argumentNames).toEqual([
      "id",
      "email",
      "address",
      "billing",
      "status",
      "tags",
      "note",
    ]);
  });

  it("generates the input JSON Schema: nested structs in $defs, optional, union and nullable arguments", () => {
    expect(command.inputSchema).toEqual({
      type: "object",
      required: ["id", "address", "status", "tags", "note"],
      properties: {
        id: { type: "number" },
        email: {
          type: "string",
          description: "a string matching the pattern ^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$",
          pattern: "^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$",
        },
        address: { $ref: "#/$defs/Address" },
        billing: { $ref: "#/$defs/Address" },
        status: { type: "string", enum: ["active", "paused"] },
        tags: { type: "array", items: { type: "string" } },
        note: { anyOf: [{ type: "string" }, { type: "null" }] },
      },
      additionalProperties: false,
      $defs: {
        Address: {
          type: "object",
          required: ["street", "zip"],
          properties: {
            street: { type: "string" },
            zip: {
              type: "string",
              description: "a string matching the pattern ^\\d{5}$",
              pattern: "^\\d{5}$",
            },
          },
          additionalProperties: false,
        },
      },
    });
    expect(command.inputSchema).not.toHaveProperty("$schema");
  });

  it("generates the output JSON Schema from the result schema", () => {
    expect(command.outputSchema).toEqual({
      type: "object",
      required: ["id"],
      properties: { id: { type: "number" } },
      additionalProperties: false,
    });
  });

  it("has no output schema without a result schema", () => {
    expect(defineCommand({ ...base, name: "x" }).outputSchema).toBeUndefined();
  });

  it("decodes every issue and refuses properties the schema lacks", () => {
    const decoded = command.decode({
      id: "42",
      address: { street: "Main" },
      status: "gone",
      tags: [],
      note: null,
      extra: 1,
    });
    expect(Either.isLeft(decoded)).toBe(true);
  });

  it("an empty argument list is an object schema with no properties", () => {
    expect(defineCommand({ ...base, name: "x" }).inputSchema).toEqual({
      type: "object",
      required: [],
      properties: {},
      additionalProperties: false,
    });
  });
});

describe("a command without arguments", () => {
  const none = defineCommand({ name: "x", description: "x", args: {}, run: () => null });
  it.each([[{ id: 1 }], ["s"], [1], [[]], [null]])("refuses %j", (input) => {
    expect(Either.isLeft(none.decode(input))).toBe(true);
  });
  it("takes an empty object", () => {
    expect(Either.isRight(none.decode({}))).toBe(true);
  });
});

describe("a command's own rate limit", () => {
  it.each([
    [{ calls: 0, perSeconds: 60 }],
    [{ calls: 1.5, perSeconds: 60 }],
    [{ calls: 1, perSeconds: 0 }],
    [{ calls: 1, perSeconds: Number.POSITIVE_INFINITY }],
  ])("refuses %j", (rateLimit) => {
    expect(definitionError(() => defineCommand({ ...base, name: "x", rateLimit })).reason).toBe(
      "rateLimit needs whole calls ≥ 1 over a positive, finite perSeconds",
    );
  });
});
