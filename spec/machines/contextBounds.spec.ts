/**
 * The conversation machine keeps its context bounded (issue 32, item 3): a
 * turn whose history has grown past its bound first asks for a summary (step
 * 0, no tools, never streamed as the answer), logs it as `Compacted`, and
 * sends it in place of the earlier turns; a turn whose tool results grow past
 * theirs clears the older ones and logs `ToolResultsCleared`. The property:
 * the requests of a conversation rebuilt from its log after any number of
 * restarts are the bytes of those of one that never stopped.
 */
import { Schema } from "effect";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createActor } from "xstate";
import {
  type CallModelInput,
  type ConversationEvent,
  conversationMachine,
} from "../../src/machines/conversationMachine.ts";
import { turnSteps } from "../../src/machines/turnSteps.ts";
import { LogEvent, type UnstampedEvent } from "../../src/runtime/log/events.ts";
import { history, status, usage } from "../../src/runtime/log/projections.ts";
import { CLEARED_RESULT } from "../../src/runtime/prompt/clearing.ts";
import {
  type ContextBounds,
  SUMMARY_HEAD,
  SUMMARY_REQUEST,
} from "../../src/runtime/prompt/compaction.ts";
import type { ModelResponse, ModelTool } from "../../src/runtime/prompt/model.ts";

/** What each turn does: how many tool steps, how long each result and the answer are. */
interface TurnPlan {
  readonly toolSteps: number;
  readonly resultSize: number;
  readonly answerSize: number;
}

const TOOLS: ReadonlyArray<ModelTool> = [
  { name: "customers_show", description: "Show one customer.", input_schema: { type: "object" } },
];
const usageOf = { inputTokens: 100, outputTokens: 20 };
const text = (t: string): ModelResponse => ({
  content: [{ type: "text", text: t }],
  stopReason: "end_turn",
  usage: usageOf,
});

const decodeLog = Schema.decodeUnknownSync(Schema.Array(LogEvent));

/**
 * A conversation over a log kept as a store keeps it (JSON, decoded back),
 * whose machine may be thrown away between turns and rebuilt from the log.
 */
const conversation = (bounds: ContextBounds) => {
  const stored: unknown[] = [];
  const requests: CallModelInput[] = [];
  let plan: TurnPlan = { toolSteps: 0, resultSize: 0, answerSize: 0 };
  const steps = turnSteps(() => ({
    callModel: async (input) => {
      requests.push(input);
      if (input.summary) return text(`Summary of ${input.messages.length - 1} messages.`);
      const called = input.step - 1;
      if (called < plan.toolSteps)
        return {
          content: [
            {
              type: "tool_use",
              id: `t${input.turn}.${input.step}`,
              name: "customers_show",
              input: { id: called },
            },
          ],
          stopReason: "tool_use",
          usage: usageOf,
        };
      return text(`Answer ${input.turn}: ${"a".repeat(plan.answerSize)}`);
    },
    runTools: async (input) =>
      input.calls.map((c) => ({
        type: "tool_result" as const,
        tool_use_id: c.id,
        content: `${c.id} ${"r".repeat(plan.resultSize)}`,
      })),
  }));
  const machine = conversationMachine.provide({ actors: { steps } });
  const events = () => decodeLog(JSON.parse(JSON.stringify(stored)));
  const start = () => {
    const log = events();
    const actor = createActor(machine, {
      input: {
        maxSteps: 16,
        tokenBudget: 1e9,
        bounds,
        turn: status.fold(log).turn,
        tokensUsed: usage.fold(log).total,
      },
    });
    actor.on("log", ({ event }: { event: UnstampedEvent }) =>
      stored.push({ ...event, seq: stored.length + 1, at: stored.length }),
    );
    return actor.start();
  };
  let actor = start();
  return {
    requests,
    events,
    restart: () => {
      actor.stop();
      actor = start();
    },
    ask: async (question: string, turnPlan: TurnPlan) => {
      plan = turnPlan;
      const prompt: ConversationEvent = {
        type: "PROMPT",
        text: question,
        route: null,
        note: null,
        history: history.fold(events()).messages,
        tools: TOOLS,
      };
      actor.send(prompt);
      for (let i = 0; i < 10_000 && !actor.getSnapshot().matches("idle"); i++)
        await Promise.resolve();
      expect(actor.getSnapshot().matches("idle")).toBe(true);
    },
  };
};

const bounds: ContextBounds = { compactAbove: 400, keepTurns: 1, clearAbove: 300, keepResults: 1 };

describe("a conversation that outgrows its bounds", () => {
  it("summarises the earlier turns once, with the turn's own tools (so the cached prefix is repeated), and sends the summary in their place", async () => {
    const c = conversation(bounds);
    for (let i = 0; i < 6; i++)
      await c.ask(`question ${i}`, { toolSteps: 0, resultSize: 0, answerSize: 300 });
    const summaries = c.requests.filter((r) => r.summary);
    expect(summaries.length).toBeGreaterThan(0);
    for (const s of summaries) {
      expect(s.step).toBe(0);
      // The same tools as the turn's next request: the prefix the cache holds.
      expect(s.tools).toEqual(c.requests[c.requests.indexOf(s) + 1]?.tools);
      expect(s.tools.length).toBeGreaterThan(0);
      expect(s.messages.at(-1)).toEqual({ role: "user", content: SUMMARY_REQUEST });
    }
    const log = c.events();
    const compacted = log.filter((e) => e._tag === "Compacted");
    expect(compacted.length).toBe(summaries.length);
    // The request after a summary begins with it, then the kept turn, then the question.
    const after = c.requests[
      c.requests.indexOf(summaries[0] as CallModelInput) + 1
    ] as CallModelInput;
    expect(after.summary).toBeUndefined();
    expect(String(after.messages[0]?.content).startsWith(SUMMARY_HEAD)).toBe(true);
    expect(after.messages.length).toBe(2 + 2 + 1);
    // The summary's tokens count: a StepFinished of step 0 for each.
    expect(log.filter((e) => e._tag === "StepFinished" && e.step === 0).length).toBe(
      summaries.length,
    );
    // What the turns answered is theirs, not the summary's.
    const answered = log.flatMap((e) => (e._tag === "Answered" ? [e.text] : []));
    expect(answered.every((a) => a.startsWith("Answer"))).toBe(true);
  });

  it("asks for no summary under its bound, or when compaction is off", async () => {
    const c = conversation({ ...bounds, compactAbove: false });
    for (let i = 0; i < 6; i++)
      await c.ask(`question ${i}`, { toolSteps: 0, resultSize: 0, answerSize: 300 });
    expect(c.requests.some((r) => r.summary)).toBe(false);
    expect(c.events().some((e) => e._tag === "Compacted")).toBe(false);
  });

  it("clears a long turn's older tool results before the next step, and logs it", async () => {
    const c = conversation(bounds);
    await c.ask("tidy up", { toolSteps: 5, resultSize: 800, answerSize: 10 });
    const last = c.requests.at(-1) as CallModelInput;
    const results = last.messages.flatMap((m) =>
      typeof m.content === "string" ? [] : m.content.filter((b) => b.type === "tool_result"),
    ) as Array<{ content: string }>;
    expect(results.length).toBe(5);
    expect(results.map((r) => r.content === CLEARED_RESULT)).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
    const cleared = c.events().filter((e) => e._tag === "ToolResultsCleared");
    expect(cleared.reduce((n, e) => n + (e._tag === "ToolResultsCleared" ? e.cleared : 0), 0)).toBe(
      3,
    );
  });
});

describe("rebuilt from its log after restarts", () => {
  it("sends byte for byte the requests of the conversation that never stopped (1 000 runs)", async () => {
    const turnPlan = fc.record({
      toolSteps: fc.integer({ min: 0, max: 4 }),
      resultSize: fc.integer({ min: 0, max: 600 }),
      answerSize: fc.integer({ min: 0, max: 400 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(turnPlan, fc.boolean()), { minLength: 1, maxLength: 8 }),
        fc.record({
          compactAbove: fc.oneof(fc.constant(false as const), fc.integer({ min: 50, max: 2_000 })),
          keepTurns: fc.integer({ min: 0, max: 3 }),
          clearAbove: fc.oneof(fc.constant(false as const), fc.integer({ min: 50, max: 2_000 })),
          keepResults: fc.integer({ min: 0, max: 3 }),
        }),
        async (turns, bounds) => {
          const steady = conversation(bounds);
          const restarted = conversation(bounds);
          for (const [i, [plan, restart]] of turns.entries()) {
            await steady.ask(`question ${i}`, plan);
            if (restart) restarted.restart();
            await restarted.ask(`question ${i}`, plan);
          }
          expect(JSON.stringify(restarted.requests)).toBe(JSON.stringify(steady.requests));
          // And each turn's first request is what its log says: the history folded, then the question.
          const log = steady.events();
          for (const r of steady.requests.filter((r) => r.step === 1)) {
            const upTo = log.findIndex(
              (e) => e._tag === "StepStarted" && e.turn === r.turn && e.step === 1,
            );
            const folded = history.fold(log.slice(0, upTo)).messages;
            expect(JSON.stringify(r.messages.slice(0, -1))).toBe(JSON.stringify(folded));
          }
        },
      ),
      { numRuns: 1_000 },
    );
  });
});
