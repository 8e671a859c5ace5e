/**
 * Decoding untrusted arguments (issue 16): a refusal checks no more than it
 * tells, however many elements are wrong, and tells what a full check tells.
 * The work is counted (checks made), never timed.
 */
import { Either, Schema } from "effect";
import { defineCommand } from "elyra-assistant";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Issue, issueLines, issuesOf } from "../../src/runtime/commands/issues.ts";
import { runs } from "../properties/runs.ts";

/**
 * What a capped check tells against a full one: the same issues when the full
 * check finds at most 20; else the same first 20 paths, then that there are
 * more. (A line's message may name fewer alternatives of a union then: a later
 * member's problem at the same path can lie past the cap.)
 */
const sameOrItsFirstPaths = (told: ReadonlyArray<Issue>, whole: ReadonlyArray<Issue>) => {
  if (whole.length <= 20) {
    expect(told).toEqual(whole);
    return;
  }
  expect(told).toHaveLength(21);
  expect(told[20]).toEqual({ path: "arguments", message: "and more problems" });
  expect(told.map((i) => i.path)).toEqual(whole.map((i) => i.path));
};

describe("a flood of bad elements (issue 16): checking stops once the issues are capped", () => {
  const checked = { count: 0 };
  const Line = Schema.Struct({
    note: Schema.optional(Schema.String),
    qty: Schema.Number.pipe(
      Schema.filter((n) => {
        checked.count += 1;
        return n > 0 || "must be positive";
      }),
    ),
  });
  const bulk = defineCommand({
    name: "bulk",
    description: "bulk",
    args: {
      items: Schema.Array(Line),
      tags: Schema.optional(Schema.Array(Schema.String)),
      codes: Schema.optional(
        Schema.Union(Schema.NonEmptyArray(Schema.Number), Schema.Array(Schema.String), Schema.Null),
      ),
      extra: Schema.optional(Schema.Record({ key: Schema.String, value: Line })),
    },
    run: () => null,
  });
  const refuse = (input: unknown) => {
    checked.count = 0;
    const decoded = bulk.decode(input);
    if (Either.isRight(decoded)) throw new Error("expected a decoding failure");
    return { checks: checked.count, lines: issueLines(issuesOf(decoded.left)) };
  };
  const bad = (n: number) => ({ items: Array.from({ length: n }, () => ({ note: 1, qty: -1 })) });

  it("checks as many elements for 20 000 bad ones as for 200, and says the same", () => {
    const few = refuse(bad(200));
    const many = refuse(bad(20_000));
    expect(many.checks).toBe(few.checks);
    expect(many.checks).toBeLessThanOrEqual(2 * 21);
    expect(many.lines).toEqual(few.lines);
    expect(many.lines).toHaveLength(21);
    expect(many.lines.slice(0, 2)).toEqual([
      "items[0].note: expected string, got 1",
      "items[0].qty: must be positive",
    ]);
    expect(many.lines[20]).toBe("arguments: and more problems");
  });

  it("a valid input is still checked whole, and a late problem is still found", () => {
    const good = Array.from({ length: 5_000 }, () => ({ qty: 1 }));
    checked.count = 0;
    expect(Either.isRight(bulk.decode({ items: good }))).toBe(true);
    expect(checked.count).toBe(5_000);
    expect(refuse({ items: [...good, { qty: 0 }] }).lines).toEqual([
      "items[5000].qty: must be positive",
    ]);
  });

  it("tells what a full check tells (its first 20 paths when there are more), for any mix", () => {
    const full = Schema.decodeUnknownEither(bulk.args, {
      errors: "all",
      onExcessProperty: "error",
    });
    const element = fc.oneof(
      fc.constant({ qty: 1 }),
      fc.constant({ qty: -1 }),
      fc.constant({ note: 1, qty: 2 }),
      fc.constant({ note: "n", qty: "2" }),
      fc.constant({ qty: 1, extra: true }),
      fc.constant({}),
      fc.constant(null),
      fc.constant([1]),
    );
    const input = fc.record(
      {
        items: fc.oneof(fc.array(element, { maxLength: 40 }), fc.constant("none")),
        tags: fc.oneof(
          fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 30 }),
          fc.constant(7),
        ),
        codes: fc.oneof(
          fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxLength: 30 }),
          fc.constant(null),
          fc.constant(true),
        ),
        extra: fc.oneof(fc.dictionary(fc.string(), element, { maxKeys: 30 }), fc.constant([])),
        other: fc.boolean(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(input, (value) => {
        const reference = full(value);
        const decoded = bulk.decode(value);
        expect(Either.isLeft(decoded)).toBe(Either.isLeft(reference));
        if (Either.isLeft(decoded) && Either.isLeft(reference)) {
          sameOrItsFirstPaths(issuesOf(decoded.left), issuesOf(reference.left));
        }
      }),
      { numRuns: runs(1_000) },
    );
  });
});

describe("the capped report against a full check, on unions, records, refinements and recursion", () => {
  interface Tree {
    readonly value: number;
    readonly children: ReadonlyArray<Tree>;
  }
  const Tree: Schema.Schema<Tree> = Schema.Struct({
    value: Schema.Number,
    children: Schema.Array(Schema.suspend(() => Tree)),
  }).annotations({ identifier: "Tree" });
  const Item = Schema.Struct({ note: Schema.optional(Schema.String), qty: Schema.Number });
  const mixed = defineCommand({
    name: "mixed",
    description: "mixed",
    args: {
      either: Schema.optional(Schema.Union(Schema.Array(Item), Schema.Array(Schema.Number))),
      maybe: Schema.NullOr(Schema.Array(Item)),
      capped: Schema.optional(Schema.Array(Schema.Number).pipe(Schema.maxItems(8))),
      // A filter that throws on anything but numbers: it must never see unchecked elements.
      summed: Schema.optional(
        Schema.Struct({ list: Schema.Array(Schema.Number) }).pipe(
          Schema.filter((s) => s.list.map((n) => n.toFixed(0)).length < 30 || "too long"),
        ),
      ),
      byName: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Array(Item) })),
      tree: Schema.optional(Tree),
    },
    run: () => null,
  });
  const full = Schema.decodeUnknownEither(mixed.args, { errors: "all", onExcessProperty: "error" });
  const scalar = fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.constant(null));
  const item = fc.oneof(
    fc.constant({ qty: 1 }),
    fc.constant({ note: 2, qty: 1 }),
    fc.constant({ qty: "1" }),
    scalar,
  );
  const list = <T>(arb: fc.Arbitrary<T>) => fc.array(arb, { maxLength: 30 });
  const tree: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small" },
      scalar,
      fc.record({ value: scalar, children: fc.array(tie("node"), { maxLength: 4 }) }),
    ),
  })).node;
  const input = fc.record(
    {
      either: fc.oneof(list(item), list(fc.integer()), scalar),
      maybe: fc.oneof(list(item), scalar),
      capped: fc.oneof(list(fc.integer()), list(scalar)),
      summed: fc.oneof(fc.record({ list: list(scalar) }), fc.record({ list: list(fc.integer()) })),
      byName: fc.dictionary(fc.string({ maxLength: 2 }), fc.oneof(list(item), scalar), {
        maxKeys: 5,
      }),
      tree,
    },
    { requiredKeys: ["maybe"] },
  );

  it("never throws; tells exactly what a full check tells, or its first paths then that there are more", () => {
    fc.assert(
      fc.property(input, (value) => {
        const reference = full(value);
        const decoded = mixed.decode(value);
        expect(Either.isLeft(decoded)).toBe(Either.isLeft(reference));
        if (!Either.isLeft(decoded) || !Either.isLeft(reference)) return;
        sameOrItsFirstPaths(issuesOf(decoded.left), issuesOf(reference.left));
      }),
      { numRuns: runs(1_000) },
    );
  });
});
