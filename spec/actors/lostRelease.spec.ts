/**
 * A host whose giving back of a window's lease fails (its backend killed as
 * it sent it, a failover) still holds the lease in the store, live: it must
 * still act as the window's writer when another host asks it, and give the
 * lease back after, or the window is unusable from every other host (each
 * asks it, is told "not the holder", and gives up: "did not answer"). Found
 * by the multi-host property (spec/properties/multiHost.spec.ts), about once
 * in 600 runs.
 */
import { createApp, createHost } from "elyra-assistant";
import type { EventStore } from "elyra-assistant/log";
import { fakeModel, memoryStore, simulatedClock } from "elyra-assistant/testing";
import { describe, expect, it, vi } from "vitest";
import { ada, closedAfterEach, STREAM } from "../fixtures/closedAfterEach.ts";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";

const closeAfterEach = closedAfterEach();

describe("a lease whose giving back failed", () => {
  it("its host still writes the window for the others, and gives it back after", async () => {
    const clock = simulatedClock(Date.parse("2026-12-02T09:00:00Z"));
    const shared = memoryStore({ shared: { clock, leaseMs: 5_000, heartbeatMs: 1_000 } });
    let failReleases = 1;
    const h0: EventStore = {
      ...shared,
      leases: {
        ...shared.leases,
        release: async (stream, writer) => {
          if (failReleases > 0) {
            failReleases--;
            throw new Error("terminating connection due to administrator command");
          }
          return shared.leases.release(stream, writer);
        },
      },
    };
    const app = createApp({
      commands: spyCommands().commands,
      userAbilities: (u) => (u as TestUser).abilities,
      assistant: { allow: ["customers.*"] },
    });
    const model = fakeModel().says("First.").says("Second.");
    const hosts = [h0, shared].map((store, i) =>
      createHost(app, { model, store, clock, hostId: `h${i}`, onError: () => undefined }),
    );
    closeAfterEach(hosts);
    const [w0, w1] = hosts.map((host) => host.window("w", { user: ada }));
    if (w0 === undefined || w1 === undefined) throw new Error("2 hosts");
    expect(await w0.prompt("one")).toMatchObject({ _tag: "Answered", turn: 1 });
    await w0.settled();
    // The giving back failed: the store still has host 0 as the holder, alive.
    await vi.waitFor(() => expect(failReleases).toBe(0));
    expect(shared.leases.holderOf(STREAM)).toBe("h0");
    // Host 1 asks host 0, which writes the turn; then the lease is given back.
    expect(await w1.prompt("two")).toMatchObject({ _tag: "Answered", turn: 2 });
    await vi.waitFor(() => expect(shared.leases.holderOf(STREAM)).toBeUndefined());
    const tags = (await shared.read(STREAM)).map((e) => e._tag);
    expect(tags.filter((t) => t === "Answered")).toHaveLength(2);
  });
});
