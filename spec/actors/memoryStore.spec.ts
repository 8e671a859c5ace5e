import { memoryStore, type StoreChange } from "elyra-assistant/log";
import { describe, expect, it } from "vitest";
import { deltas, storeContract } from "../fixtures/storeContract.ts";

storeContract("memoryStore", () => ({ store: memoryStore() }), { durable: false });

describe("memoryStore", () => {
  it("keeps each store's streams to itself", async () => {
    const a = memoryStore();
    const b = memoryStore();
    await a.append("w1", deltas(2), 0);
    expect(await b.lastSeq("w1")).toBe(0);
    expect(await b.append("w1", deltas(1), 0)).toHaveLength(1);
  });

  it("what append gave back is not changed by a later append", async () => {
    const store = memoryStore();
    const first = await store.append("w1", deltas(1), 0);
    await store.append("w1", deltas(2), 1);
    expect(first).toHaveLength(1);
  });

  it("a read is a copy: a later append does not change it", async () => {
    const store = memoryStore();
    await store.append("w1", deltas(1), 0);
    const read = await store.read("w1");
    await store.append("w1", deltas(1), 1);
    expect(read).toHaveLength(1);
  });
});

describe("memoryStore changes", () => {
  it("tells each append's stream and last seq, in order, and nothing for a conflict", async () => {
    const store = memoryStore();
    const seen: StoreChange[] = [];
    const stop = store.changes?.((change) => seen.push(change));
    await store.append("w1", deltas(2), 0);
    await store.append("w2", deltas(1), 0);
    await store.append("w1", deltas(3), 2);
    await store.append("w1", deltas(1), 0).catch(() => {});
    await store.append("w1", [], 5);
    expect(seen).toEqual([
      { _tag: "Appended", stream: "w1", seq: 2 },
      { _tag: "Appended", stream: "w2", seq: 1 },
      { _tag: "Appended", stream: "w1", seq: 5 },
    ]);
    stop?.();
    await store.append("w1", deltas(1), 5);
    expect(seen).toHaveLength(3);
  });

  it("a listener that throws does not stop the others, nor the append", async () => {
    const store = memoryStore();
    const seen: StoreChange[] = [];
    store.changes?.(() => {
      throw new Error("boom");
    });
    store.changes?.((change) => seen.push(change));
    expect(await store.append("w1", deltas(1), 0)).toHaveLength(1);
    expect(seen).toEqual([{ _tag: "Appended", stream: "w1", seq: 1 }]);
  });

  it("one listener subscribed twice is told twice, and each unsubscribe takes one", async () => {
    const store = memoryStore();
    const seen: StoreChange[] = [];
    const listener = (change: StoreChange) => seen.push(change);
    const first = store.changes?.(listener);
    store.changes?.(listener);
    await store.append("w1", deltas(1), 0);
    first?.();
    first?.();
    await store.append("w1", deltas(1), 1);
    expect(seen.map((c) => (c._tag === "Appended" ? c.seq : 0))).toEqual([1, 1, 2]);
  });
});
