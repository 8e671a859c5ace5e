/**
 * A window given up (its log could not be read again after a store fault,
 * as when a database's connections are killed under it) ends its event
 * streams, as a closed window does: a reader (a page's event stream) learns
 * it must open the window again, and reads on from its last seq in the
 * window the host opens anew, missing nothing. (Found by the multi-host
 * property, spec/properties/multiHost.spec.ts: a reader of the given-up
 * window was left open and silent while the conversation went on in the
 * window opened again.)
 */
import { createApp, createHost, type Host } from "elyra-assistant";
import type { EventStore, LogEvent } from "elyra-assistant/log";
import { fakeModel, memoryStore } from "elyra-assistant/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";

const ada: TestUser = { name: "Ada", abilities: ["customers.*"] };

let open: Host | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe("a window given up as unreadable", () => {
  it("ends its event streams; read on in the window opened again, they miss nothing", async () => {
    const shared = memoryStore({ shared: {} });
    const faults = { append: false, read: false };
    const fault = () => new Error("the database went away");
    const store: EventStore = {
      ...shared,
      append: async (...args) => {
        // From the refused append on, the store cannot be read either.
        if (faults.append) faults.read = true;
        if (faults.append) throw fault();
        return shared.append(...args);
      },
      read: async (...args) => {
        if (faults.read) throw fault();
        return shared.read(...args);
      },
    };
    const app = createApp({
      commands: spyCommands().commands,
      userAbilities: (u) => (u as TestUser).abilities,
      assistant: { allow: ["customers.*"] },
    });
    const host = createHost(app, {
      model: fakeModel().says("Hi.").says("Hello again.").says("Hello once more."),
      store,
      onError: () => {},
    });
    open = host;
    const first = host.window("w", { user: ada });
    const seen: LogEvent[] = [];
    let ended = false;
    first.events$().subscribe({
      next: (event) => void seen.push(event),
      error: () => {
        ended = true;
      },
      complete: () => {
        ended = true;
      },
    });
    expect(await first.prompt("hello")).toMatchObject({ _tag: "Answered", turn: 1 });
    // The store fails: the turn's first append, then the read that would rebuild the window.
    faults.append = true;
    void first.prompt("again").catch(() => undefined);
    await vi.waitFor(() => expect(first.failed()).toBeTruthy());
    await vi.waitFor(() => expect(ended).toBe(true));
    // The store is back: the window, opened again, reads its log; the reader reads on from there.
    faults.append = false;
    faults.read = false;
    const again = host.window("w", { user: ada });
    expect(again).not.toBe(first);
    again.events$(seen.at(-1)?.seq ?? 0).subscribe((event) => void seen.push(event));
    expect(await again.prompt("again")).toMatchObject({ _tag: "Answered", turn: 2 });
    const stored = await shared.read("conversation/w");
    await vi.waitFor(() => expect(seen).toEqual(stored));
  });
});
