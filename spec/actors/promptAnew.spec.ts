/**
 * A prompt that waits on a window whose log read then fails (a read begun
 * before the prompt, before the store came back) is tried once more on the
 * window opened anew, which reads the log again; a store that still fails
 * refuses it after that one more read, not in a loop. (Found by the HTTP
 * host's model-based property once appends made together changed which
 * operation a fault fell on: a prompt after the heal answered 500.)
 */
import { createHost } from "elyra-assistant";
import { fakeModel, faultyStore, memoryStore, StoreUnavailable } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import { spyApp, type TestUser } from "../fixtures/spyCommands.ts";

const ada: TestUser = { name: "Ada", abilities: ["customers.*"] };

describe("a prompt that waited on an unreadable log", () => {
  it("is tried on the window opened anew, and answered once the store reads again", async () => {
    // The first read (the window's recovery) is refused after a moment; none after it.
    const inner = memoryStore();
    const store = faultyStore(inner, { read: [{ kind: "reject", delayMs: 5 }] });
    const errors: unknown[] = [];
    const host = createHost(spyApp(), {
      model: fakeModel().says("Hello."),
      store,
      onError: (error) => errors.push(error),
    });
    const w = host.window("w", { user: ada });
    const end = await w.prompt("hi");
    expect(end._tag).toBe("Answered");
    expect(errors.some((e) => e instanceof StoreUnavailable)).toBe(true);
    expect(store.injected.map((i) => i.op.kind)).toEqual(["read"]);
    // The prompt was answered on the window opened anew: the host serves that one now.
    const again = host.window("w", { user: ada });
    expect(again).not.toBe(w);
    const stored = await inner.read("conversation/w");
    expect(stored.filter((e) => e._tag === "Answered")).toHaveLength(1);
    await host.close();
  });

  it("a store that still cannot read refuses the prompt after one more read, not in a loop", async () => {
    const store = faultyStore(memoryStore(), () => ({ kind: "reject" as const, delayMs: 1 }));
    const host = createHost(spyApp(), {
      model: fakeModel().says("Hello."),
      store,
      onError: () => undefined,
    });
    const w = host.window("w", { user: ada });
    await expect(w.prompt("hi")).rejects.toBeInstanceOf(StoreUnavailable);
    const reads = store.injected.filter((i) => i.op.kind === "read" || i.op.kind === "lastSeq");
    // Two windows, each one recovery: the first and the one opened anew.
    expect(reads.length).toBeGreaterThanOrEqual(2);
    expect(reads.length).toBeLessThanOrEqual(4);
    await host.close();
  });

  it("a prompt made once the window was given up is not tried anew: the host opens it anew", async () => {
    const store = faultyStore(memoryStore(), { read: [{ kind: "reject" }] });
    const host = createHost(spyApp(), {
      model: fakeModel().says("Hello."),
      store,
      onError: () => undefined,
    });
    const w = host.window("w", { user: ada });
    await w.ready;
    await expect(w.prompt("hi")).rejects.toBeInstanceOf(StoreUnavailable);
    const end = await host.window("w", { user: ada }).prompt("hi");
    expect(end._tag).toBe("Answered");
    await host.close();
  });
});
