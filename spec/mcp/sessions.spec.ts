/**
 * The MCP session table's caps, under random sequences of opens, calls,
 * DELETEs, time and expiry against a clock that moves only when told: the
 * sessions never exceed either cap, a session makes way only for its own
 * user and only when idle and least recently used, a new one is refused only
 * when nothing may make way, and expiry takes exactly the idle, stale ones.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Slot, sessionTable } from "../../src/adapters/mcp/sessions.ts";
import { runs } from "../properties/runs.ts";
import { manualClock } from "./loopback.ts";

type Op =
  | {
      readonly _tag: "open";
      readonly user: number;
      readonly outcome: "opened" | "opening" | "failed";
    }
  | { readonly _tag: "finishOpening"; readonly pick: number }
  | { readonly _tag: "startCall"; readonly pick: number }
  | { readonly _tag: "endCall"; readonly pick: number }
  | { readonly _tag: "touch"; readonly pick: number }
  | { readonly _tag: "remove"; readonly pick: number }
  | { readonly _tag: "advance"; readonly ms: number }
  | { readonly _tag: "expire" };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({
      _tag: fc.constant("open" as const),
      user: fc.nat(3),
      outcome: fc.constantFrom("opened" as const, "opening" as const, "failed" as const),
    }),
    weight: 4,
  },
  fc.record({ _tag: fc.constant("finishOpening" as const), pick: fc.nat() }),
  fc.record({ _tag: fc.constant("startCall" as const), pick: fc.nat() }),
  fc.record({ _tag: fc.constant("endCall" as const), pick: fc.nat() }),
  fc.record({ _tag: fc.constant("touch" as const), pick: fc.nat() }),
  fc.record({ _tag: fc.constant("remove" as const), pick: fc.nat() }),
  fc.record({ _tag: fc.constant("advance" as const), ms: fc.nat(60) }),
  fc.record({ _tag: fc.constant("expire" as const) }),
);

const limits = fc.record({
  maxSessions: fc.integer({ min: 1, max: 8 }),
  maxSessionsPerUser: fc.integer({ min: 1, max: 4 }),
  idleTimeoutMs: fc.integer({ min: 1, max: 100 }),
});

const idle = (slot: Slot<number, string>) => slot.id !== undefined && slot.calls === 0;

describe("sessionTable", () => {
  it("never holds more than its caps, and refuses or evicts only as it must", async () => {
    await fc.assert(
      fc.asyncProperty(limits, fc.array(op, { maxLength: 60 }), async (caps, ops) => {
        const clock = manualClock();
        const table = sessionTable<number, string>(caps, clock, (a, b) => a === b);
        const ends: Array<() => Promise<void>> = [];
        let ids = 0;
        const pickOf = (n: number) => {
          const all = table.all();
          return all.length === 0 ? undefined : all[n % all.length];
        };
        for (const step of ops) {
          switch (step._tag) {
            case "open": {
              const before = table.all();
              const mine = before.filter((s) => s.user === step.user);
              const lru = mine
                .filter(idle)
                .reduce<Slot<number, string> | undefined>(
                  (best, s) => (best === undefined || s.lastSeen < best.lastSeen ? s : best),
                  undefined,
                );
              const admission = table.admit(step.user, () => `value ${ids}`);
              const userFull = mine.length >= caps.maxSessionsPerUser;
              if (userFull && lru === undefined) {
                expect(admission._tag).toBe("UserFull");
              } else if (before.length - (userFull ? 1 : 0) >= caps.maxSessions) {
                expect(admission._tag).toBe("ServerFull");
              } else {
                expect(admission._tag).toBe("Admitted");
                if (admission._tag !== "Admitted") break;
                // Only the user's own least recently used idle session makes way, and only at its cap.
                expect(admission.evicted).toBe(userFull ? lru : undefined);
                if (step.outcome === "opened") table.opened(admission.slot, `s${ids++}`);
                if (step.outcome === "failed") table.remove(admission.slot);
              }
              if (admission._tag !== "Admitted") expect(table.all()).toEqual(before); // a refusal changes nothing
              break;
            }
            case "finishOpening": {
              const slot = table.all().find((s) => s.id === undefined);
              if (slot !== undefined) table.opened(slot, `s${ids++}`);
              break;
            }
            case "startCall": {
              const slot = pickOf(step.pick);
              if (slot === undefined || slot.id === undefined) break;
              let finish: (() => void) | undefined;
              const call = table.calling(
                slot,
                () =>
                  new Promise<void>((resolve) => {
                    finish = resolve;
                  }),
              );
              ends.push(async () => {
                finish?.();
                await call;
              });
              break;
            }
            case "endCall": {
              const end = ends.splice(step.pick % Math.max(1, ends.length), 1)[0];
              await end?.();
              break;
            }
            case "touch": {
              const slot = pickOf(step.pick);
              if (slot !== undefined) table.touch(slot);
              break;
            }
            case "remove": {
              const slot = pickOf(step.pick);
              if (slot !== undefined) table.remove(slot);
              break;
            }
            case "advance":
              clock.advance(step.ms);
              break;
            case "expire": {
              const now = clock.now();
              const due = table
                .all()
                .filter((s) => idle(s) && now - s.lastSeen >= caps.idleTimeoutMs);
              expect(table.expire()).toEqual(due);
              for (const slot of due) expect(table.all()).not.toContain(slot);
              break;
            }
          }
          const all = table.all();
          expect(all.length).toBeLessThanOrEqual(caps.maxSessions);
          expect(table.size()).toBe(all.length);
          for (const user of [0, 1, 2, 3])
            expect(all.filter((s) => s.user === user).length).toBeLessThanOrEqual(
              caps.maxSessionsPerUser,
            );
          for (const slot of all) {
            expect(slot.calls).toBeGreaterThanOrEqual(0);
            if (slot.id !== undefined) expect(table.find(slot.id)).toBe(slot);
          }
        }
        await Promise.all(ends.map((end) => end()));
      }),
      { numRuns: runs(1_000) },
    );
  });

  it("a session that was taken out can't be opened again or found", () => {
    const clock = manualClock();
    const table = sessionTable<number, string>(
      { maxSessions: 2, maxSessionsPerUser: 2, idleTimeoutMs: 10 },
      clock,
      (a, b) => a === b,
    );
    const admission = table.admit(1, () => "a");
    expect(admission._tag).toBe("Admitted");
    if (admission._tag !== "Admitted") return;
    table.remove(admission.slot);
    table.opened(admission.slot, "late");
    expect(table.find("late")).toBeUndefined();
    expect(table.size()).toBe(0);
  });
});
