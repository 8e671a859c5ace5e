/**
 * The coalescer under a simulated clock, for random pieces, steps, other
 * events, stops and pauses: the deltas of a step join to exactly its pieces;
 * no other event is told while text waits; a step's first piece is told at
 * once; and pieces alone are told at most once per 50 ms, each gathering
 * exactly when the rule says (a reference model of it).
 */
import { simulatedClock } from "elyra-assistant/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { InspectionEvent } from "xstate";
import { coalescer } from "../../src/actors/turn/coalescer.ts";
import { COALESCE_MS } from "../../src/machines/coalescerMachine.ts";
import { runs, timeoutFor } from "./runs.ts";

const NUM_RUNS = 2000;

type Action =
  | { readonly kind: "piece"; readonly step: number; readonly text: string }
  | { readonly kind: "other" }
  | { readonly kind: "advance"; readonly ms: number }
  | { readonly kind: "stop" };

const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("piece" as const),
      step: fc.integer({ min: 1, max: 3 }),
      text: fc.string({ maxLength: 6 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "other" as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("advance" as const),
      ms: fc.integer({ min: 0, max: 120 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "stop" as const }) },
);

type Told =
  | { readonly kind: "delta"; readonly step: number; readonly text: string; readonly at: number }
  | { readonly kind: "other"; readonly at: number };

/** Plays actions; "other" is logged the way the window logs any non-text event: flush, then append. */
const play = (actions: ReadonlyArray<Action>) => {
  const clock = simulatedClock(0);
  const told: Told[] = [];
  const c = coalescer(clock, (step, text) =>
    told.push({ kind: "delta", step, text, at: clock.now() }),
  );
  const pushed = new Map<number, string>();
  const waitingAtOther: boolean[] = [];
  /** At each other event: every piece pushed so far, and every delta told before it. */
  const atOther: Array<{ readonly pieces: string; readonly deltas: string }> = [];
  let pieces = "";
  for (const a of actions) {
    if (a.kind === "piece") {
      c.push(a.step, a.text);
      pieces += a.text;
      pushed.set(a.step, (pushed.get(a.step) ?? "") + a.text);
    } else if (a.kind === "other" || a.kind === "stop") {
      c.flush();
      waitingAtOther.push(c.waiting());
      const deltas = told.map((t) => (t.kind === "delta" ? t.text : "")).join("");
      atOther.push({ pieces, deltas });
      told.push({ kind: "other", at: clock.now() });
    } else clock.increment(a.ms);
  }
  c.flush();
  return { told, pushed, waitingAtOther, atOther };
};

describe("the coalescer (SimulatedClock)", () => {
  it("per step, the deltas join to exactly the pieces, in order", { timeout: timeoutFor() }, () => {
    fc.assert(
      fc.property(fc.array(action, { maxLength: 60 }), (actions) => {
        const { told, pushed } = play(actions);
        const byStep = new Map<number, string>();
        for (const t of told)
          if (t.kind === "delta") byStep.set(t.step, (byStep.get(t.step) ?? "") + t.text);
        for (const [step, text] of pushed)
          expect(byStep.get(step) ?? "", `step ${step}`).toBe(text);
        expect(told.every((t) => t.kind !== "delta" || t.text !== "")).toBe(true);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it("no other event is told while text waits: what was said before it is told before it", {
    timeout: timeoutFor(),
  }, () => {
    fc.assert(
      fc.property(fc.array(action, { maxLength: 60 }), (actions) => {
        const { waitingAtOther, atOther } = play(actions);
        expect(waitingAtOther.every((w) => !w)).toBe(true);
        for (const { pieces, deltas } of atOther) expect(deltas).toBe(pieces);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it("pieces alone are told at once when 50 ms have passed since the last delta, else 50 ms after it", {
    timeout: timeoutFor(),
  }, () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({
              kind: fc.constant("piece" as const),
              step: fc.constant(1),
              text: fc.string({ minLength: 1, maxLength: 4 }),
            }),
            fc.record({
              kind: fc.constant("advance" as const),
              ms: fc.integer({ min: 0, max: 30 }),
            }),
          ),
          { maxLength: 200 },
        ),
        (actions) => {
          const clock = simulatedClock(0);
          const deltas: number[] = [];
          const firstWaiting: number[] = [];
          const c = coalescer(clock, () => deltas.push(clock.now()));
          for (const a of actions) {
            if (a.kind === "piece") {
              if (!c.waiting()) firstWaiting.push(clock.now());
              c.push(1, a.text);
            } else for (let k = 0; k < a.ms; k++) clock.increment(1);
          }
          // The last run of pieces, told by its timer.
          for (let k = 0; k < COALESCE_MS; k++) clock.increment(1);
          for (let i = 1; i < deltas.length; i++)
            expect((deltas[i] as number) - (deltas[i - 1] as number)).toBeGreaterThanOrEqual(
              COALESCE_MS,
            );
          // The reference model: each run of waiting pieces is told when it began, or 50 ms after
          // the delta before it, whichever is later; the first at once.
          expect(deltas).toHaveLength(firstWaiting.length);
          let last = Number.NEGATIVE_INFINITY;
          for (const [i, at] of deltas.entries()) {
            const due = Math.max(firstWaiting[i] as number, last + COALESCE_MS);
            expect(at).toBe(due);
            last = at;
          }
        },
      ),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it("10 s of text at 1 000 pieces a second costs the machine its start and its end, not an event per gathering", () => {
    const clock = simulatedClock(0);
    const events: string[] = [];
    const deltas: number[] = [];
    const c = coalescer(
      clock,
      () => deltas.push(clock.now()),
      (inspection: InspectionEvent) => {
        if (
          inspection.type === "@xstate.event" &&
          (inspection.actorRef as { id?: string }).id === "coalescer"
        )
          events.push(inspection.event.type);
      },
    );
    for (let i = 0; i < 10_000; i++) {
      c.push(1, "x");
      clock.increment(1);
    }
    c.release();
    expect(deltas.length).toBeGreaterThanOrEqual(190);
    expect(events.filter((type) => !type.startsWith("xstate."))).toEqual(["TEXT", "QUIET"]);
  });

  it("a gathering whose timer is held up (the event loop busy reading) is told by the next piece after its 50 ms", () => {
    let now = 0;
    const timers: Array<() => void> = [];
    // A clock whose timers do not run until told: the reads of a busy process come first.
    const starved = {
      now: () => now,
      setTimeout: (fn: () => void) => timers.push(fn),
      clearTimeout: () => undefined,
    };
    const told: Array<{ text: string; at: number }> = [];
    const c = coalescer(starved, (_step, text) => told.push({ text, at: now }));
    c.push(1, "a");
    expect(told).toEqual([{ text: "a", at: 0 }]);
    now = 30;
    c.push(1, "b");
    now = 40;
    c.push(1, "c");
    expect(told).toEqual([{ text: "a", at: 0 }]);
    now = 50;
    c.push(1, "d");
    expect(told).toEqual([
      { text: "a", at: 0 },
      { text: "bcd", at: 50 },
    ]);
    // The late timer, when it runs, tells nothing twice.
    for (const fire of timers.splice(0)) fire();
    expect(told.map((t) => t.text)).toEqual(["a", "bcd"]);
    now = 60;
    c.push(1, "e");
    expect(c.waiting()).toBe(true);
    c.release();
    expect(told.map((t) => t.text)).toEqual(["a", "bcd", "e"]);
  });

  it("a step's first piece is told at once, and so is the first piece of the next turn", {
    timeout: timeoutFor(),
  }, () => {
    fc.assert(
      fc.property(fc.array(action, { maxLength: 60 }), fc.boolean(), (actions, newTurn) => {
        const clock = simulatedClock(0);
        const told: Array<{ step: number; text: string; at: number }> = [];
        const c = coalescer(clock, (step, text) => told.push({ step, text, at: clock.now() }));
        const firsts: Array<{ step: number; at: number; index: number }> = [];
        let lastStep: number | undefined;
        const piece = (step: number, text: string) => {
          if (text !== "" && step !== lastStep) {
            firsts.push({ step, at: clock.now(), index: told.length });
            lastStep = step;
          }
          c.push(step, text);
        };
        for (const a of actions) {
          if (a.kind === "piece") piece(a.step, a.text);
          else if (a.kind === "advance") clock.increment(a.ms);
          else if (a.kind === "stop" && newTurn) {
            // The turn ends: the next one's steps may take the same numbers again.
            c.release();
            lastStep = undefined;
          } else c.flush();
        }
        for (const f of firsts) {
          // What the step before it left waiting may be told first, just before it.
          const own = told.slice(f.index).find((t) => t.step === f.step);
          expect(own?.at, `step ${f.step}`).toBe(f.at);
        }
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it("1 000 pieces a second for 10 s: at most 21 deltas a second, none later than 50 ms", () => {
    for (const perSecond of [1_000, 10_000]) {
      const clock = simulatedClock(0);
      const deltas: number[] = [];
      const c = coalescer(clock, () => deltas.push(clock.now()));
      const gapMs = 1000 / perSecond;
      let waitingSince = -1;
      let worst = 0;
      for (let i = 0; i < perSecond * 10; i++) {
        if (!c.waiting()) waitingSince = clock.now();
        c.push(1, "x");
        const before = deltas.length;
        clock.increment(gapMs);
        if (deltas.length > before)
          worst = Math.max(worst, (deltas.at(-1) as number) - waitingSince);
      }
      expect(deltas.length / 10).toBeLessThanOrEqual(21);
      expect(worst).toBeLessThanOrEqual(COALESCE_MS + gapMs);
    }
  });
});
