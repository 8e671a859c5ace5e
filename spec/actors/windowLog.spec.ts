/** A window's log over a store that breaks the port's contract is told so, with a tagged error. */
import { type EventStore, memoryStore, StoreContractBroken } from "elyra-assistant";
import { simulatedClock } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import { windowLog } from "../../src/actors/windowLog.ts";

describe("windowLog", () => {
  it("a store whose append resolves with no event: the append rejects with StoreContractBroken", async () => {
    const inner = memoryStore();
    const store: EventStore = { ...inner, append: async () => [] };
    const failures: unknown[] = [];
    const log = windowLog(store, "conversation/w1", simulatedClock(0), (e) => failures.push(e));
    const appended = log.append({ _tag: "Reset", turn: 0 });
    await expect(appended).rejects.toThrow(StoreContractBroken);
    await expect(appended).rejects.toThrow(
      'EventStore: an append of 1 event(s) to "conversation/w1" resolved with 0: append must resolve with the events it wrote',
    );
    await log.idle();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(StoreContractBroken);
  });

  /** A memory store whose appends wait for `open()` while `held`, counting the events of each. */
  const gatedStore = (failAt?: number) => {
    const inner = memoryStore();
    const batches: number[] = [];
    let gate: Promise<void> = Promise.resolve();
    let open = () => {};
    const store: EventStore = {
      ...inner,
      append: async (stream, events, expectedSeq, writer) => {
        batches.push(events.length);
        await gate;
        if (batches.length === failAt) throw new Error("disk full");
        return inner.append(stream, events, expectedSeq, writer);
      },
    };
    const hold = () => {
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });
    };
    return { inner, store, batches, hold, open: () => open() };
  };
  const turns = (events: ReadonlyArray<{ readonly turn: number }>) => events.map((e) => e.turn);

  it("appends made before a write starts go in it; those made while it is in flight are written together by the next", async () => {
    const { inner, store, batches, hold, open } = gatedStore();
    const log = windowLog(store, "conversation/w1", simulatedClock(0), () => undefined);
    hold();
    const together = [0, 1].map((turn) => log.append({ _tag: "Reset", turn }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([2]);
    // In flight: these wait, then go as one.
    const behind = [2, 3, 4].map((turn) => log.append({ _tag: "Reset", turn }));
    open();
    const stored = await Promise.all([...together, ...behind]);
    expect(stored.map((e) => [e.seq, e.turn])).toEqual([
      [1, 0],
      [2, 1],
      [3, 2],
      [4, 3],
      [5, 4],
    ]);
    expect(batches).toEqual([2, 3]);
    expect(turns(await inner.read("conversation/w1"))).toEqual([0, 1, 2, 3, 4]);
    expect(log.lastSeq()).toBe(5);
  });

  it("a refused batch refuses each of its appends and every one queued after it, told once", async () => {
    const { inner, store, batches, hold, open } = gatedStore(2);
    const failures: unknown[] = [];
    const log = windowLog(store, "conversation/w1", simulatedClock(0), (e) => failures.push(e));
    hold();
    const first = log.append({ _tag: "Reset", turn: 0 });
    await new Promise((resolve) => setImmediate(resolve));
    const batch = [1, 2].map((turn) => log.append({ _tag: "Reset", turn }));
    open();
    await expect(first).resolves.toMatchObject({ seq: 1 });
    for (const one of batch) await expect(one).rejects.toThrow("disk full");
    await expect(log.append({ _tag: "Reset", turn: 3 })).rejects.toThrow("disk full");
    await log.idle();
    expect(failures).toHaveLength(1);
    expect(batches).toEqual([1, 2]);
    expect(turns(await inner.read("conversation/w1"))).toEqual([0]);
  });
});
