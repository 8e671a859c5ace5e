/**
 * A command's `examples` (issue 32): each decoded with the command's own
 * arguments when it is declared, bounded in number and size, and kept as
 * the JSON the model is sent (`input_examples`).
 */
import { Schema } from "effect";
import { CommandDefinitionError, defineCommand } from "elyra-assistant";
import { describe, expect, it } from "vitest";
import { MAX_EXAMPLE_BYTES, MAX_EXAMPLES } from "../../src/runtime/commands/examples.ts";
import { Address } from "../fixtures/spyCommands.ts";

const base = {
  name: "invoices_create",
  description: "Issue an invoice.",
  can: "invoices.create",
  run: () => null,
};
const args = {
  customerId: Schema.Number,
  amount: Schema.Number.pipe(Schema.positive()),
  dueOn: Schema.optional(Schema.DateFromString),
  address: Schema.optional(Address),
};

const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(CommandDefinitionError);
    return (error as CommandDefinitionError).message;
  }
  throw new Error("expected a CommandDefinitionError");
};

describe("defineCommand({ examples })", () => {
  it("keeps valid examples as the JSON the model is sent: the arguments' encoded form", () => {
    const command = defineCommand({
      ...base,
      args,
      examples: [
        { customerId: 42, amount: 1200 },
        {
          customerId: 7,
          amount: 80,
          dueOn: "2026-07-01",
          address: { street: "1 Main St", zip: "12345" },
        },
      ],
    });
    expect(command.examples).toEqual([
      { customerId: 42, amount: 1200 },
      {
        customerId: 7,
        amount: 80,
        dueOn: "2026-07-01",
        address: { street: "1 Main St", zip: "12345" },
      },
    ]);
  });

  it("has no examples unless some are declared (an empty list is none)", () => {
    expect(defineCommand({ ...base, args }).examples).toBeUndefined();
    expect(defineCommand({ ...base, args, examples: [] }).examples).toBeUndefined();
  });

  it("keeps what JSON keeps: an undefined property is not sent", () => {
    const command = defineCommand({
      ...base,
      args,
      examples: [{ customerId: 1, amount: 2, dueOn: undefined }],
    });
    expect(command.examples).toEqual([{ customerId: 1, amount: 2 }]);
    expect(Object.keys(command.examples?.[0] ?? {})).toEqual(["customerId", "amount"]);
  });

  it.each([
    [
      "a wrong type, naming the example and the argument",
      [
        { customerId: 1, amount: 2 },
        { customerId: "7", amount: 2 },
      ],
      'command "invoices_create": examples[1] is not valid arguments: customerId: expected number, got "7"',
    ],
    [
      "a refinement the schema checks",
      [{ customerId: 1, amount: -5 }],
      'command "invoices_create": examples[0] is not valid arguments: amount: expected a positive number, got -5',
    ],
    [
      "a missing argument",
      [{ amount: 5 }],
      'command "invoices_create": examples[0] is not valid arguments: customerId: is missing',
    ],
    [
      "an argument the command does not have",
      [{ customerId: 1, amount: 5, currency: "EUR" }],
      'command "invoices_create": examples[0] is not valid arguments: currency: is unexpected, expected: "customerId" | "amount" | "dueOn" | "address"',
    ],
    [
      "a nested problem, with its path",
      [{ customerId: 1, amount: 5, address: { street: "x", zip: "1" } }],
      'command "invoices_create": examples[0] is not valid arguments: address.zip: must be five digits',
    ],
    [
      "the decoded form where JSON is sent (a Date for a date string)",
      [{ customerId: 1, amount: 5, dueOn: new Date("invalid") }],
      'command "invoices_create": examples[0] is not valid arguments: dueOn: expected string, got null',
    ],
    [
      "a value that is not an object",
      [[1, 2]],
      'command "invoices_create": examples[0] must be an object of arguments, as JSON',
    ],
    [
      "a value JSON cannot hold",
      [{ customerId: 1n, amount: 5 }],
      'command "invoices_create": examples[0].customerId is a BigInt (1n), so it cannot be sent as JSON',
    ],
  ])("refuses %s", (_, examples, message) => {
    expect(refusal(() => defineCommand({ ...base, args, examples: examples as never }))).toBe(
      message,
    );
  });

  it("refuses examples that are not an array", () => {
    expect(
      refusal(() => defineCommand({ ...base, args, examples: { customerId: 1 } as never })),
    ).toBe('command "invoices_create": examples must be an array of argument objects');
  });

  it(`takes at most ${MAX_EXAMPLES} examples`, () => {
    const one = { customerId: 1, amount: 2 };
    expect(
      defineCommand({ ...base, args, examples: Array(MAX_EXAMPLES).fill(one) }).examples,
    ).toHaveLength(MAX_EXAMPLES);
    expect(
      refusal(() => defineCommand({ ...base, args, examples: Array(MAX_EXAMPLES + 1).fill(one) })),
    ).toBe(
      `command "invoices_create": examples must be at most ${MAX_EXAMPLES} argument objects, not ${MAX_EXAMPLES + 1}`,
    );
  });

  it(`takes an example of at most ${MAX_EXAMPLE_BYTES} bytes of JSON, counted in UTF-8`, () => {
    const note = { ...base, args: { note: Schema.String } };
    // {"note":"…"} is 11 bytes around the text.
    const fits = { note: "x".repeat(MAX_EXAMPLE_BYTES - 11) };
    expect(defineCommand({ ...note, examples: [fits] }).examples).toEqual([fits]);
    expect(
      refusal(() =>
        defineCommand({ ...note, examples: [{ note: "x".repeat(MAX_EXAMPLE_BYTES - 10) }] }),
      ),
    ).toBe(
      `command "invoices_create": examples[0] is ${MAX_EXAMPLE_BYTES + 1} bytes of JSON, over the ${MAX_EXAMPLE_BYTES} an example may be`,
    );
    // "é" is two bytes: half as many characters reach the limit.
    const wide = { note: "é".repeat((MAX_EXAMPLE_BYTES - 10) / 2) };
    expect(refusal(() => defineCommand({ ...note, examples: [wide] }))).toMatch(/is 2049 bytes/);
  });

  it("checks a command without arguments against {}", () => {
    const none = { ...base, args: {} };
    expect(defineCommand({ ...none, examples: [{}] }).examples).toEqual([{}]);
    expect(refusal(() => defineCommand({ ...none, examples: [{ id: 1 } as never] }))).toBe(
      'command "invoices_create": examples[0] is not valid arguments: arguments: this tool takes no arguments: send {}',
    );
  });

  it("types an example as the arguments' encoded form", () => {
    expect(() =>
      defineCommand({
        ...base,
        args,
        // @ts-expect-error: customerId is a number
        examples: [{ customerId: "1", amount: 2 }],
      }),
    ).toThrow(CommandDefinitionError);
    // A date argument is written as its string, not a Date.
    defineCommand({ ...base, args, examples: [{ customerId: 1, amount: 2, dueOn: "2026-01-01" }] });
  });
});
