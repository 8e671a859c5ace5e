/**
 * Where a reconnecting client resumes, and what a feed gives it:
 * - `resume` never sends from a point the log does not have: a point past its
 *   end or of another epoch starts over from 0; a point the log gave out
 *   resumes exactly after it; ids round-trip.
 * - a window log's feed, pulled at any pace while events are appended, gives
 *   every event after its start exactly once and in order, reading the stored
 *   part a page at a time.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { windowLog } from "../../src/actors/log/windowLog.ts";
import type { EventStore } from "../../src/runtime/log/eventStore.ts";
import { memoryStore } from "../../src/runtime/log/memoryStore.ts";
import { eventIdOf, resume, resumePointOf } from "../../src/runtime/log/resumePoint.ts";
import { simulatedClock } from "../../src/testing/simulatedClock.ts";
import { runs } from "./runs.ts";

const epoch = fc.stringMatching(/^[0-9a-z]{1,16}$/);
const seq = fc.integer({ min: 0, max: 10 ** 15 - 1 });

describe("resume", () => {
  it("ids round-trip, and a point is resumed after exactly when the log has it", () => {
    fc.assert(
      fc.property(
        seq,
        fc.option(epoch, { nil: undefined }),
        fc.nat({ max: 10 ** 15 - 1 }),
        fc.option(epoch, { nil: undefined }),
        (pointSeq, pointEpoch, lastSeq, logEpoch) => {
          const id = eventIdOf(pointSeq, pointEpoch);
          const point = resumePointOf(id);
          expect(point).toEqual(
            pointEpoch === undefined ? { seq: pointSeq } : { seq: pointSeq, epoch: pointEpoch },
          );
          const { fromSeq, startOver } = resume(point, { lastSeq, epoch: logEpoch });
          const inLog =
            pointSeq <= lastSeq &&
            (pointEpoch === undefined || logEpoch === undefined || pointEpoch === logEpoch);
          if (pointSeq === 0 || inLog) {
            expect(startOver).toBe(false);
            expect(fromSeq).toBe(pointSeq);
          } else {
            expect(startOver).toBe(true);
            expect(fromSeq).toBe(0);
          }
          expect(fromSeq).toBeLessThanOrEqual(lastSeq);
        },
      ),
      { numRuns: runs(1000) },
    );
  });

  it("anything that is not an id names no point", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const point = resumePointOf(text);
        if (point !== undefined)
          expect(eventIdOf(point.seq, point.epoch)).toBe(text.replace(/^0+(?=\d)/, ""));
      }),
      { numRuns: runs(1000) },
    );
  });
});

describe("a window log's feed", () => {
  it("gives each event after its start once, in order, at any pace, reading pages of the store", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 700 }),
        fc.nat({ max: 800 }),
        fc.array(fc.oneof(fc.constant("pull" as const), fc.nat({ max: 40 })), { maxLength: 30 }),
        async (stored, startAt, steps) => {
          const inner = memoryStore();
          let largestRead = 0;
          const store: EventStore = {
            ...inner,
            read: async (stream, fromSeq, toSeq) => {
              const events = await inner.read(stream, fromSeq, toSeq);
              largestRead = Math.max(largestRead, events.length);
              return events;
            },
          };
          const log = windowLog(store, "w", simulatedClock(0), () => {});
          const add = (n: number) =>
            Promise.all(
              Array.from({ length: n }, (_, i) =>
                log.append({ _tag: "SelectionChanged", turn: 0, kind: "k", ids: [i], route: null }),
              ),
            );
          await add(stored);
          const fromSeq = Math.min(startAt, stored);
          const feed = log.feed(fromSeq, 10_000);
          const got: number[] = [];
          let appended = stored;
          for (const step of steps) {
            if (step === "pull") {
              if (got.length + fromSeq < appended)
                got.push(...((await feed.next()) ?? []).map((e) => e.seq));
            } else {
              await add(step);
              appended += step;
            }
          }
          while (got.length + fromSeq < appended)
            got.push(...((await feed.next()) ?? []).map((e) => e.seq));
          feed.cancel();
          expect(await feed.next()).toBeUndefined();
          expect(got).toEqual(
            Array.from({ length: appended - fromSeq }, (_, i) => fromSeq + i + 1),
          );
          expect(largestRead).toBeLessThanOrEqual(256);
        },
      ),
      { numRuns: runs(1000) },
    );
  }, 60_000);
});
