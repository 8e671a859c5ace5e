import { memoryStore } from "elyra-assistant";
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
