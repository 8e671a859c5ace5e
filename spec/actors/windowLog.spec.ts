/** A window's log over a store that breaks the port's contract is told so, with a tagged error. */
import { type EventStore, memoryStore, StoreContractBroken } from "elyra-assistant/log";
import { simulatedClock } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import { windowLog } from "../../src/actors/log/windowLog.ts";

describe("windowLog", () => {
  it("a store whose append resolves with no event: the append rejects with StoreContractBroken", async () => {
    const inner = memoryStore();
    const store: EventStore = { ...inner, append: async () => [] };
    const failures: unknown[] = [];
    const log = windowLog(store, "conversation/w1", simulatedClock(0), (e) => failures.push(e));
    const appended = log.append({ _tag: "Reset", turn: 0 });
    await expect(appended).rejects.toThrow(StoreContractBroken);
    await expect(appended).rejects.toThrow(
      'EventStore: an append of one event to "conversation/w1" resolved with none: append must resolve with the events it wrote',
    );
    await log.idle();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(StoreContractBroken);
  });

  it("a store whose append resolves with more events than it was given: StoreContractBroken too", async () => {
    const inner = memoryStore();
    const store: EventStore = {
      ...inner,
      append: async (stream, events, expectedSeq) => {
        const stored = await inner.append(stream, events, expectedSeq);
        return [...stored, ...stored];
      },
    };
    const log = windowLog(store, "conversation/w1", simulatedClock(0), () => undefined);
    await expect(log.append({ _tag: "Reset", turn: 0 })).rejects.toThrow(
      'EventStore: an append of one event to "conversation/w1" resolved with 2: append must resolve with the events it wrote',
    );
  });
});
