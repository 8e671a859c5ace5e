/**
 * The projections are folds: replaying a log in one go gives what applying its
 * events one by one gives, for any events at all, and the history sent to the
 * model always alternates user and assistant, whatever the log holds.
 */
import { Arbitrary } from "effect";
import { history, LogEvent, panelItems, status, usage } from "elyra-assistant/log";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runs, timeoutFor } from "./runs.ts";

const NUM_RUNS = 1000;

/** Random events of every type, numbered in order, turns drawn from a few so they collide. */
const log = fc
  .array(Arbitrary.make(LogEvent), { maxLength: 40 })
  .chain((events) =>
    fc
      .array(fc.integer({ min: 0, max: 3 }), { minLength: events.length, maxLength: events.length })
      .map((turns) =>
        events.map((event, i) => ({ ...event, seq: i + 1, turn: turns[i] ?? 0 }) as LogEvent),
      ),
  );

describe("projections", () => {
  it("fold(events) equals applying them one by one, for every projection", {
    timeout: timeoutFor(),
  }, () => {
    fc.assert(
      fc.property(log, (events) => {
        for (const projection of [history, usage, status, panelItems] as const) {
          const stepwise = events.reduce<unknown>(
            (state, event) => projection.apply(state as never, event),
            projection.initial,
          );
          expect(projection.fold(events)).toEqual(stepwise);
        }
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it("folding in two parts from the first part's state equals folding once", {
    timeout: timeoutFor(),
  }, () => {
    fc.assert(
      fc.property(log, fc.nat(), (events, cut) => {
        const at = events.length === 0 ? 0 : cut % events.length;
        for (const projection of [history, usage, status, panelItems] as const) {
          const first = projection.fold(events.slice(0, at));
          expect(projection.fold(events.slice(at), first as never)).toEqual(
            projection.fold(events),
          );
        }
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it("the history alternates user and assistant, text only, for any log", {
    timeout: timeoutFor(),
  }, () => {
    fc.assert(
      fc.property(log, (events) => {
        const { messages } = history.fold(events);
        messages.forEach((message, i) => {
          expect(message.role).toBe(i % 2 === 0 ? "user" : "assistant");
          expect(typeof message.content).toBe("string");
        });
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it("a text piece that arrives when no turn runs is dropped from the panel", () => {
    const at = 0;
    const events: LogEvent[] = [
      { _tag: "TurnStarted", seq: 1, at, turn: 1, text: "hi", route: null, note: null },
      { _tag: "TextDelta", seq: 2, at, turn: 1, step: 1, text: "Hel" },
      { _tag: "Stopped", seq: 3, at, turn: 1, partial: "Hel" },
      { _tag: "TextDelta", seq: 4, at, turn: 1, step: 1, text: "lo" },
    ];
    const { items } = panelItems.fold(events);
    expect(items).toEqual([
      { kind: "user", turn: 1, text: "hi" },
      { kind: "answer", turn: 1, step: 1, text: "Hel", streaming: false },
      { kind: "stopped", turn: 1 },
    ]);
    expect(history.fold(events).messages.at(-1)).toEqual({
      role: "assistant",
      content: "Hel\n\n(stopped by the user)",
    });
  });

  it("the final answer heals its own step only: text said before a tool step stays", () => {
    const at = 0;
    const events: LogEvent[] = [
      { _tag: "TurnStarted", seq: 1, at, turn: 1, text: "hi", route: null, note: null },
      { _tag: "StepStarted", seq: 2, at, turn: 1, step: 1 },
      { _tag: "TextDelta", seq: 3, at, turn: 1, step: 1, text: "Let me look." },
      { _tag: "StepStarted", seq: 4, at, turn: 1, step: 2 },
      { _tag: "Answered", seq: 5, at, turn: 1, text: "Claude declined to answer this." },
    ];
    expect(panelItems.fold(events).items.filter((i) => i.kind === "answer")).toEqual([
      { kind: "answer", turn: 1, step: 1, text: "Let me look.", streaming: false },
      {
        kind: "answer",
        turn: 1,
        step: 2,
        text: "Claude declined to answer this.",
        streaming: false,
      },
    ]);
    const missed: LogEvent[] = [
      ...events.slice(0, 4),
      { _tag: "TextDelta", seq: 5, at, turn: 1, step: 2, text: "Three are ov" },
      { _tag: "Answered", seq: 6, at, turn: 1, text: "Three are overdue." },
    ];
    expect(
      panelItems
        .fold(missed)
        .items.filter((i) => i.kind === "answer")
        .map((i) => (i as { text: string }).text),
    ).toEqual(["Let me look.", "Three are overdue."]);
  });
});
