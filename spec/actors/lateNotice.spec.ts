/**
 * A notice of another host's appends that reaches a host late, while that
 * host takes the window's lease, is not a takeover. Host 0 runs a turn and
 * gives the lease back; host 1 hears of it late (a NOTIFY held up, a busy
 * event loop): the catch-up the notice starts reads host 0's turn while
 * host 1 is taking the lease for a prompt of its own. Those events were
 * stored before host 1 took the lease, so host 1 still writes the window:
 * its turn runs and is answered. (Found by the multi-host property,
 * spec/properties/multiHost.spec.ts: the catch-up's "read" was taken as
 * proof of a takeover, the lease was forgotten, and the turn's next append
 * was refused as `LeaseLost` with no writer.)
 */
import { createApp, createHost } from "elyra-assistant";
import type { EventStore, StoreChange } from "elyra-assistant/log";
import { fakeModel, memoryStore, simulatedClock } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import { ada, closedAfterEach, STREAM } from "../fixtures/closedAfterEach.ts";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";

const closeAfterEach = closedAfterEach();

describe("a late notice of another host's appends, read while taking the lease", () => {
  it("is not a takeover: the turn it takes the lease for runs and is answered", async () => {
    const clock = simulatedClock(Date.parse("2026-12-02T09:00:00Z"));
    const shared = memoryStore({ shared: { clock, leaseMs: 5_000, heartbeatMs: 1_000 } });
    // Host 1's store: its news waits while held, and each read takes a round trip.
    let held: StoreChange[] | undefined = [];
    const listeners = new Set<(change: StoreChange) => void>();
    const changes = shared.changes;
    if (changes === undefined) throw new Error("a shared memory store tells its changes");
    changes((change) => {
      if (held !== undefined) held.push(change);
      else for (const listener of listeners) listener(change);
    });
    const late: EventStore = {
      ...shared,
      read: async (...args) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return shared.read(...args);
      },
      changes: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
    const app = createApp({
      commands: spyCommands().commands,
      userAbilities: (u) => (u as TestUser).abilities,
      assistant: { allow: ["customers.*"] },
    });
    const errors: unknown[] = [];
    const hosts = [
      createHost(app, {
        model: fakeModel().says("Hi from 0."),
        store: shared,
        clock,
        hostId: "h0",
      }),
      createHost(app, {
        model: fakeModel().says("Hi from 1."),
        store: late,
        clock,
        hostId: "h1",
        onError: (error) => errors.push(error),
      }),
    ];
    closeAfterEach(hosts);
    const [a, b] = hosts.map((host) => host.window("w", { user: ada }));
    if (a === undefined || b === undefined) throw new Error("2 hosts");
    await b.settled();
    expect(await a.prompt("hello")).toMatchObject({ _tag: "Answered", turn: 1 });
    await a.settled();
    // Host 0's news reaches host 1 now, as host 1 takes the lease for a prompt of its own.
    const waiting = held;
    held = undefined;
    for (const change of waiting) for (const listener of listeners) listener(change);
    const end = await b.prompt("and you?");
    expect(end).toMatchObject({ _tag: "Answered", turn: 2, text: "Hi from 1." });
    expect(errors).toEqual([]);
    const stored = await shared.read(STREAM);
    expect(stored.filter((e) => e._tag === "Answered").map((e) => e.turn)).toEqual([1, 2]);
  });
});
