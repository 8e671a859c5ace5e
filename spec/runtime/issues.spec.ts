import { Either, Schema } from "effect";
import { defineCommand } from "elyra-assistant";
import { describe, expect, it } from "vitest";
import { issueLines, issuesOf } from "../../src/runtime/commands/issues.ts";
import { Address, Email } from "../fixtures/spyCommands.ts";

const command = defineCommand({
  name: "customers_update",
  description: "Change a customer.",
  can: "customers.update",
  args: {
    id: Schema.Number,
    email: Schema.optional(Email),
    address: Address,
    status: Schema.Literal("active", "paused"),
    lines: Schema.Array(Schema.Struct({ qty: Schema.Int })),
  },
  run: () => null,
});

const lines = (input: unknown) => {
  const decoded = command.decode(input);
  if (Either.isRight(decoded)) throw new Error("expected a decoding failure");
  return issueLines(issuesOf(decoded.left));
};

describe("argument issues as lines the model can act on", () => {
  it("gives one line per field, naming it", () => {
    expect(
      lines({
        id: "42",
        email: "nope",
        address: { street: "Main", zip: "1" },
        status: "gone",
        lines: [{ qty: 1 }, { qty: 1.5 }],
      }),
    ).toEqual([
      'id: expected number, got "42"',
      "email: must be a valid email",
      "address.zip: must be five digits",
      'status: expected "active" or "paused", got "gone"',
      "lines[1].qty: expected an integer, got 1.5",
    ]);
  });

  it("says what is missing and what is unexpected", () => {
    expect(
      lines({ address: { street: "Main" }, status: "active", lines: [], admin: true }),
    ).toEqual([
      'admin: is unexpected, expected: "id" | "email" | "address" | "status" | "lines"',
      "id: is missing",
      "address.zip: is missing",
    ]);
  });

  it("folds the alternatives of a union into one line", () => {
    const union = defineCommand({
      name: "x",
      description: "x",
      args: { v: Schema.Union(Schema.Number, Schema.Boolean) },
      run: () => null,
    });
    const decoded = union.decode({ v: "s" });
    expect(Either.isLeft(decoded) && issueLines(issuesOf(decoded.left))).toEqual([
      'v: expected number or boolean, got "s"',
    ]);
  });

  it("says the arguments are not an object when they are not", () => {
    expect(lines("rm -rf /")).toEqual(['arguments: expected an object, got "rm -rf /"']);
    expect(lines(null)).toEqual(["arguments: expected an object, got null"]);
  });

  it("caps a flood of issues at 20 lines and each line at 300 characters", () => {
    const many = defineCommand({
      name: "many",
      description: "many",
      args: { items: Schema.Array(Schema.Number) },
      run: () => null,
    });
    const decoded = many.decode({ items: Array.from({ length: 500 }, () => "x".repeat(1000)) });
    const out = Either.isLeft(decoded) ? issueLines(issuesOf(decoded.left)) : [];
    expect(out).toHaveLength(21);
    expect(out[20]).toBe("arguments: and more problems");
    const messages = issuesOf(Either.isLeft(decoded) ? decoded.left : (undefined as never)).map(
      (i) => i.message,
    );
    expect(Math.max(...messages.map((m) => m.length))).toBe(300);
    expect(messages[0]?.endsWith("…")).toBe(true);
  });
});
