/**
 * A1–A4: for random grants × user abilities × commands × tool calls, a command
 * runs only when the grant covers its ability, the user has it (assistant),
 * the rate limit allows, the arguments decode and, for a confirm ability, the
 * user accepted; every refusal is the documented sentence and runs nothing.
 */
import {
  type CallOutcome,
  type Confirmer,
  createApp,
  createCallPath,
  formatOutcome,
  type Origin,
} from "elyra-assistant";
import { argumentsOf, invalidArgumentsOf, mayRun, simulatedClock } from "elyra-assistant/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PROTOTYPE_NAMES } from "../../src/testing/appArbitraries.ts";
import { abilityOf, spyCommands, type TestUser } from "../fixtures/spyCommands.ts";
import { patterns, ReferenceLimiter } from "./reference.ts";
import { runs, timeoutFor } from "./runs.ts";

const NUM_RUNS = 1000;
const commands = spyCommands().commands;
const toolNames = Object.keys(abilityOf);
/** Valid input for a tool: the testing kit's arguments of its own schema, as the model sends them. */
const validInput = (tool: string): fc.Arbitrary<unknown> => {
  const command = commands.find((c) => c.name === tool);
  return command === undefined ? fc.constant({}) : argumentsOf(command);
};

/**
 * Invalid input for a tool, the testing kit's, derived from a valid one: a field
 * of the wrong shape, a required field dropped, an injected extra field, or not
 * an object at all.
 */
const invalidInput = (tool: string): fc.Arbitrary<unknown> => {
  const command = commands.find((c) => c.name === tool);
  return command === undefined ? fc.constant(null) : invalidArgumentsOf(command);
};

interface Call {
  readonly tool: string;
  readonly valid: boolean;
  readonly input: unknown;
  readonly caller: "direct" | "code";
  readonly answer: "accepted" | "declined" | "timedOut";
  readonly advanceMs: number;
  readonly window: "w1" | "w2";
  readonly origin: "assistant" | "agent";
}

/** A call; `hot` is the scenario's favourite tool, so limits and repeats are reached. */
const call = (hot: string): fc.Arbitrary<Call> =>
  fc
    .record({
      tool: fc.oneof(
        { weight: 6, arbitrary: fc.constant(hot) },
        { weight: 6, arbitrary: fc.constantFrom(...toolNames) },
        { weight: 1, arbitrary: fc.constantFrom("internal_sync", ...PROTOTYPE_NAMES) },
        { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
      ),
      valid: fc.boolean(),
      caller: fc.constantFrom("direct" as const, "code" as const),
      answer: fc.constantFrom("accepted" as const, "declined" as const, "timedOut" as const),
      advanceMs: fc.oneof(
        { weight: 3, arbitrary: fc.constant(0) },
        { weight: 2, arbitrary: fc.integer({ min: 0, max: 40_000 }) },
      ),
      window: fc.constantFrom("w1" as const, "w1" as const, "w2" as const),
      origin: fc.constantFrom("assistant" as const, "assistant" as const, "agent" as const),
    })
    .chain((c) =>
      (c.valid ? validInput(c.tool) : invalidInput(c.tool)).map(
        (input) => ({ ...c, input }) as Call,
      ),
    );

const scenario = fc.record({
  assistantAllow: patterns,
  assistantConfirm: patterns,
  mcpAllow: patterns,
  mcpConfirm: patterns,
  user: patterns,
  rateLimit: fc.option(
    fc.record({
      calls: fc.integer({ min: 1, max: 3 }),
      perSeconds: fc.integer({ min: 1, max: 60 }),
    }),
    { nil: undefined, freq: 2 },
  ),
  calls: fc
    .constantFrom(...toolNames)
    .chain((hot) => fc.array(call(hot), { minLength: 1, maxLength: 12 })),
});

type Expected = CallOutcome["_tag"];

const SENTENCES: Partial<Record<Expected, (tool: string, ability: string) => RegExp>> = {
  UnknownTool: () => /^unknown tool: /,
  Denied: (_t, ability) =>
    new RegExp(`^the user may not do this: it takes ${ability.replaceAll(".", "\\.")}$`),
  RateLimited: (tool) => new RegExp(`^rate limit reached for ${tool}: try again in [1-9][0-9]* s$`),
  CodeCallerRefused: () => /^call it directly, so the user can confirm it$/,
  NotConfirmed: (tool) => new RegExp(`^The user didn't confirm ${tool}, so it did not run\\.$`),
};

describe("A1 + A4: only what the grant, the user, the limit, the arguments and the user's answer allow runs", () => {
  it("matches the reference model for random grants, users and calls", {
    timeout: timeoutFor(),
  }, async () => {
    const seen = new Map<Expected, number>();
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const spies = spyCommands();
        const clock = simulatedClock(0);
        const app = createApp({
          commands: spies.commands,
          userAbilities: (u) => (u as TestUser).abilities,
          assistant: {
            allow: s.assistantAllow,
            confirm: s.assistantConfirm,
            ...(s.rateLimit ? { rateLimit: s.rateLimit } : {}),
          },
          mcp: {
            allow: s.mcpAllow,
            confirm: s.mcpConfirm,
            ...(s.rateLimit ? { rateLimit: s.rateLimit } : {}),
          },
        });
        const path = createCallPath(app, { clock });
        const limiter = new ReferenceLimiter();
        const user: TestUser = { name: "Ada", abilities: s.user };
        for (const c of s.calls) {
          clock.increment(c.advanceMs);
          const agent = c.origin === "agent";
          const origin: Origin = agent
            ? { kind: "agent", client: "cursor" }
            : { kind: "assistant" };
          // The reference of who may run what: the testing kit's, with the abilities written apart.
          const verdict = mayRun(app, { tool: c.tool, origin, has: s.user }, { takes: abilityOf });
          const ability = verdict._tag === "UnknownTool" ? undefined : verdict.ability;
          const confirms = verdict._tag === "Allowed" && verdict.confirm;
          let expected: Expected;
          if (verdict._tag === "UnknownTool") expected = "UnknownTool";
          else if (verdict._tag === "Denied") expected = "Denied";
          else if (
            s.rateLimit !== undefined &&
            limiter.take(
              `${c.origin}:${c.window}:${c.tool}`,
              s.rateLimit.calls,
              s.rateLimit.perSeconds * 1000,
              clock.now(),
            ) !== "ok"
          )
            expected = "RateLimited";
          else if (!c.valid) expected = "InvalidArguments";
          else if (confirms && c.caller === "code") expected = "CodeCallerRefused";
          else if (confirms && c.answer !== "accepted") expected = "NotConfirmed";
          else expected = "Succeeded";

          const before = spies.total();
          const confirmer: Confirmer = {
            ask: async (r) => ({
              confirmId: r.confirmId,
              tool: r.tool,
              digest: r.digest,
              answer: c.answer,
            }),
          };
          const outcome = await path.call(
            {
              tool: c.tool,
              input: c.input,
              caller:
                c.caller === "code" ? { type: "code", toolId: "srvtoolu_1" } : { type: "direct" },
            },
            { user, origin, scope: c.window, confirmer },
          );
          expect(outcome._tag).toBe(expected);
          seen.set(expected, (seen.get(expected) ?? 0) + 1);
          expect(spies.total() - before).toBe(expected === "Succeeded" ? 1 : 0);
          const sentence = SENTENCES[expected]?.(c.tool, ability ?? "");
          if (sentence) expect(formatOutcome(outcome).text).toMatch(sentence);
        }
      }),
      { numRuns: runs(NUM_RUNS) },
    );
    // Every branch of the reference was reached, so the property says something about each.
    for (const tag of [
      "UnknownTool",
      "Denied",
      "RateLimited",
      "InvalidArguments",
      "CodeCallerRefused",
      "NotConfirmed",
      "Succeeded",
    ] as const) {
      expect(seen.get(tag) ?? 0, tag).toBeGreaterThan(20);
    }
  });
});

describe("A2: prototype names are unknown tools", () => {
  it("under any grant, a name that is not a command's never resolves and nothing runs", {
    timeout: timeoutFor(),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.constantFrom(...PROTOTYPE_NAMES),
          fc.string({ maxLength: 20 }).filter((n) => !toolNames.includes(n)),
        ),
        fc.constantFrom("assistant" as const, "agent" as const),
        async (tool, origin) => {
          const spies = spyCommands();
          const app = createApp({
            commands: spies.commands,
            userAbilities: () => ["*"],
            assistant: { allow: ["*"] },
            mcp: { allow: ["*"] },
          });
          const outcome = await createCallPath(app).call(
            { tool, input: {} },
            {
              user: {},
              origin: origin === "agent" ? { kind: "agent", client: "x" } : { kind: "assistant" },
              scope: "w",
            },
          );
          expect(outcome._tag).toBe("UnknownTool");
          expect(spies.total()).toBe(0);
        },
      ),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it("a __proto__ key in the arguments is refused and pollutes nothing", async () => {
    const spies = spyCommands();
    const app = createApp({
      commands: spies.commands,
      userAbilities: () => ["*"],
      assistant: { allow: ["*"] },
    });
    const input = JSON.parse(
      '{"id": 1, "__proto__": {"admin": true}, "constructor": {"prototype": {"admin": true}}}',
    );
    const outcome = await createCallPath(app).call(
      { tool: "customers_show", input },
      { user: {}, origin: { kind: "assistant" }, scope: "w" },
    );
    expect(outcome._tag).toBe("InvalidArguments");
    expect(spies.total()).toBe(0);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });
});

describe("A3: whether a call is asked first comes from the app's registry only", () => {
  it("the confirmer is asked exactly when the grant's confirm covers the ability, whatever the call carries", {
    timeout: timeoutFor(),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .constantFrom(...toolNames)
          .chain((tool) => fc.tuple(fc.constant(tool), validInput(tool))),
        patterns,
        fc.dictionary(
          fc.constantFrom("confirmed", "needsConfirmation", "destructive", "confirm", "readOnly"),
          fc.jsonValue(),
        ),
        async ([tool, input], confirmPatterns, junk) => {
          const spies = spyCommands();
          const app = createApp({
            commands: spies.commands,
            userAbilities: () => ["*"],
            assistant: { allow: ["*"], confirm: confirmPatterns },
          });
          const asked: string[] = [];
          const confirmer: Confirmer = {
            ask: async (r) => {
              asked.push(r.tool);
              return { confirmId: r.confirmId, tool: r.tool, digest: r.digest, answer: "accepted" };
            },
          };
          const forged = { tool, input, ...junk } as { tool: string; input: unknown };
          await createCallPath(app).call(forged, {
            user: {},
            origin: { kind: "assistant" },
            scope: "w",
            confirmer,
          });
          const verdict = mayRun(
            app,
            { tool, origin: { kind: "assistant" }, has: ["*"] },
            { takes: abilityOf },
          );
          expect(verdict._tag).toBe("Allowed");
          expect(asked.length).toBe(verdict._tag === "Allowed" && verdict.confirm ? 1 : 0);
        },
      ),
      { numRuns: runs(NUM_RUNS) },
    );
  });
});
