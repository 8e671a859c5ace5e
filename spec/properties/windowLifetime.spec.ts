/**
 * A window's lifetime under any sequence of opens, streams, goodbyes and
 * time passing (simulated clock):
 * - a window with an event stream open is never closed by the sweep or by
 *   maxWindows: its stream ends only when its page says goodbye;
 * - windows with nothing open make room for a new one, least recently used
 *   first, so no more than maxWindows are ever open; when every open window
 *   streams, a new one is refused (HostFull), exactly then, and nothing opens;
 * - after idleWindowMs (and a sweep) with nothing open, a window is closed:
 *   only the streaming ones stay.
 */
import { createHost, HostFull } from "elyra-assistant";
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
        /** The window, or undefined when the host refused it: only when every open one streams. */
        const opening = (id: string) => {
          const full = streaming() >= MAX_WINDOWS;
          const before = host.openWindows();
          try {
            const w = host.window(id, { user: ada });
            // Full of streaming windows, only one of them is served.
            if (full) expect(streams.has(id), `${id} opened past a full host`).toBe(true);
            return w;
          } catch (error) {
            expect(error).toBeInstanceOf(HostFull);
            expect(full, `${id} refused though a window was idle`).toBe(true);
            expect(host.openWindows()).toBe(before);
            return undefined;
          }
        };
        for (const s of steps) {
          if (s.kind === "open") await opening(s.id)?.settled();
          else if (s.kind === "stream" && !streams.has(s.id)) {
            const w = opening(s.id);
            if (w === undefined) continue;
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
          expect(host.openWindows()).toBeLessThanOrEqual(MAX_WINDOWS);
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
