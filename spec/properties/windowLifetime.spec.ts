/**
 * A window's lifetime under any sequence of opens, streams, goodbyes and
 * time passing (simulated clock):
 * - a window with an event stream open is never closed by the sweep or by
 *   maxWindows: its stream ends only when its page says goodbye;
 * - past maxWindows, windows with nothing open are closed, least recently used
 *   first (when a window opens, when a stream ends, at each sweep), so no more
 *   than maxWindows stay open, or the streaming ones and the one just asked
 *   for (kept for the request that asked);
 * - after idleWindowMs (and a sweep) with nothing open, a window is closed:
 *   only the streaming ones stay.
 */
import { createHost } from "elyra-assistant";
import { fakeModel, memoryStore, simulatedClock } from "elyra-assistant/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { spyApp, type TestUser } from "../fixtures/spyCommands.ts";
import { runs } from "./runs.ts";

const ada: TestUser = { name: "Ada", abilities: ["customers.*"] };
const IDLE_MS = 1_000;
const MAX_WINDOWS = 3;
const IDS = ["a", "b", "c", "d", "e", "f"] as const;

type Step =
  | { readonly kind: "open"; readonly id: string }
  | { readonly kind: "stream"; readonly id: string }
  | { readonly kind: "unstream"; readonly id: string }
  | { readonly kind: "goodbye"; readonly id: string }
  | { readonly kind: "wait"; readonly ms: number };

const id = fc.constantFrom(...IDS);
const step: fc.Arbitrary<Step> = fc.oneof(
  id.map((id) => ({ kind: "open" as const, id })),
  id.map((id) => ({ kind: "stream" as const, id })),
  id.map((id) => ({ kind: "unstream" as const, id })),
  id.map((id) => ({ kind: "goodbye" as const, id })),
  fc.integer({ min: 1, max: 2_500 }).map((ms) => ({ kind: "wait" as const, ms })),
);

const flush = async () => {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe("a window's lifetime", () => {
  it("streaming windows are never closed but by goodbye; others go past maxWindows and after idleWindowMs", async () => {
    const app = spyApp();
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 14 }), async (steps) => {
        const clock = simulatedClock(0);
        const host = createHost(app, {
          model: fakeModel(),
          store: memoryStore(),
          clock,
          idleWindowMs: IDLE_MS,
          maxWindows: MAX_WINDOWS,
        });
        /** Open streams by window id: whether each ended, and whether a goodbye may end it. */
        const streams = new Map<string, { ended: boolean; goodbye: boolean; stop: () => void }>();
        const streaming = () => [...streams.values()].filter((s) => !s.ended).length;
        for (const s of steps) {
          if (s.kind === "open") await host.window(s.id, { user: ada }).settled();
          else if (s.kind === "stream" && !streams.has(s.id)) {
            const w = host.window(s.id, { user: ada });
            await w.settled();
            const state = { ended: false, goodbye: false, stop: () => {} };
            const subscription = w.events$().subscribe({ complete: () => (state.ended = true) });
            state.stop = () => subscription.unsubscribe();
            streams.set(s.id, state);
          } else if (s.kind === "unstream") {
            streams.get(s.id)?.stop();
            streams.delete(s.id);
          } else if (s.kind === "goodbye") {
            const state = streams.get(s.id);
            if (state !== undefined) state.goodbye = true;
            await host.closeWindow(s.id, { user: ada });
            streams.delete(s.id);
          } else if (s.kind === "wait") clock.increment(s.ms);
          await flush();
          for (const [id, state] of streams)
            expect(state.ended, `the stream of ${id} ended without a goodbye`).toBe(false);
          expect(host.openWindows()).toBeLessThanOrEqual(Math.max(MAX_WINDOWS, streaming() + 1));
          expect(host.openWindows()).toBeGreaterThanOrEqual(streaming());
        }
        // Time passes with nothing done: only the streaming windows stay.
        clock.increment(IDLE_MS);
        await flush();
        clock.increment(IDLE_MS);
        await flush();
        expect(host.openWindows()).toBe(streaming());
        for (const state of streams.values()) state.stop();
        await host.close();
      }),
      { numRuns: runs(1000) },
    );
  }, 120_000);
});
