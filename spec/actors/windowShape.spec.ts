/**
 * What an idle window is made of: every window of a host answers its
 * operations with the same functions (the prototype's), and holds none of
 * its own, so that 10 000 idle windows cost their state and not 10 000
 * copies of each operation (the idleWindows bench measures the bytes).
 */
import { createHost } from "elyra-assistant";
import { fakeModel, memoryStore } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import { spyApp, type TestUser } from "../fixtures/spyCommands.ts";

const ada: TestUser = { name: "Ada", abilities: ["customers.*"] };

/** Every operation a window's users and its host call. */
const OPERATIONS = [
  "prompt",
  "confirm",
  "live",
  "select",
  "stop",
  "reset",
  "events$",
  "follow",
  "panel",
  "history",
  "usage",
  "state",
  "context",
  "failed",
  "lastSeq",
  "running",
  "settled",
  "close",
  "touch",
  "lastUsed",
  "busy",
  "setUser",
  "catchUp",
  "answer",
] as const;

describe("an idle window's shape", () => {
  it("two windows share every operation, and neither holds a function of its own", async () => {
    const host = createHost(spyApp(), { model: fakeModel().says("Hi."), store: memoryStore() });
    const a = host.window("a", { user: ada }) as unknown as Record<string, unknown>;
    const b = host.window("b", { user: ada }) as unknown as Record<string, unknown>;
    await (a as unknown as { prompt: (text: string) => Promise<unknown> }).prompt("hello");
    for (const name of OPERATIONS) {
      expect(typeof a[name], name).toBe("function");
      expect(a[name], name).toBe(b[name]);
    }
    const own = (w: object) =>
      Object.entries(Object.getOwnPropertyDescriptors(w))
        .filter(([, d]) => typeof d.value === "function")
        .map(([name]) => name);
    expect(own(a)).toEqual([]);
    expect(own(b)).toEqual([]);
    await host.close();
  });
});
