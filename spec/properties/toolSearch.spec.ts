/**
 * TS1 (issue 32): for random apps (commands, their descriptions and
 * arguments, grants, the tool search settings, code mode), random users and
 * random queries, through a real host: the client tools of the framed
 * request are exactly grant ∩ the user's abilities (by `mayRun`, the
 * reference written apart from the call path), in the catalog's order; when
 * searched, every one is deferred, nothing else is, and the tool search tool
 * comes last; the stand-in's search (BM25 and regex, over any query)
 * references only those tools; and when the model calls what it found and
 * tools outside them, only what it found runs (once each), the rest is
 * refused as unknown tools.
 *
 * That nothing outside grant ∩ abilities runs, whatever the model calls and
 * however (directly or from code, any arguments, confirmations, limits), is
 * A1–A4 of spec/properties/authority.spec.ts; here it is the search's part.
 */

import { FastCheck as fc, Schema } from "effect";
import {
  createApp,
  createHost,
  defineCommand,
  type Model,
  type ModelRequest,
} from "elyra-assistant";
import { fakeModel, mayRun, usersOf } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import type { ClientTool, ModelTool, ServerTool } from "../../src/runtime/prompt/model.ts";
import { PROTOTYPE_NAMES } from "../../src/testing/appArbitraries.ts";
import { searchTools } from "../../src/testing/standInToolSearch.ts";
import { runs, timeoutFor } from "./runs.ts";

const NUM_RUNS = 1000;

const RESOURCES = ["customers", "invoices", "projects", "payroll", "reports", "contracts"];
const VERBS = ["view", "create", "update", "delete", "export", "archive", "merge"];
const WORDS = [
  "customer",
  "invoice",
  "overdue",
  "payroll",
  "salary",
  "report",
  "archive",
  "delete",
  "contract",
  "project",
  "merge",
  "export",
  "id",
  "note",
];
const ARGS = ["id", "note", "dueOn", "amount", "reason"];

const phrase = fc
  .array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 })
  .map((words) => `${words.join(" ")}.`);

/** A command of the pool: its resource and verb, a description and arguments, both random. */
const commandArb = fc.record({
  resource: fc.constantFrom(...RESOURCES),
  verb: fc.constantFrom(...VERBS),
  description: phrase,
  args: fc.uniqueArray(fc.record({ name: fc.constantFrom(...ARGS), about: phrase }), {
    selector: (a) => a.name,
    maxLength: 3,
  }),
});

const patternArb = fc.oneof(
  fc.constant("*"),
  fc.constantFrom(...RESOURCES.map((r) => `${r}.*`), "customersx.*", "invoices"),
  fc.constantFrom(...RESOURCES.flatMap((r) => VERBS.map((v) => `${r}.${v}`))),
);

const scenario = fc.record({
  commands: fc.uniqueArray(commandArb, {
    selector: (c) => `${c.resource}_${c.verb}`,
    minLength: 1,
    maxLength: 42,
  }),
  allow: fc.array(patternArb, { maxLength: 5 }),
  settings: fc.record({
    toolSearch: fc.constantFrom(true as const, false as const, "auto" as const),
    toolSearchAboveTools: fc.integer({ min: 0, max: 40 }),
    toolSearchAboveTokens: fc.constantFrom(0, 400, 10_000),
    toolSearchTool: fc.constantFrom(
      "tool_search_tool_bm25_20251119",
      "tool_search_tool_regex_20251119",
    ),
    codeMode: fc.boolean(),
  }),
  query: fc.oneof(
    phrase,
    fc.string({ maxLength: 20 }),
    fc.constantFrom("^customers_", "invoice|payroll", ".*", "", "(", "[a-z]+_delete$", "PAYROLL"),
  ),
  pattern: fc.oneof(
    fc.constantFrom("^customers_", "invoice|payroll", ".*", "", "(", "_(view|merge)$", "ID"),
    fc.string({ maxLength: 8 }),
  ),
  seed: fc.integer(),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer S> ? S : never;

const appOf = (s: Scenario) => {
  const ran = new Map<string, number>();
  const commands = s.commands.map(({ resource, verb, description, args }) => {
    const name = `${resource}_${verb}`;
    return defineCommand({
      name,
      description,
      can: `${resource}.${verb}`,
      args: Object.fromEntries(
        args.map((a) => [
          a.name,
          Schema.optional(Schema.String.annotations({ description: a.about })),
        ]),
      ),
      run: () => {
        ran.set(name, (ran.get(name) ?? 0) + 1);
        return { ok: true };
      },
    });
  });
  const app = createApp({
    commands,
    userAbilities: (user) => (user as { abilities: string[] }).abilities,
    assistant: { allow: s.allow, ...s.settings },
  });
  return { app, ran };
};

/** Any of `items`, picked by `seed`: the property's own choice, reproducible. */
const pick = <T>(items: ReadonlyArray<T>, seed: number): T | undefined =>
  items.length === 0 ? undefined : items[Math.abs(seed) % items.length];

const isSearchTool = (tool: ModelTool): tool is ServerTool =>
  "type" in tool && typeof tool.type === "string" && tool.type.startsWith("tool_search_tool_");

describe("tool search within grant ∩ abilities, for random apps, users and queries", () => {
  it("TS1: the request holds exactly them, the search finds only them, only what it found runs", {
    timeout: timeoutFor(120_000),
  }, async () => {
    let searched = 0;
    let found = 0;
    let refusedOutsiders = 0;
    await fc.assert(
      fc.asyncProperty(
        // Users of each app by the testing kit: any subset of the abilities and patterns it names.
        scenario.chain((s) => usersOf(appOf(s).app).map((u) => ({ s, u }))),
        async ({ s, u }) => {
          const { app, ran } = appOf(s);
          const { user } = u;
          const expected = [...app.commands.keys()]
            .filter(
              (tool) =>
                mayRun(app, { tool, origin: { kind: "assistant" }, has: u.abilities })._tag ===
                "Allowed",
            )
            .sort();
          const outsiders = [...app.commands.keys()].filter((name) => !expected.includes(name));
          let called: string[] = [];
          // A model that searches when it can, with the scenario's query, and calls what it found
          // and a tool outside the user's (a command of the app, or a prototype name).
          const recorded: ModelRequest[] = [];
          const model: Model = {
            step: (request: ModelRequest, options) => {
              recorded.push(request);
              if (request.messages.length > 1)
                return fakeModel().says("Done.").step(request, options);
              const search = request.tools.find(isSearchTool);
              const deferred = request.tools.filter(
                (t) => (t as ClientTool).defer_loading === true,
              );
              const result =
                search === undefined
                  ? undefined
                  : searchTools(
                      deferred,
                      search.type.includes("regex") ? "regex" : "bm25",
                      s.query,
                    );
              const references =
                result?.type === "tool_search_tool_search_result"
                  ? result.tool_references.map((r) => r.tool_name)
                  : [];
              const outsider = pick([...outsiders, ...PROTOTYPE_NAMES.slice(0, 2)], s.seed);
              called = [...references, ...(outsider === undefined ? [] : [outsider])];
              return fakeModel([
                {
                  ...(search === undefined ? {} : { searchTools: s.query }),
                  ...(called.length === 0
                    ? { text: "Nothing to call." }
                    : { toolCalls: called.map((name) => ({ name, input: {} })) }),
                },
              ]).step(request, options);
            },
          };
          const host = createHost(app, { model });
          try {
            const end = await host.window("w", { user }).prompt("Find it.");
            expect(end._tag).toBe("Answered");
          } finally {
            await host.close();
          }

          const first = recorded[0];
          if (first === undefined) throw new Error("no request");
          const own = first.tools.filter((t) => !("type" in t) || t.type === undefined);
          expect(own.map((t) => t.name)).toEqual(expected);
          const search = first.tools.find(isSearchTool);
          if (search !== undefined) {
            searched++;
            expect(first.tools.at(-1)).toBe(search);
            expect(own.every((t) => (t as ClientTool).defer_loading === true)).toBe(true);
            expect(
              first.tools.filter(
                (t) => "type" in t && t.type !== undefined && "defer_loading" in t,
              ),
            ).toEqual([]);
          } else {
            expect(first.tools.some((t) => "defer_loading" in t)).toBe(false);
          }
          // The stand-in's search, either variant and any query, over the request's tools (its
          // deferred ones, when searched): only offered tools, however many it may return.
          for (const [variant, query] of [
            ["bm25", s.query],
            ["regex", s.pattern],
            ["regex", ".*"],
          ] as const) {
            const result = searchTools(own, variant, query, 10_000);
            if (result.type === "tool_search_tool_search_result")
              for (const ref of result.tool_references) expect(expected).toContain(ref.tool_name);
          }
          // What the model found ran once each; nothing outside grant ∩ abilities ran.
          const foundNow = called.filter((name) => expected.includes(name));
          found += foundNow.length;
          refusedOutsiders += called.length - foundNow.length;
          expect([...ran.keys()].sort()).toEqual([...new Set(foundNow)].sort());
          for (const name of foundNow) expect(ran.get(name)).toBe(1);
          for (const name of ran.keys()) expect(expected).toContain(name);
        },
      ),
      { numRuns: runs(NUM_RUNS) },
    );
    // The runs reached the cases that matter: searched requests, found tools and refused outsiders.
    expect(searched).toBeGreaterThan(0);
    expect(found).toBeGreaterThan(0);
    expect(refusedOutsiders).toBeGreaterThan(0);
  });
});
