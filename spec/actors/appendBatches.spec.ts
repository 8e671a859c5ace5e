/**
 * A window's appends made while the one before them is in flight are stored
 * together, in one call to the store (one round trip and one notification on
 * a shared store): each append still resolves with its own event as stored,
 * in the order made; a refusal refuses the whole batch and is told once; a
 * catch-up queued between two appends keeps them apart, so nothing is stored
 * ahead of a read queued before it.
 */
import { type EventStore, type LogEvent, memoryStore } from "elyra-assistant/log";
import { simulatedClock } from "elyra-assistant/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { APPEND_BATCH } from "../../src/actors/log/appendBatch.ts";
import { windowLog } from "../../src/actors/log/windowLog.ts";
import { runs } from "../properties/runs.ts";

const STREAM = "conversation/w1";
const started = { _tag: "TurnStarted", turn: 1, text: "hi", route: null, note: null } as const;

/** A memory store whose appends wait until `release` is called, counting the calls. */
const heldStore = () => {
  const inner = memoryStore();
  const calls: string[][] = [];
  let releases: Array<() => void> = [];
  const store: EventStore = {
    ...inner,
    append: async (stream, events, expectedSeq, writer) => {
      calls.push(events.map((e) => e._tag));
      await new Promise<void>((resolve) => releases.push(resolve));
      return inner.append(stream, events, expectedSeq, writer);
    },
  };
  const release = () => {
    const waiting = releases;
    releases = [];
    for (const resolve of waiting) resolve();
  };
  return { store, inner, calls, release };
};

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("a window's appends in batches", () => {
  it("appends made while one is in flight are stored in one call, each resolved with its own event", async () => {
    const { store, calls, release } = heldStore();
    const log = windowLog(store, STREAM, simulatedClock(0), () => undefined);
    const first = log.append(started);
    await flush();
    // The first is in flight: these three wait, and go together.
    const second = log.append({ _tag: "StepStarted", turn: 1, step: 1 });
    const third = log.append({ _tag: "TextDelta", turn: 1, step: 1, text: "Hello" });
    const fourth = log.append({ _tag: "Answered", turn: 1, text: "Hello" });
    release();
    await flush();
    release();
    const stored = await Promise.all([first, second, third, fourth]);
    expect(calls).toEqual([["TurnStarted"], ["StepStarted", "TextDelta", "Answered"]]);
    expect(stored.map((e) => [e.seq, e._tag])).toEqual([
      [1, "TurnStarted"],
      [2, "StepStarted"],
      [3, "TextDelta"],
      [4, "Answered"],
    ]);
  });

  it("a refused batch refuses every event in it, and the store's refusal is told once", async () => {
    const inner = memoryStore();
    let calls = 0;
    const store: EventStore = {
      ...inner,
      append: async () => {
        calls++;
        throw new Error("the disk is full");
      },
    };
    const failures: unknown[] = [];
    const log = windowLog(store, STREAM, simulatedClock(0), (e) => failures.push(e));
    const all = [log.append(started), log.append({ _tag: "StepStarted", turn: 1, step: 1 })];
    const outcomes = await Promise.allSettled(all);
    await log.idle();
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
    expect(calls).toBe(1);
    expect(failures).toHaveLength(1);
    expect(await inner.read(STREAM)).toEqual([]);
  });

  it("an append made after a catch-up was queued is not stored ahead of it", async () => {
    const { store, inner, calls, release } = heldStore();
    const log = windowLog(store, STREAM, simulatedClock(0), () => undefined);
    await log.reload();
    const first = log.append(started);
    await flush();
    const second = log.append({ _tag: "StepStarted", turn: 1, step: 1 });
    const read = log.catchUp(undefined, "ada");
    const third = log.append({ _tag: "Answered", turn: 1, text: "Hello" });
    for (let i = 0; i < 4; i++) {
      release();
      await flush();
    }
    await Promise.all([first, second, read, third]);
    expect(calls).toEqual([["TurnStarted"], ["StepStarted"], ["Answered"]]);
    expect((await inner.read(STREAM)).map((e) => e._tag)).toEqual([
      "TurnStarted",
      "StepStarted",
      "Answered",
    ]);
  });

  it(`no call to the store holds more than ${APPEND_BATCH} events`, async () => {
    const { store, calls, release } = heldStore();
    const log = windowLog(store, STREAM, simulatedClock(0), () => undefined);
    const all: Promise<LogEvent>[] = [log.append(started)];
    await flush();
    for (let i = 0; i < APPEND_BATCH + 10; i++)
      all.push(log.append({ _tag: "TextDelta", turn: 1, step: 1, text: `${i}` }));
    for (let i = 0; i < 4; i++) {
      release();
      await flush();
    }
    const stored = await Promise.all(all);
    expect(calls.map((c) => c.length)).toEqual([1, APPEND_BATCH, 10]);
    expect(stored.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
  });

  it("property: whatever the store's pace, the log is the appends in the order made, each resolved with its own", async () => {
    // Each step: append n events at once, then let the store finish k of its calls.
    const steps = fc.array(fc.record({ n: fc.integer({ min: 0, max: 4 }), k: fc.nat(2) }), {
      minLength: 1,
      maxLength: 12,
    });
    await fc.assert(
      fc.asyncProperty(steps, async (plan) => {
        const { store, inner, calls, release } = heldStore();
        const log = windowLog(store, STREAM, simulatedClock(0), () => undefined);
        const made: Array<{ text: string; stored: Promise<LogEvent> }> = [];
        for (const { n, k } of plan) {
          for (let i = 0; i < n; i++) {
            const text = `${made.length}`;
            made.push({ text, stored: log.append({ _tag: "TextDelta", turn: 1, step: 1, text }) });
          }
          for (let i = 0; i < k; i++) {
            release();
            await flush();
          }
        }
        // Every call finished: there are at most as many calls as events.
        for (let i = 0; i <= made.length; i++) {
          release();
          await flush();
        }
        const stored = await Promise.all(made.map((m) => m.stored));
        const texts = (e: LogEvent) => (e._tag === "TextDelta" ? e.text : e._tag);
        expect(stored.map(texts)).toEqual(made.map((m) => m.text));
        expect(stored.map((e) => e.seq)).toEqual(made.map((_, i) => i + 1));
        expect((await inner.read(STREAM)).map(texts)).toEqual(made.map((m) => m.text));
        expect(calls.every((c) => c.length >= 1 && c.length <= APPEND_BATCH)).toBe(true);
      }),
      { numRuns: runs(1_000) },
    );
  });
});
