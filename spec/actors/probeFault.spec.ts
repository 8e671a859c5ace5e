/**
 * A prompt routed to the window's writer probes, every lease time while it
 * waits for the turn's end, whether that writer died (taking the lease if
 * so). A probe the store refuses (a killed backend, a failover) is tried
 * again at the next lease time, and is never an unhandled rejection. (Found
 * by the multi-host property, spec/properties/multiHost.spec.ts, killing a
 * host's backends while its routed prompt waited.)
 */
import { memoryStore, simulatedClock } from "elyra-assistant/testing";
import { Subject } from "rxjs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { windowRemote } from "../../src/actors/cluster/remote.ts";
import type { Routing } from "../../src/actors/cluster/routing.ts";
import type { LogEvent } from "../../src/runtime/log/events.ts";

const LEASE_MS = 1_000;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on("unhandledRejection", onUnhandled);
});
afterEach(() => {
  process.off("unhandledRejection", onUnhandled);
});

describe("a routed prompt's probe of its writer", () => {
  it("refused by the store, is tried again at the next lease time, and rejects nothing unhandled", async () => {
    const clock = simulatedClock(0);
    const leases = memoryStore({ shared: { clock, leaseMs: LEASE_MS } }).leases;
    const routing: Routing = {
      hostId: "h1",
      leases,
      ask: async () => ({ _tag: "Started", turn: 1 }),
      join: async () => {},
      leave: async () => {},
    };
    const appended = new Subject<LogEvent>();
    let probes = 0;
    const remote = windowRemote({
      routing,
      clientId: "w",
      owner: "ada",
      log: { appended$: appended, status: () => ({ running: true, turn: 1 }) } as never,
      clock,
      probe: async () => {
        probes++;
        throw new Error("the database's backend was killed");
      },
    });
    const end = remote.prompt("h0", { text: "hi", route: null }, undefined);
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      clock.increment(LEASE_MS);
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(probes).toBe(3);
    appended.next({ _tag: "Answered", turn: 1, seq: 9, at: 0, text: "Hi." } as LogEvent);
    expect(await end).toMatchObject({ _tag: "Answered", turn: 1 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });
});
