/**
 * Issue 18, target 4: the faster window note says exactly what the old one
 * said. For arbitrary routes, live queries and selections (any UTF-16 unit:
 * unicode, lone surrogates, control characters; strings around every bound;
 * argument values that are not plain JSON), `windowNote` is byte for byte the
 * note windowNote.reference.ts (the implementation it replaced) builds, and
 * the hand-written JSON and byte counts agree with JSON.stringify and UTF-8.
 */
import {
  type NoteInput,
  type NoteQuery,
  type NoteSelection,
  windowNote,
} from "elyra-assistant/machines";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  argumentJson,
  quote,
  quotedBytes,
  quotedPrefixBytes,
  utf8Bytes,
} from "../../src/runtime/prompt/noteJson.ts";
import { json, stringJsonBytes } from "../../src/runtime/prompt/windowNote.ts";
import { runs, timeoutFor } from "./runs.ts";
import { referenceArgumentJson, referenceJson, referenceNote } from "./windowNote.reference.ts";

const PARAMS: Record<string, ReadonlyArray<string>> = {
  customers_show: ["id"],
  invoices_index: ["customer_id", "page", "status"],
  search: ["q", "filters", "x"],
  "<odd\u0000name>": ["é", "<", "__proto__", "0"],
};
const COMMANDS = Object.keys(PARAMS);

/** Any UTF-16 unit, lone surrogates and control characters included. */
const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
/** The units that are hard on the escaping and the byte count. */
const hardUnit = fc.constantFrom(
  ...["\u0000", "\u001f", "\b", "\t", "\n", "\f", "\r", "<", ">", "&", "\\", '"', "\u007f"],
  ...["é", "\u07ff", "\u0800", "😀", "\ud800", "\udbff", "\udc00", "\udfff", "\u2028", "…", " "],
);
const units = [undefined, "grapheme", "binary", anyUnit, hardUnit] as const;

/** Strings of any length up to `max`, or of a length at one of `bounds` (±1). */
const text = (max: number, bounds: ReadonlyArray<number> = []): fc.Arbitrary<string> => {
  const lengths = [
    fc.integer({ min: 0, max }),
    ...bounds.map((b) => fc.integer({ min: Math.max(0, b - 2), max: b + 2 })),
  ];
  return fc
    .tuple(fc.oneof(...lengths), fc.constantFrom(...units))
    .chain(([length, unit]) =>
      unit === "grapheme" || unit === "binary"
        ? fc.string({ unit, minLength: 0, maxLength: length })
        : fc.string({ unit: unit ?? fc.char(), minLength: length, maxLength: length }),
    );
};

class Point {
  x = 1;
}
/** A proxy that lists its keys out of the order an object keeps them in. */
const unordered = new Proxy(
  { b: 1, 10: 2, a: "<", 2: 3 },
  { ownKeys: () => ["b", "10", "a", "2"] },
);
const deep = Array.from({ length: 20 }).reduce<unknown>((inner) => ({ inner }), 1);
const sparse: unknown[] = [1];
sparse[2] = 3;
const cyclic: Record<string, unknown> = { a: 1 };
cyclic.self = cyclic;
const exotic = fc.constantFrom<unknown>(
  ...[Number.NaN, Number.POSITIVE_INFINITY, -0, 1e21, 5e-324, 10n, Symbol("s"), () => 1],
  ...[new Point(), new Date(0), new Map(), Object.create(null), sparse, deep, cyclic],
  ...[unordered, { 1: "a", 0: "b", "01": "c", 4294967295: "d", 4294967294: "e", z: [] }],
);

const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    text(300, [200]),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    exotic,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(text(8), fc.constantFrom("0", "7", "__proto__")), tie("value"), {
      maxKeys: 4,
    }),
  ),
})).value;

const query: fc.Arbitrary<NoteQuery> = fc.record({
  clientId: fc.constantFrom("w1", "w1", "w2"),
  command: fc.constantFrom(...COMMANDS, "unknown_one"),
  origin: fc.constantFrom("frontend", "frontend", "agent") as fc.Arbitrary<"frontend" | "agent">,
  args: fc.oneof(
    fc.dictionary(fc.constantFrom(...Object.values(PARAMS).flat(), "extra"), value, {
      maxKeys: 5,
    }),
    // As the bench: three long strings.
    fc
      .tuple(text(1000, [200, 1000]), text(1000, [200]), text(1000, [200]))
      .map(([q, filters, x]) => ({ q, filters, x, customer_id: q, page: filters, status: x })),
    value,
  ),
});

const route = fc.oneof(
  fc.constant(null),
  fc.constantFrom("/customers/42", "  ", ""),
  text(900, [500, 800]),
);
const id = fc.oneof(text(300, [200]), fc.integer(), fc.double(), fc.constant(-0));
const selection = (routes: fc.Arbitrary<string | null>) =>
  fc.record(
    {
      kind: fc.oneof(text(120, [64, 100]), fc.constantFrom("a", "b")),
      ids: fc.oneof(
        fc.array(id, { maxLength: 130 }),
        fc.integer({ min: 0, max: 130 }).map((n) => Array.from({ length: n }, (_, i) => `k-${i}`)),
      ),
      total: fc.option(fc.nat(1000), { nil: undefined }),
      route: routes,
    },
    { requiredKeys: ["kind", "ids", "route"] },
  ) as fc.Arbitrary<NoteSelection>;

const input: fc.Arbitrary<NoteInput> = route.chain((r) =>
  fc
    .record({
      queries: fc.array(query, { maxLength: 40 }),
      selections: fc.array(selection(fc.oneof(fc.constant(r), fc.constant(r), route)), {
        maxLength: 12,
      }),
      offered: fc.subarray([...COMMANDS, "unknown_one"]),
    })
    .map(({ queries, selections, offered }) => ({
      clientId: "w1",
      route: r,
      queries,
      selections,
      offered: new Set(offered),
      argumentNames: (c: string) => PARAMS[c],
    })),
);

/** Inputs past every bound, mostly characters that escape long: the note must cut all it can. */
const hard = (min: number, max: number) =>
  fc.tuple(fc.integer({ min, max }), fc.boolean()).chain(([n, escaping]) =>
    fc.string({
      unit: escaping ? fc.constantFrom("\u0000", "<", "\ud800", "\udc00", "\n", "a") : anyUnit,
      minLength: n,
      maxLength: n,
    }),
  );
const crowded: fc.Arbitrary<NoteInput> = hard(250, 900).chain((r) =>
  fc
    .record({
      queries: fc.array(query, { minLength: 10, maxLength: 40 }),
      selections: fc.array(
        fc.record({
          kind: hard(1, 120),
          ids: fc.array(fc.oneof(hard(0, 240), fc.integer()), { minLength: 1, maxLength: 130 }),
          route: fc.constant(r),
        }),
        { minLength: 1, maxLength: 12 },
      ),
    })
    .map(({ queries, selections }) => ({
      clientId: "w1",
      route: r,
      queries,
      selections,
      offered: new Set(COMMANDS),
      argumentNames: (c: string) => PARAMS[c],
    })),
);

/** The bench's inputs at the bounds, made of the two characters given. */
const atBounds = (chars: readonly [string, string], n: number): NoteInput => {
  const spelled = (seed: number, length: number) =>
    Array.from({ length }, (_, i) => chars[(i < 16 ? seed >> i : i) & 1]).join("");
  const r = spelled(n, 800);
  return {
    clientId: "w1",
    route: r,
    queries: Array.from({ length: 16 }, (_, i) => ({
      clientId: "w1",
      command: "search",
      args: { q: spelled(i * 3 + n, 1000), filters: spelled(i * 3 + 1, 1000), x: spelled(i, 1000) },
      origin: "frontend" as const,
    })),
    selections: Array.from({ length: 8 }, (_, k) => ({
      kind: spelled(k + 1, 100),
      ids: Array.from({ length: 100 }, (_, i) => `k${k}-${String(i).padStart(6, "0")}`),
      route: r,
    })),
    offered: new Set(COMMANDS),
    argumentNames: (c: string) => PARAMS[c],
  };
};

describe("the faster window note", () => {
  it("is byte for byte the note the old implementation built, for arbitrary inputs", {
    timeout: timeoutFor(120_000),
  }, () => {
    fc.assert(
      fc.property(input, (note) => {
        expect(windowNote(note)).toBe(referenceNote(note));
      }),
      { numRuns: runs(1000) },
    );
  });

  it("is byte for byte the old note when everything is past its bounds", {
    timeout: timeoutFor(120_000),
  }, () => {
    fc.assert(
      fc.property(crowded, (note) => {
        expect(windowNote(note)).toBe(referenceNote(note));
      }),
      { numRuns: runs(1000) },
    );
  });

  it("is the old note at the bench's bounds, plain and every character escaped", () => {
    const pairs: ReadonlyArray<readonly [string, string]> = [
      ["a", "b"],
      ["\u0000", "<"],
      ["é", "😀"],
      ["\ud800", "<"],
      ["\udc00", "\ud800"],
    ];
    for (const chars of pairs) {
      for (const n of [0, 1, 5]) {
        const note = atBounds(chars, n);
        expect(windowNote(note)).toBe(referenceNote(note));
      }
    }
  });

  it("writes strings as JSON.stringify does with < escaped, and counts their UTF-8 bytes", () => {
    fc.assert(
      fc.property(text(600, [200, 500]), (s) => {
        const written = referenceJson(s);
        expect(quote(s)).toBe(written);
        expect(json(s)).toBe(written);
        expect(quotedBytes(s)).toBe(Buffer.byteLength(written, "utf8"));
        expect(stringJsonBytes(s)).toBe(Buffer.byteLength(written, "utf8"));
        expect(utf8Bytes(written)).toBe(Buffer.byteLength(written, "utf8"));
        expect(utf8Bytes(s)).toBe(Buffer.byteLength(s, "utf8"));
        // Every cut that keeps pairs whole weighs what its JSON weighs without the quotes.
        const prefix = new Uint32Array(s.length + 1);
        quotedPrefixBytes(s, prefix);
        for (let i = 0; i <= s.length; i++) {
          const c = s.charCodeAt(i - 1);
          const d = s.charCodeAt(i);
          if (c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) continue;
          expect(prefix[i]).toBe(quotedBytes(s.slice(0, i)) - 2);
        }
      }),
      { numRuns: runs(1000) },
    );
  });

  it("writes an argument value as JSON.stringify writes a copy of it, or not at all", () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(argumentJson(v, 200)).toBe(referenceArgumentJson(v));
      }),
      { numRuns: runs(1000) },
    );
  });
});
