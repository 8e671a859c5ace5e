/**
 * U3: the window note is at most 2 048 bytes for any route, live queries and
 * selections, and names no command the user's assistant is not offered, no
 * query of another window and none of an agent's. Routes and argument strings
 * are cut exactly as docs/window-context.md (the bounds) says. Links are
 * none or an app path whose placeholders round-trip through percent-decoding.
 * `more_selected` counts what was left out: the ids shown and that count make
 * every id selected on the route (issue 19, item 6).
 */
import { Schema } from "effect";
import { createApp, createCallPath, defineCommand } from "elyra-assistant";
import { type NoteQuery, type NoteSelection, windowNote } from "elyra-assistant/machines";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { selectionChanged } from "../../src/runtime/log/selection.ts";
import { runs, timeoutFor } from "./runs.ts";

const NUM_RUNS = 1000;
const PARAMS: Record<string, ReadonlyArray<string>> = {
  customers_show: ["id"],
  invoices_index: ["customer_id", "page", "status"],
  search: ["q", "filters"],
  admin_audit: ["since"],
};
const COMMANDS = Object.keys(PARAMS);
const LEAK = "LEAKED-FROM-ANOTHER";

/** Strings that are hard on a byte budget: escapes, multi-byte characters, lone surrogates, tags. */
const nasty = (maxLength: number) =>
  fc.oneof(
    fc.string({ maxLength }),
    fc.string({ unit: "binary", maxLength }),
    fc.string({
      unit: fc.constantFrom("\u0000", "<", "\\", '"', "é", "😀", "\ud800", "\u2028", " "),
      maxLength,
    }),
  );

const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    nasty(400),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.bigInt(),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** A query whose arguments carry a marker saying whose it is, so a leak can be told. */
const query = fc
  .record({
    clientId: fc.constantFrom("w1", "w2"),
    command: fc.constantFrom(...COMMANDS, "unknown_one"),
    origin: fc.constantFrom("frontend", "agent") as fc.Arbitrary<"frontend" | "agent">,
    args: fc.dictionary(
      fc.constantFrom("id", "customer_id", "page", "status", "q", "filters", "since", "x"),
      value,
      {
        maxKeys: 4,
      },
    ),
  })
  // Another window's query, or an agent's, carries a marker in every argument the note could show.
  .map(
    (q): NoteQuery =>
      q.clientId === "w1" && q.origin === "frontend"
        ? q
        : {
            ...q,
            args: { id: LEAK, customer_id: LEAK, page: LEAK, q: LEAK, filters: LEAK, since: LEAK },
          },
  );

const route = fc.oneof(fc.constant(null), nasty(900), fc.constantFrom("/customers/42", "  "));

const selection = (routes: fc.Arbitrary<string | null>) =>
  fc.record({
    kind: nasty(120),
    ids: fc.array(fc.oneof(nasty(300), fc.integer(), fc.double()), { maxLength: 130 }),
    total: fc.option(fc.nat(1000), { nil: undefined }),
    route: routes,
  }) as fc.Arbitrary<NoteSelection>;

const input = route.chain((r) =>
  fc.record({
    route: fc.constant(r),
    queries: fc.array(query, { maxLength: 40 }),
    selections: fc.array(selection(fc.oneof(fc.constant(r), route)), { maxLength: 12 }),
    offered: fc.subarray(COMMANDS),
  }),
);

const parse = (note: string) =>
  JSON.parse(note.slice("<window>".length, -"</window>".length)) as {
    route?: string;
    showing?: Array<{ command: string; arguments: Record<string, unknown> }>;
    selected?: Record<string, unknown[]>;
    more_selected?: number;
  };

const clip = (text: string, max: number) => {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
};

describe("U3: the window note", () => {
  it("is at most 2 048 bytes, well-formed, and names only the asking window's own offered frontend queries", {
    timeout: timeoutFor(),
  }, () => {
    fc.assert(
      fc.property(input, ({ route, queries, selections, offered }) => {
        const note = windowNote({
          clientId: "w1",
          route,
          queries,
          selections,
          offered: new Set(offered),
          argumentNames: (c) => PARAMS[c],
        });
        if (note === null) return;
        expect(Buffer.byteLength(note, "utf8")).toBeLessThanOrEqual(2048);
        expect(note.startsWith("<window>{") && note.endsWith("}</window>")).toBe(true);
        expect(note.slice(8, -9)).not.toContain("<");
        expect(note).not.toContain(LEAK);
        const parsed = parse(note);
        const own = queries.filter(
          (q) => q.clientId === "w1" && q.origin === "frontend" && offered.includes(q.command),
        );
        for (const shown of parsed.showing ?? []) {
          expect(offered).toContain(shown.command);
          expect(own.some((q) => q.command === shown.command)).toBe(true);
          // Argument names are the command's own, in parameter order.
          const names = Object.keys(shown.arguments);
          const params = PARAMS[shown.command] ?? [];
          expect(names).toEqual(params.filter((p) => names.includes(p)));
        }
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it("cuts routes at 500 and argument strings at 200, exactly, when the note fits whole", {
    timeout: timeoutFor(),
  }, () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 900 }).filter((r) => r.trim() !== ""),
        fc.string({ maxLength: 600 }),
        (r, s) => {
          const note = windowNote({
            clientId: "w1",
            route: r,
            queries: [{ clientId: "w1", command: "search", args: { q: s }, origin: "frontend" }],
            selections: [],
            offered: new Set(["search"]),
            argumentNames: (c) => PARAMS[c],
          });
          const parsed = parse(note as string);
          const [shown] = parsed.showing ?? [];
          expect(shown?.arguments.q).toBe(clip(s, 200));
          // The route is cut at 500 unless the byte budget needed it shorter still.
          if (
            Buffer.byteLength(JSON.stringify(clip(r, 500))) +
              100 +
              Buffer.byteLength(JSON.stringify(clip(s, 200))) <
            1800
          )
            expect(parsed.route).toBe(clip(r, 500));
          else expect(clip(r, 500).startsWith((parsed.route ?? "").replace(/…$/, ""))).toBe(true);
        },
      ),
      { numRuns: runs(NUM_RUNS) },
    );
  });
});

/**
 * How many ids were selected on the route, as docs/window-context.md counts
 * them: each kind the note looks at (on the route, a name that is not blank,
 * the newest of each name as cut, an id it can show among its first 100),
 * by its `total` when that says more than its ids, else by its ids.
 */
const selectedOn = (route: string | null, selections: ReadonlyArray<NoteSelection>): number => {
  const names = new Set<string>();
  let n = 0;
  for (const s of [...selections].reverse()) {
    if (s.route !== route) continue;
    const name = clip(s.kind, 64);
    if (name.trim() === "" || names.has(name)) continue;
    if (!s.ids.slice(0, 100).some((id) => typeof id === "string" || Number.isFinite(id))) continue;
    names.add(name);
    n += s.total !== undefined && s.total > s.ids.length ? Math.floor(s.total) : s.ids.length;
  }
  return n;
};

/** The ids a note shows, and how many it says it left out (0 when it says none). */
const counted = (note: string | null) => {
  if (note === null) return { shown: 0, left: 0 };
  const parsed = parse(note);
  expect(parsed.more_selected).not.toBe(0);
  const left = parsed.more_selected ?? 0;
  expect(Number.isSafeInteger(left) && left >= 0).toBe(true);
  const shown = Object.values(parsed.selected ?? {}).reduce((n, ids) => n + ids.length, 0);
  return { shown, left };
};

describe("U3: what the note left out", () => {
  it("shown + more_selected = every id selected on the route, for any input", {
    timeout: timeoutFor(),
  }, () => {
    fc.assert(
      fc.property(input, ({ route, queries, selections, offered }) => {
        const note = windowNote({
          clientId: "w1",
          route,
          queries,
          selections,
          offered: new Set(offered),
          argumentNames: (c) => PARAMS[c],
        });
        const { shown, left } = counted(note);
        expect(shown + left).toBe(selectedOn(route, selections));
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it("shown + more_selected = how many were selected, for selections as the log keeps them", {
    timeout: timeoutFor(),
  }, () => {
    const kind = fc.record({
      name: fc.oneof(fc.constantFrom("invoices", "customers", "a"), nasty(80)),
      count: fc.oneof(fc.nat(20), fc.integer({ min: 90, max: 110 }), fc.nat(3000)),
      long: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(kind, { maxLength: 12 }), route, (kinds, r) => {
        const selections = kinds.map(({ name, count, long }) => {
          const ids = Array.from({ length: count }, (_, i) =>
            long ? `id-${"x".repeat(30)}-${i}` : i,
          );
          const event = selectionChanged(name, ids, r);
          if (event._tag !== "SelectionChanged") throw new Error("not a selection");
          expect(event.ids.length).toBeLessThanOrEqual(100);
          // As the log's selections projection keeps it.
          const { kind, total, route } = event;
          const kept: NoteSelection =
            total === undefined
              ? { kind, ids: event.ids, route }
              : { kind, ids: event.ids, total, route };
          return kept;
        });
        const note = windowNote({
          clientId: "w1",
          route: r,
          queries: [],
          selections,
          offered: new Set(),
          argumentNames: (c) => PARAMS[c],
        });
        if (note !== null) expect(Buffer.byteLength(note, "utf8")).toBeLessThanOrEqual(2048);
        const { shown, left } = counted(note);
        // The newest selection of each kind (as its name is cut) on the route, by its count.
        const selected = selectedOn(r, selections);
        expect(shown + left).toBe(selected);
        const counts = new Map<string, number>();
        for (const { name, count } of kinds)
          if (clip(name, 64).trim() !== "" && count > 0) counts.set(clip(name, 64), count);
        expect(selected).toBe([...counts.values()].reduce((n, c) => n + c, 0));
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });
});

describe("U3: links", () => {
  const command = defineCommand({
    name: "things_show",
    description: "Show a thing.",
    can: "things.view",
    link: "/things/{kind}/{result.id}",
    args: { kind: Schema.Unknown },
    result: Schema.Struct({ id: Schema.Unknown }),
    run: (_args) => ({ id: current }),
  });
  let current: unknown;
  const path = createCallPath(
    createApp({ commands: [command], userAbilities: () => ["*"], assistant: { allow: ["*"] } }),
  );
  const scalar = fc.oneof(
    fc.string(),
    fc.string({ unit: "binary" }),
    fc.constantFrom(
      "javascript:alert(1)",
      "//evil.example",
      "https://evil.example",
      "/\\evil",
      "%2F%2Fevil",
      "..",
      "a/b?c#d",
    ),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.integer(), { maxLength: 2 }),
  );

  it("is none, or a path starting with a single / whose placeholders decode back to the values", {
    timeout: timeoutFor(),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(scalar, scalar, async (kind, id) => {
        current = id;
        const outcome = await path.call(
          { tool: "things_show", input: { kind } },
          { user: {}, origin: { kind: "assistant" }, scope: "w" },
        );
        expect(outcome._tag).toBe("Succeeded");
        const link = outcome._tag === "Succeeded" ? outcome.link : undefined;
        if (link === undefined) return;
        expect(link.startsWith("/") && !link.startsWith("//") && !link.startsWith("/\\")).toBe(
          true,
        );
        expect(link).toMatch(/^\/things\/[A-Za-z0-9\-._~%]+\/[A-Za-z0-9\-._~%]+$/);
        const [, , first, second] = link.split("/");
        expect(decodeURIComponent(first as string)).toBe(String(kind));
        expect(decodeURIComponent(second as string)).toBe(String(id));
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });
});

describe("the note's byte arithmetic", () => {
  it("counts a string's JSON in the note exactly as it is written", {
    timeout: timeoutFor(),
  }, async () => {
    const { json, stringJsonBytes } = await import("../../src/runtime/prompt/windowNote.ts");
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: "binary" }), nasty(50), fc.string({ unit: "grapheme" })),
        (text) => {
          expect(stringJsonBytes(text)).toBe(Buffer.byteLength(json(text), "utf8"));
        },
      ),
      { numRuns: runs(5000) },
    );
  });
});
