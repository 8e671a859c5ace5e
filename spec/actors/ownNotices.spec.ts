/**
 * On a store without leases, the store tells each append to the host, and
 * most are the window's own, told before they resolve. A window takes note
 * of one only once its own appends in flight are stored, so its own appends
 * make no lease (about 750 B a window that took a turn, and a catch-up
 * queued per append); an append by someone else (a second host on the same
 * memory store) is still caught up with.
 */
import { createApp, createHost } from "elyra-assistant";
import { fakeModel, memoryStore } from "elyra-assistant/testing";
import { describe, expect, it, vi } from "vitest";

const made = vi.hoisted(() => ({ leases: 0 }));
vi.mock("../../src/actors/cluster/lease.ts", async (original) => {
  const actual = await original<typeof import("../../src/actors/cluster/lease.ts")>();
  return {
    ...actual,
    windowLease: (...args: Parameters<typeof actual.windowLease>) => {
      made.leases++;
      return actual.windowLease(...args);
    },
  };
});

const app = createApp({
  commands: [],
  userAbilities: () => [],
  assistant: { allow: [] },
});
const ada = { name: "Ada" };

describe("a window's own appends, told by a store without leases", () => {
  it("make no lease: a turn and its answer on the memory store", async () => {
    made.leases = 0;
    const host = createHost(app, {
      model: fakeModel().says("One.").says("Two."),
      store: memoryStore(),
    });
    try {
      const w = host.window("w", { user: ada });
      expect((await w.prompt("first"))._tag).toBe("Answered");
      expect((await w.prompt("second"))._tag).toBe("Answered");
      await w.settled();
      expect(w.lastSeq()).toBeGreaterThan(4);
      expect(made.leases).toBe(0);
    } finally {
      await host.close();
    }
  });

  it("an append by another host on the same store is still read", async () => {
    const store = memoryStore();
    const a = createHost(app, { model: fakeModel(), store });
    const b = createHost(app, { model: fakeModel().says("From b."), store });
    try {
      const seen = a.window("w", { user: ada });
      await seen.ready;
      const other = b.window("w", { user: ada });
      expect((await other.prompt("hello"))._tag).toBe("Answered");
      await other.settled();
      await vi.waitFor(() => expect(seen.lastSeq()).toBe(other.lastSeq()));
      expect(seen.history().messages.at(-1)).toEqual({ role: "assistant", content: "From b." });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
