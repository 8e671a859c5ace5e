/**
 * The panel says how a tool step ended in words, never by the audit's tag:
 * "declined", "no answer in 5 minutes", "you may not do this".
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { outcomeWords, waitWords } from "../../src/adapters/ui/outcomeWords.ts";
import { AgentCalled } from "../../src/runtime/calls/audit.ts";
import type { AuditOutcome } from "../../src/runtime/calls/outcome.ts";
import type { LogEvent } from "../../src/runtime/log/events.ts";
import { panelItems } from "../../src/runtime/log/panelItems.ts";

/** Every outcome the audit names, read from its schema: a new one is checked here at once. */
const TAGS: ReadonlyArray<AuditOutcome> = AgentCalled.fields.outcome.literals;

/** Every word the panel may show of a step that ended. */
const VOCABULARY = new Set([
  "failed",
  "you may not do this",
  "not confirmed",
  "declined",
  "no answer in time",
  "the turn ended before an answer",
  "too many at once; try again in a moment",
  "the request was not valid",
  "not available here",
  "not allowed from code",
  "stopped",
]);

describe("the words for a step's ending", () => {
  it("says declined, the wait, and a denial as a person would", () => {
    const unconfirmed = (answer: "declined" | "timedOut", waitedMs?: number) => ({
      ok: false,
      outcome: "notConfirmed",
      unconfirmed: { answer, ...(waitedMs === undefined ? {} : { waitedMs }) },
    });
    expect(outcomeWords(unconfirmed("declined"))).toBe("declined");
    expect(outcomeWords(unconfirmed("timedOut", 300_000))).toBe("no answer in 5 minutes");
    expect(outcomeWords(unconfirmed("timedOut", 60_000))).toBe("no answer in 1 minute");
    expect(outcomeWords(unconfirmed("timedOut", 30_000))).toBe("no answer in 30 seconds");
    expect(outcomeWords(unconfirmed("timedOut"))).toBe("no answer in time");
    expect(outcomeWords({ ok: false, outcome: "denied" })).toBe("you may not do this");
    expect(outcomeWords({ ok: true, outcome: "ok" })).toBeUndefined();
    expect(outcomeWords({})).toBeUndefined();
    expect(outcomeWords({ ok: false, outcome: "somethingNewer" })).toBe("failed");
    expect(waitWords(1)).toBe("1 second");
  });

  it("never shows an audit tag, whatever the outcome and the confirmation said", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.constantFrom(...TAGS), fc.string({ maxLength: 20 })),
        fc.option(
          fc.record({
            answer: fc.constantFrom("declined" as const, "timedOut" as const, "cancelled" as const),
            waitedMs: fc.option(fc.integer({ min: 0, max: 86_400_000 }), { nil: undefined }),
          }),
          { nil: undefined },
        ),
        (outcome, unconfirmed) => {
          const words = outcomeWords({
            ok: false,
            outcome,
            ...(unconfirmed === undefined
              ? {}
              : {
                  unconfirmed: {
                    answer: unconfirmed.answer,
                    ...(unconfirmed.waitedMs === undefined
                      ? {}
                      : { waitedMs: unconfirmed.waitedMs }),
                  },
                }),
          });
          expect(words).toBeDefined();
          const known =
            VOCABULARY.has(words as string) ||
            /^no answer in \d+ (second|minute)s?$/.test(words as string);
          expect(known, words).toBe(true);
          for (const tag of TAGS.filter((t) => t !== "failed" && t !== "stopped"))
            expect(words).not.toContain(tag);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it("the panel's fold gives a step the confirmation's answer and how long it waited", () => {
    const base = { turn: 1 } as const;
    const at = (ms: number) => ({ at: ms });
    let seq = 0;
    const events = (answer: "declined" | "timedOut", waitedMs: number): LogEvent[] =>
      [
        { _tag: "TurnStarted", ...base, ...at(0), text: "delete", route: null, note: null },
        {
          _tag: "ToolStarted",
          ...base,
          ...at(1),
          callId: "c1",
          tool: "customers_destroy",
          caller: { type: "direct" },
        },
        {
          _tag: "ConfirmRequested",
          ...base,
          ...at(10),
          confirmId: "k1",
          callId: "c1",
          tool: "customers_destroy",
          description: "Delete",
          args: { id: 1 },
        },
        { _tag: "ConfirmAnswered", ...base, ...at(10 + waitedMs), confirmId: "k1", answer },
        {
          _tag: "ToolFinished",
          ...base,
          ...at(11 + waitedMs),
          callId: "c1",
          ok: false,
          outcome: "notConfirmed",
        },
      ].map((e) => ({ ...e, seq: ++seq }) as LogEvent);
    const toolOf = (answer: "declined" | "timedOut", waitedMs: number) =>
      panelItems.fold(events(answer, waitedMs)).items.find((i) => i.kind === "tool");
    expect(toolOf("timedOut", 300_000)).toMatchObject({
      unconfirmed: { answer: "timedOut", waitedMs: 300_000 },
    });
    expect(outcomeWords(toolOf("timedOut", 300_000) as never)).toBe("no answer in 5 minutes");
    expect(outcomeWords(toolOf("declined", 4_000) as never)).toBe("declined");
  });
});
