/**
 * Issue 28, item 8: what people read of a command is worded apart from what
 * the model reads. Editable arguments carry a label and a field kind from
 * their effect/Schema annotations (`title`, `jsonSchema: { format }`), the
 * confirmation a title and a summary, never the model's description.
 */
import { Schema } from "effect";
import { defineCommand } from "elyra-assistant";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fieldOf, readsAsLabel } from "../../src/runtime/commands/fields.ts";
import { runs } from "../properties/runs.ts";

const Day = Schema.String.pipe(Schema.pattern(/^\d{4}-\d{2}-\d{2}$/));

const invoice = () =>
  defineCommand({
    name: "invoices_store",
    description: "Create an invoice. The user is asked to confirm first.",
    title: "Issue invoice",
    summary: "Issues a new invoice, dated today and unpaid.",
    can: "invoices.create",
    args: {
      customer_id: Schema.Int,
      amount: Schema.Number.pipe(
        Schema.positive(),
        Schema.annotations({ title: "Amount", jsonSchema: { format: "money", currency: "EUR" } }),
      ),
      project: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.minLength(1)))).annotations({
        title: "Project",
      }),
      due_on: Schema.optional(
        Day.annotations({ title: "Due date", jsonSchema: { format: "date" } }),
      ),
      pages: Schema.optional(Schema.Int.pipe(Schema.positive())),
      paid: Schema.optional(Schema.Boolean),
    },
    editable: ["amount", "project", "due_on", "pages", "paid"],
    run: () => ({}),
  });

describe("editable fields from the command's annotations", () => {
  it("labels from title annotations, kinds from format: a date, an amount in its currency", () => {
    const fields = invoice().confirmation.editable.map(({ schema: _s, ...f }) => f);
    expect(fields).toEqual([
      { name: "amount", label: "Amount", kind: "money", currency: "EUR" },
      { name: "project", label: "Project", kind: "text" },
      { name: "due_on", label: "Due date", kind: "date" },
      // No title: the name in words, never effect's own filter titles ("int", "positive").
      { name: "pages", label: "Pages", kind: "integer" },
      { name: "paid", label: "Paid", kind: "boolean" },
    ]);
  });

  it("a command's summary is for people; the model's description stays the model's", () => {
    const command = invoice();
    expect(command.summary).toBe("Issues a new invoice, dated today and unpaid.");
    expect(command.description).toContain("The user is asked");
    expect(() =>
      defineCommand({ name: "x", description: "d", summary: "two\nlines", args: {}, run: () => 1 }),
    ).toThrow(/summary must be one line/);
  });

  it("effect's own titles of its filters are never labels", () => {
    for (const title of [
      "minLength(1)",
      "int",
      "positive",
      "lessThanOrEqualTo(10000000)",
      "due_on",
    ])
      expect(readsAsLabel(title)).toBe(false);
    expect(fieldOf("credit_limit", { type: "integer", title: "nonNegative" }).label).toBe(
      "Credit limit",
    );
    // A named schema is a $ref into $defs: followed.
    expect(
      fieldOf(
        "due_on",
        { $ref: "#/$defs/Day" },
        { Day: { type: "string", format: "date", title: "Due date" } },
      ),
    ).toMatchObject({ label: "Due date", kind: "date" });
  });

  const key = fc.stringMatching(/^[a-z][a-z0-9]{0,8}(?:_[a-z0-9]{1,8}){0,3}$/);
  const words = fc
    .array(fc.stringMatching(/^[A-Za-z]{1,10}$/), { minLength: 1, maxLength: 4 })
    .map((w) => {
      const text = w.join(" ");
      return text.charAt(0).toUpperCase() + text.slice(1);
    });

  it("property: a field given a title is labelled with it, never with its raw key", () => {
    fc.assert(
      fc.property(
        key,
        words,
        fc.constantFrom("string", "number", "integer", "boolean"),
        (name, title, type) => {
          fc.pre(title !== name);
          const field = fieldOf(name, { type, title });
          expect(field.label).toBe(title);
          expect(field.label).not.toBe(name);
        },
      ),
      { numRuns: runs(1_000) },
    );
  });

  it("property: every editable field has a label, never the raw key of a snake_case or camelCase name", () => {
    fc.assert(
      fc.property(
        key,
        fc.option(fc.constantFrom("minLength(1)", "int", "positive", "a string"), {
          nil: undefined,
        }),
        (name, title) => {
          fc.pre(/[_A-Z]|^[a-z]/.test(name));
          const label = fieldOf(name, {
            type: "string",
            ...(title === undefined ? {} : { title }),
          }).label;
          expect(label?.trim()).toBeTruthy();
          expect(label).not.toBe(name);
          expect(label).not.toContain("_");
        },
      ),
      { numRuns: runs(1_000) },
    );
  });
});
