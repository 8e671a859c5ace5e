/** JSON at the edges (issue 16): the depth cap, read from text and from values, and what JSON can't hold. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  jsonTextOf,
  MAX_JSON_DEPTH,
  textNestedDeeper,
  valueNestedDeeper,
} from "../../src/runtime/json.ts";
import { runs } from "../properties/runs.ts";

/** `levels` arrays and objects, alternating, around `leaf`. */
const nested = (levels: number, leaf: unknown = 1): unknown => {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
};

describe("the depth cap", () => {
  it("is 64 levels, the outermost counted, in text and in values alike", () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    for (const [levels, deeper] of [
      [0, false],
      [64, false],
      [65, true],
      [10_000, true],
    ] as const) {
      expect(textNestedDeeper(JSON.stringify(nested(levels)))).toBe(deeper);
      expect(valueNestedDeeper(nested(levels))).toBe(deeper);
    }
    expect(textNestedDeeper("[]", 0)).toBe(true);
    expect(valueNestedDeeper({}, 0)).toBe(true);
    expect(valueNestedDeeper("text", 0)).toBe(false);
  });

  it("reads brackets, quotes and backslashes inside strings as text", () => {
    expect(textNestedDeeper(JSON.stringify({ a: "[[[{{{" }), 1)).toBe(false);
    expect(textNestedDeeper(JSON.stringify(["\\", "]]]", '"[', "\\["]), 1)).toBe(false);
    expect(textNestedDeeper(JSON.stringify({ a: `\\"${"[".repeat(100)}` }), 1)).toBe(false);
    expect(textNestedDeeper(JSON.stringify({ "[[": [[1]] }), 2)).toBe(true);
  });

  it("text and value agree on any JSON, at any cap", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.nat({ max: 9 }), (value, max) => {
        const text = JSON.stringify(value);
        expect(textNestedDeeper(text, max)).toBe(valueNestedDeeper(JSON.parse(text), max));
      }),
      { numRuns: runs(1_000) },
    );
  });

  it("a cycle is deeper than any cap", () => {
    const cycle: { self?: unknown } = {};
    cycle.self = [cycle];
    expect(valueNestedDeeper(cycle)).toBe(true);
  });

  it("an object shared by many parents is not walked once per path", () => {
    // 60 levels, each holding the next twice: 2^60 paths, 60 objects.
    let shared: unknown = 1;
    for (let i = 0; i < 60; i++) shared = [shared, shared];
    expect(valueNestedDeeper(shared)).toBe(false);
    expect(valueNestedDeeper([[[[shared]]]])).toBe(false);
    expect(valueNestedDeeper([[[[[shared]]]]])).toBe(true);
  });
});

describe("what JSON can't hold, named", () => {
  it("writes what it can, undefined as null", () => {
    expect(jsonTextOf({ id: 1, at: new Date(0) })).toEqual({
      _tag: "Json",
      text: '{"id":1,"at":"1970-01-01T00:00:00.000Z"}',
    });
    expect(jsonTextOf(undefined)).toEqual({ _tag: "Json", text: "null" });
  });

  it.each([
    ["a BigInt", { ok: true, rows: [{ id: 1 }, { id: 2n }] }, "result.rows[1].id is a BigInt (2n)"],
    [
      "a cycle",
      (() => {
        const a: { b: { c?: unknown } } = { b: {} };
        a.b.c = a;
        return a;
      })(),
      "result.b.c refers back to result (a cycle)",
    ],
    [
      "a toJSON that throws",
      {
        when: {
          toJSON: () => {
            throw new TypeError("no clock");
          },
        },
      },
      "result.when: its toJSON threw: no clock",
    ],
    ["a toJSON that gives a BigInt", { big: { toJSON: () => 5n } }, "result.big is a BigInt (5n)"],
    ["100 000 levels", nested(100_000), "result is nested too deeply"],
  ])("%s", (_name, value, problem) => {
    expect(jsonTextOf(value)).toEqual({ _tag: "NotJson", problem });
  });

  it("a toJSON that returns its own object is written once, not followed forever", () => {
    const self = {
      n: 1n,
      toJSON() {
        return this;
      },
    };
    expect(jsonTextOf(self)).toEqual({ _tag: "NotJson", problem: "result.n is a BigInt (1n)" });
  });

  it("clips a path found thousands of levels down", () => {
    const deep = nested(5_000, 3n);
    const told = jsonTextOf(deep);
    expect(told._tag).toBe("NotJson");
    expect(told._tag === "NotJson" && told.problem.length).toBeLessThan(250);
  });
});
