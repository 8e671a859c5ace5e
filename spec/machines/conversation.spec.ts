/**
 * The conversation machine alone, its actors stubbed: the states it passes
 * through and the log events it emits.
 */

import { responseOf, simulatedClock } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import { createActor, fromCallback } from "xstate";
import {
  type ConversationEmitted,
  type ConversationEvent,
  conversationMachine,
  type RunToolsInput,
  type StepsCommand,
} from "../../src/machines/conversationMachine.ts";
import { turnSteps } from "../../src/machines/turnSteps.ts";
import { stepsSpent } from "../../src/runtime/prompt/limits.ts";
import type { ModelResponse } from "../../src/runtime/prompt/model.ts";

const prompt = (text = "hi"): ConversationEvent => ({
  type: "PROMPT",
  text,
  route: "/x",
  note: null,
  history: [],
  tools: [],
});

/** A machine whose model answers from a list, each after `delayMs` of simulated time. */
const run = (
  responses: ModelResponse[],
  options: { maxSteps?: number; tokenBudget?: number; delayMs?: number } = {},
) => {
  const clock = simulatedClock(0);
  const queue = [...responses];
  const toolRuns: RunToolsInput[] = [];
  let toolsSendBack: ((e: ConversationEvent) => void) | undefined;
  const machine = conversationMachine.provide({
    actors: {
      // The turn's one steps actor: each model step answers after `delayMs`, tool runs wait for the spec.
      steps: fromCallback<StepsCommand>(({ sendBack, receive }) => {
        const stop = new AbortController();
        receive((command) => {
          if (command.type === "RUN_TOOLS") {
            toolRuns.push(command.input);
            toolsSendBack = sendBack;
            return;
          }
          const timer = clock.setTimeout(
            () => sendBack({ type: "STEP_DONE", response: queue.shift() as ModelResponse }),
            options.delayMs ?? 100,
          );
          stop.signal.addEventListener("abort", () => clock.clearTimeout(timer));
        });
        return () => stop.abort();
      }),
    },
  });
  const actor = createActor(machine, {
    input: { maxSteps: options.maxSteps ?? 8, tokenBudget: options.tokenBudget ?? 200_000 },
    clock,
  });
  const log: ConversationEmitted["event"][] = [];
  actor.on("log", (e) => log.push(e.event));
  actor.start();
  const flush = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  const advance = async (ms: number) => {
    clock.increment(ms);
    await flush();
  };
  return {
    actor,
    log,
    toolRuns,
    advance,
    tools: () => toolsSendBack as (e: ConversationEvent) => void,
  };
};

const tags = (log: ConversationEmitted["event"][]) => log.map((e) => e._tag);

describe("the conversation machine", () => {
  it("idle → requesting → idle with an answer", async () => {
    const m = run([responseOf({ text: "Hello." })]);
    m.actor.send(prompt());
    expect(m.actor.getSnapshot().value).toEqual({ turn: "requesting" });
    await m.advance(100);
    expect(m.actor.getSnapshot().value).toBe("idle");
    // Text is told by the host's coalescer, not the machine: the machine logs the step and the answer.
    expect(tags(m.log)).toEqual(["TurnStarted", "StepStarted", "StepFinished", "Answered"]);
    expect(m.log.at(-1)).toEqual({ _tag: "Answered", turn: 1, text: "Hello." });
  });

  it("requesting → runningTools ⇄ awaitingConfirmation → requesting → idle", async () => {
    const m = run([
      responseOf({ toolCalls: [{ name: "customers_delete", input: { id: 1 }, id: "t1" }] }),
      responseOf({ text: "Done." }),
    ]);
    m.actor.send(prompt());
    await m.advance(100);
    expect(m.actor.getSnapshot().value).toEqual({ turn: { runningTools: "working" } });
    expect(m.toolRuns).toEqual([
      {
        calls: [expect.objectContaining({ id: "t1", name: "customers_delete" })],
        turn: 1,
        step: 1,
      },
    ]);
    m.tools()({ type: "CONFIRMING" });
    expect(m.actor.getSnapshot().value).toEqual({ turn: { runningTools: "awaitingConfirmation" } });
    m.tools()({ type: "CONFIRMED" });
    expect(m.actor.getSnapshot().value).toEqual({ turn: { runningTools: "working" } });
    m.tools()({
      type: "TOOLS_DONE",
      results: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }],
    });
    expect(m.actor.getSnapshot().value).toEqual({ turn: "requesting" });
    expect(m.actor.getSnapshot().context.messages.at(-1)).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }],
    });
    await m.advance(100);
    expect(m.actor.getSnapshot().value).toBe("idle");
    expect(m.log.at(-1)).toMatchObject({ _tag: "Answered", text: "Done." });
  });

  it("STOP from requesting, from runningTools and from awaitingConfirmation ends the turn Stopped", async () => {
    for (const where of ["requesting", "working", "awaitingConfirmation"] as const) {
      const m = run([
        responseOf({ text: "Part one.", toolCalls: [{ name: "x", input: {} }] }),
        responseOf({ text: "never" }),
      ]);
      m.actor.send(prompt());
      if (where !== "requesting") await m.advance(100);
      if (where === "awaitingConfirmation") m.tools()({ type: "CONFIRMING" });
      m.actor.send({ type: "STOP" });
      expect(m.actor.getSnapshot().value).toBe("idle");
      expect(m.log.at(-1)).toEqual({
        _tag: "Stopped",
        turn: 1,
        partial: where === "requesting" ? "" : "Part one.",
      });
      await m.advance(1000);
      expect(m.log.at(-1)?._tag).toBe("Stopped");
    }
  });

  it("RESET in a turn stops it, then resets", async () => {
    const m = run([responseOf({ text: "x" })]);
    m.actor.send(prompt());
    m.actor.send({ type: "RESET" });
    expect(tags(m.log).slice(-2)).toEqual(["Stopped", "Reset"]);
    expect(m.actor.getSnapshot().context.tokensUsed).toBe(0);
  });

  it("maxSteps: the model is asked at most maxSteps times a turn", async () => {
    const call = () => responseOf({ toolCalls: [{ name: "x", input: {} }] });
    const m = run([call(), call(), call()], { maxSteps: 2 });
    m.actor.send(prompt());
    for (let i = 0; i < 2; i++) {
      await m.advance(100);
      m.tools()({ type: "TOOLS_DONE", results: [] });
    }
    expect(m.actor.getSnapshot().value).toBe("idle");
    expect(m.log.at(-1)).toEqual({ _tag: "Failed", turn: 1, error: stepsSpent(2) });
    expect(m.log.filter((e) => e._tag === "StepStarted")).toHaveLength(2);
  });

  it("the token budget is checked before every request", async () => {
    const heavy = (text: string) =>
      responseOf({
        text,
        toolCalls: [{ name: "x", input: {} }],
        usage: { inputTokens: 60, outputTokens: 50 },
      });
    const m = run([heavy("a"), heavy("b")], { tokenBudget: 100 });
    m.actor.send(prompt());
    await m.advance(100);
    m.tools()({ type: "TOOLS_DONE", results: [] });
    expect(m.actor.getSnapshot().value).toBe("idle");
    expect(m.log.at(-1)).toMatchObject({
      _tag: "Failed",
      error: expect.stringContaining("budget of 100 tokens"),
    });
  });

  it("pause_turn asks again with the same messages", async () => {
    const m = run([
      responseOf({ text: "Working", stopReason: "pause_turn" }),
      responseOf({ text: "Done." }),
    ]);
    m.actor.send(prompt());
    await m.advance(100);
    expect(m.actor.getSnapshot().value).toEqual({ turn: "requesting" });
    await m.advance(100);
    expect(m.log.at(-1)).toMatchObject({ _tag: "Answered", text: "Done." });
  });

  it("a model error fails the turn; an unexpected error crashes the actor", async () => {
    const clock = simulatedClock(0);
    const failing = (error: unknown) =>
      createActor(
        conversationMachine.provide({
          actors: {
            steps: turnSteps(() => ({
              callModel: () => Promise.reject(error),
              runTools: async () => [],
            })),
          },
        }),
        { input: { maxSteps: 8, tokenBudget: 1000 }, clock },
      );
    const modelError = failing({ _tag: "ModelError", kind: "overloaded", message: "Overloaded" });
    const log: string[] = [];
    modelError.on("log", (e) => log.push(e.event._tag));
    modelError.start();
    modelError.send(prompt());
    await new Promise((r) => setImmediate(r));
    expect(modelError.getSnapshot().value).toBe("idle");
    expect(log.at(-1)).toBe("Failed");

    const bug = failing(new TypeError("undefined is not a function"));
    const errors: unknown[] = [];
    bug.subscribe({ error: (e) => errors.push(e) });
    bug.start();
    bug.send(prompt());
    await new Promise((r) => setImmediate(r));
    expect(bug.getSnapshot().status).toBe("error");
    expect(errors).toHaveLength(1);
  });

  it("starts from the log's turn and tokens after a rebuild", () => {
    const actor = createActor(conversationMachine, {
      input: { maxSteps: 8, tokenBudget: 10, turn: 7, tokensUsed: 3 },
    });
    actor.start();
    expect(actor.getSnapshot().context).toMatchObject({ turn: 7, tokensUsed: 3 });
  });
});
