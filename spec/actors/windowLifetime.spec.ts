/**
 * How long a window stays in memory: close ends its streams, an idle window
 * is closed after idleWindowMs, and past maxWindows the least recently used
 * idle ones go first. A window with a stream open is never closed by them.
 */
import { createHost, HostConfigError } from "elyra-assistant";
import type { LogEvent } from "elyra-assistant/log";
import { fakeModel, memoryStore, simulatedClock } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import { spyApp, type TestUser } from "../fixtures/spyCommands.ts";

const ada: TestUser = { name: "Ada", abilities: ["customers.*"] };
const appOf = () => spyApp();

describe("a window's lifetime", () => {
  it("close completes every open event stream, after what was stored", async () => {
    const host = createHost(appOf(), { model: fakeModel().says("Hi."), store: memoryStore() });
    const w = host.window("w", { user: ada });
    const seen: LogEvent[] = [];
    let completed = false;
    w.events$().subscribe({ next: (e) => seen.push(e), complete: () => (completed = true) });
    await w.prompt("hello");
    await w.close();
    expect(completed).toBe(true);
    expect(seen.at(-1)?._tag).toBe("Answered");
  });

  it("an idle window is closed after idleWindowMs; one with a stream open is kept", async () => {
    const clock = simulatedClock(0);
    const host = createHost(appOf(), { model: fakeModel(), clock, idleWindowMs: 1_000 });
    const idle = host.window("idle", { user: ada });
    const watched = host.window("watched", { user: ada });
    await idle.settled();
    await watched.settled();
    const stream = watched.events$().subscribe();
    clock.increment(1_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(host.openWindows()).toBe(1);
    expect(host.window("watched", { user: ada })).toBe(watched);
    stream.unsubscribe();
    await host.close();
  });

  it("past maxWindows the least recently used idle windows are closed first", async () => {
    const host = createHost(appOf(), { model: fakeModel(), maxWindows: 2 });
    const a = host.window("a", { user: ada });
    const b = host.window("b", { user: ada });
    await a.settled();
    await b.settled();
    host.window("a", { user: ada }); // a is now the most recently used
    const c = host.window("c", { user: ada });
    await c.settled();
    expect(host.openWindows()).toBe(2);
    expect(host.window("a", { user: ada })).toBe(a);
    expect(host.window("c", { user: ada })).toBe(c);
    await host.close();
  });

  it("refuses settings that cannot be used", () => {
    expect(() => createHost(appOf(), { model: fakeModel(), idleWindowMs: 0 })).toThrow(
      HostConfigError,
    );
    expect(() => createHost(appOf(), { model: fakeModel(), maxWindows: 1.5 })).toThrow(
      HostConfigError,
    );
  });
});
