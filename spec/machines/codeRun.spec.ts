import {
  CODE_CALL_DEADLINE_MS,
  MAX_CODE_CALLS,
  type ToolResultBlock,
  type ToolUseBlock,
} from "elyra-assistant";
import {
  type CodeRunOutput,
  codeRunMachine,
  lateResult,
  tooManyCodeCalls,
} from "elyra-assistant/machines";
import { describe, expect, it } from "vitest";
import { createActor, fromPromise, SimulatedClock, toPromise } from "xstate";

const call = (id: string): ToolUseBlock => ({
  type: "tool_use",
  id,
  name: "things_show",
  input: {},
  caller: { type: "code_execution_20260120", tool_id: "srvtoolu_1" },
});
const ok = (id: string): ToolResultBlock => ({
  type: "tool_result",
  tool_use_id: id,
  content: "ok",
});

/** A codeRun whose calls finish when the test says, on a simulated clock. */
const run = (calls: ReadonlyArray<ToolUseBlock>, usedBefore = 0, deadlineMs?: number) => {
  const clock = new SimulatedClock();
  const started: string[] = [];
  const finish = new Map<string, (result: ToolResultBlock | Error) => void>();
  const machine = codeRunMachine.provide({
    actors: {
      runCall: fromPromise<ToolResultBlock, ToolUseBlock>(
        ({ input }) =>
          new Promise((resolve, reject) => {
            started.push(input.id);
            finish.set(input.id, (r) => (r instanceof Error ? reject(r) : resolve(r)));
          }),
      ),
    },
  });
  const actor = createActor(machine, {
    input: { calls, usedBefore, ...(deadlineMs === undefined ? {} : { deadlineMs }) },
    clock,
  });
  actor.start();
  const output = toPromise(actor) as Promise<CodeRunOutput>;
  return { clock, started, finish, actor, output };
};

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("the codeRun machine", () => {
  it("runs the pending calls one by one and answers one tool_result each, in order", async () => {
    const r = run([call("a"), call("b")]);
    expect(r.started).toEqual(["a"]);
    r.finish.get("a")?.(ok("a"));
    await tick();
    expect(r.started).toEqual(["a", "b"]);
    r.finish.get("b")?.(new Error("no such thing"));
    expect(await r.output).toEqual({
      _tag: "Answered",
      results: [
        ok("a"),
        { type: "tool_result", tool_use_id: "b", content: "error: no such thing", is_error: true },
      ],
    });
  });

  it("at the deadline answers what is left with an error, and starts nothing more", async () => {
    const r = run([call("a"), call("b"), call("c")]);
    r.finish.get("a")?.(ok("a"));
    await tick();
    r.clock.increment(CODE_CALL_DEADLINE_MS - 1);
    expect(r.actor.getSnapshot().status).toBe("active");
    r.clock.increment(1);
    expect(await r.output).toEqual({
      _tag: "Answered",
      results: [
        ok("a"),
        {
          type: "tool_result",
          tool_use_id: "b",
          content: lateResult(CODE_CALL_DEADLINE_MS),
          is_error: true,
        },
        {
          type: "tool_result",
          tool_use_id: "c",
          content: lateResult(CODE_CALL_DEADLINE_MS),
          is_error: true,
        },
      ],
    });
    expect(r.started).toEqual(["a", "b"]);
  });

  it("takes a configured deadline", async () => {
    const r = run([call("a")], 0, 1_000);
    r.clock.increment(1_000);
    expect(await r.output).toMatchObject({
      results: [{ content: lateResult(1_000), is_error: true }],
    });
  });

  it("over 500 calls from code in a prompt runs none of this pause", async () => {
    const r = run([call("a"), call("b")], MAX_CODE_CALLS - 1);
    expect(await r.output).toEqual({ _tag: "OverCap", error: tooManyCodeCalls(MAX_CODE_CALLS) });
    expect(r.started).toEqual([]);
    const exactly = run([call("a")], MAX_CODE_CALLS - 1);
    expect(exactly.started).toEqual(["a"]);
  });
});
