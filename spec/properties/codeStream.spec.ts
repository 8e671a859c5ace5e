/**
 * A script's code streamed into the log, as a window streams it: the input's
 * JSON cut into any pieces, read by the adapter's reader, told through the
 * window's model step into its coalescer (on a simulated clock, pieces any
 * time apart), logged, and folded into the panel. For any code and any
 * pieces: the deltas join to the code, all of them between the script's
 * start and the step's end; the words around the code stay text; the panel
 * shows a prefix of the code while it is written and the whole code after;
 * and the log folds to the same script without the streamed events (an older
 * log, or a model that streams no code).
 */
import type { LogEvent, UnstampedEvent } from "elyra-assistant/log";
import { panelItems } from "elyra-assistant/log";
import { simulatedClock } from "elyra-assistant/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { modelStep } from "../../src/actors/turn/modelStep.ts";
import { windowStream } from "../../src/actors/window/stream.ts";
import type { User } from "../../src/runtime/commands/origin.ts";
import { codeInputReader } from "../../src/runtime/prompt/codeInput.ts";
import { scriptEvents } from "../../src/runtime/prompt/codeScripts.ts";
import type { Model } from "../../src/runtime/prompt/model.ts";
import { runs, timeoutFor } from "./runs.ts";

const TOOL_ID = "srvtoolu_1";

const code = fc.string({
  unit: fc.oneof(
    fc.constantFrom('"', "\\", "\n", "\t", "\u0000", "😀", "é", "\ud800", "{", "}"),
    fc.char(),
    fc.fullUnicode(),
  ),
  maxLength: 60,
});

/** `json` cut at `cuts`. */
const cut = (json: string, cuts: ReadonlyArray<number>): string[] => {
  const points = [...new Set(cuts)].filter((n) => n > 0 && n < json.length).sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const to of [...points, json.length]) {
    pieces.push(json.slice(from, to));
    from = to;
  }
  return pieces;
};

/**
 * One step of turn 1 that says the words of `text`, then writes `code` in the
 * pieces of its input's JSON cut at `cuts`, then says the words of `after`
 * (as after a code execution's result), each `gaps` ms apart (cycled),
 * through a window's model step and coalescer; logged as the window logs it.
 */
const play = async (
  text: ReadonlyArray<string>,
  written: string,
  cuts: ReadonlyArray<number>,
  gaps: ReadonlyArray<number>,
  after: ReadonlyArray<string> = [],
): Promise<LogEvent[]> => {
  const clock = simulatedClock(0);
  const log: LogEvent[] = [];
  const append = (event: UnstampedEvent) =>
    log.push({ ...event, seq: log.length + 1, at: clock.now() } as LogEvent);
  const stream = windowStream({ clock }, () => 1, append);
  const record = (event: UnstampedEvent) => {
    stream.flush();
    append(event);
  };
  let gap = 0;
  const wait = () => clock.increment(gaps.length === 0 ? 0 : (gaps[gap++ % gaps.length] as number));
  const input = { code: written };
  const model: Model = {
    step: async (_request, { onText, onCode }) => {
      for (const word of text) {
        onText?.(word);
        wait();
      }
      const reader = codeInputReader();
      onCode?.(TOOL_ID, "");
      for (const piece of cut(JSON.stringify(input), cuts)) {
        onCode?.(TOOL_ID, reader.read(piece));
        wait();
      }
      for (const word of after) {
        onText?.(word);
        wait();
      }
      return {
        content: [
          ...(text.length === 0 ? [] : [{ type: "text", text: text.join("") }]),
          { type: "server_tool_use", id: TOOL_ID, name: "code_execution", input },
          ...(after.length === 0 ? [] : [{ type: "text", text: after.join("") }]),
        ],
        stopReason: "tool_use",
        usage: { inputTokens: 1, outputTokens: 1 },
      };
    },
  };
  const step = modelStep({
    model,
    modelName: "claude-test",
    maxTokensPerStep: 1024,
    user: () => ({ name: "Ada" }) as unknown as User,
    framed: () => undefined,
    text: stream,
    record,
  });
  append({ _tag: "TurnStarted", turn: 1, text: "Go", route: null, note: null });
  append({ _tag: "StepStarted", turn: 1, step: 1 });
  const response = await step.call(
    { messages: [], tools: [], turn: 1, step: 1, container: null },
    new AbortController().signal,
  );
  // As the conversation logs a step's end: StepFinished, then the scripts the response started.
  record({
    _tag: "StepFinished",
    turn: 1,
    step: 1,
    stopReason: response.stopReason,
    usage: response.usage,
  });
  for (const event of scriptEvents(response.content, 1, {})) record(event);
  // The code pauses at its first call.
  record({
    _tag: "ToolStarted",
    turn: 1,
    callId: "toolu_1",
    tool: "invoices_index",
    caller: { type: "code", toolId: TOOL_ID },
  });
  return log;
};

describe("a script's code streamed into the log (SimulatedClock)", () => {
  it("for any code cut into any pieces, any time apart: the deltas join to the code, and the panel's script shows a prefix of it while written and all of it after", {
    timeout: timeoutFor(),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ minLength: 1, maxLength: 4 }), { maxLength: 4 }),
        code,
        fc.array(fc.nat({ max: 200 }), { maxLength: 40 }),
        fc.array(fc.integer({ min: 0, max: 120 }), { maxLength: 8 }),
        fc.array(fc.string({ minLength: 1, maxLength: 4 }), { maxLength: 3 }),
        async (text, written, cuts, gaps, after) => {
          const log = await play(text, written, cuts, gaps, after);
          const tags = log.map((e) => e._tag);
          const writing = tags.indexOf("ScriptWriting");
          const stepEnd = tags.indexOf("StepFinished");
          const deltas = log.filter((e) => e._tag === "ScriptCodeDelta");

          // The script starts before its code, after the words said before it; its code comes
          // before the step's end, and the whole code after.
          expect(writing).toBeGreaterThan(tags.lastIndexOf("TextDelta", writing));
          expect(writing).toBeLessThan(stepEnd);
          if (deltas.length > 0) {
            expect(tags.indexOf("ScriptCodeDelta")).toBeGreaterThan(writing);
            expect(tags.lastIndexOf("ScriptCodeDelta")).toBeLessThan(stepEnd);
          }
          expect(tags.slice(-2)).toEqual(["ScriptStarted", "ToolStarted"]);
          expect(deltas.map((d) => (d._tag === "ScriptCodeDelta" ? d.code : "")).join("")).toBe(
            written,
          );
          expect(deltas.every((d) => d._tag === "ScriptCodeDelta" && d.code !== "")).toBe(true);
          // The words before and after the code are text, never code.
          const said = log.map((e) => (e._tag === "TextDelta" ? e.text : "")).join("");
          expect(said).toBe([...text, ...after].join(""));
          // Code alone is told at most once per 50 ms (but the last of a run, which what comes
          // next, the words after it or the step's end, tells at once).
          for (let i = 1; i < log.length - 1; i++) {
            const [before, now] = [log[i - 1] as LogEvent, log[i] as LogEvent];
            if (
              before._tag === "ScriptCodeDelta" &&
              now._tag === "ScriptCodeDelta" &&
              log[i + 1]?._tag === "ScriptCodeDelta"
            )
              expect(now.at - before.at).toBeGreaterThanOrEqual(50);
          }

          // Folded as the panel folds it, event by event: a prefix while written, then the code.
          let state = panelItems.initial;
          for (const event of log) {
            state = panelItems.apply(state, event);
            const script = state.items.find((item) => item.kind === "script");
            if (script?.kind !== "script") continue;
            if (script.writing) expect(written.startsWith(script.code)).toBe(true);
            else expect(script.code).toBe(written);
          }
          const folded = panelItems.fold(log);
          const script = folded.items.find((item) => item.kind === "script");
          expect(script).toEqual({
            kind: "script",
            turn: 1,
            toolId: TOOL_ID,
            code: written,
            steps: [{ callId: "toolu_1", tool: "invoices_index" }],
            calls: 1,
          });
          expect(folded).toEqual(state);
          // Without the streamed events (an older log), the same script; the same panel when
          // nothing was said after the code (else the script shows where it was written, before
          // those words, where an older log shows it after the step's words).
          const older = panelItems.fold(
            log.filter((e) => e._tag !== "ScriptWriting" && e._tag !== "ScriptCodeDelta"),
          );
          expect(older.items.find((item) => item.kind === "script")).toEqual(script);
          if (after.length === 0) expect(older).toEqual(folded);
        },
      ),
      { numRuns: runs(1000) },
    );
  });
});
