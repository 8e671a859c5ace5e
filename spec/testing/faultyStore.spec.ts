/**
 * faultyStore: operations fail, conflict or answer late as the plan says; a
 * failed append writes nothing; heal() stops the faults; what the plan leaves
 * alone is the inner store's.
 */
import { AppendConflict, type NewEvent } from "elyra-assistant/log";
import {
  faultRates,
  faultyStore,
  memoryStore,
  type StoreFault,
  type StoreOp,
  StoreUnavailable,
  simulatedClock,
} from "elyra-assistant/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { numbered, storeContract } from "../fixtures/storeContract.ts";

const reset = (turn: number): NewEvent => ({ _tag: "Reset", at: turn, turn });
const events = (count: number, from = 0): NewEvent[] =>
  Array.from({ length: count }, (_, i) => reset(from + i));

/** Whether a promise has settled after the microtasks queued so far. */
const settledYet = async (promise: Promise<unknown>) => {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  for (let i = 0; i < 10; i++) await Promise.resolve();
  return settled;
};

// With no fault planned, or healed, it keeps the port's contract as its inner store does.
storeContract("faultyStore, no faults", () => ({ store: faultyStore(memoryStore(), {}) }), {
  durable: false,
});
storeContract(
  "faultyStore, healed",
  () => {
    const store = faultyStore(memoryStore(), () => ({ kind: "reject" }));
    store.heal();
    return { store };
  },
  { durable: false },
);

describe("faultyStore", () => {
  it("is the inner store where the plan has no fault", async () => {
    const inner = memoryStore();
    const store = faultyStore(inner, {});
    const written = await store.append("s", events(3), 0);
    expect(written).toEqual(numbered(events(3)));
    expect(await store.read("s")).toEqual(numbered(events(3)));
    expect(await store.read("s", 2)).toEqual(numbered(events(3)).slice(2));
    expect(await store.lastSeq("s")).toBe(3);
    await expect(store.append("s", events(1), 0)).rejects.toMatchObject({
      _tag: "AppendConflict",
      actualSeq: 3,
    });
    expect(store.durable).toBe(false);
    expect(faultyStore({ ...inner, durable: true }, {}).durable).toBe(true);
    await store.drop("s");
    expect(await inner.read("s")).toEqual([]);
    expect(store.injected).toEqual([]);
    expect(store.ops()).toBe(5);
  });

  it("a rejected append writes none of its events, and the same append goes through after", async () => {
    const inner = memoryStore();
    const store = faultyStore(inner, { append: [null, { kind: "reject" }] });
    await store.append("s", events(2), 0);
    const refused = store.append("s", events(3, 2), 2);
    await expect(refused).rejects.toBeInstanceOf(StoreUnavailable);
    await expect(refused).rejects.toMatchObject({ op: "append", stream: "s" });
    expect(await inner.read("s")).toEqual(numbered(events(2)));
    expect(await inner.lastSeq("s")).toBe(2);
    expect(await store.append("s", events(3, 2), 2)).toEqual(numbered(events(3, 2), 2));
    expect(await inner.read("s")).toEqual(numbered(events(5)));
  });

  it("rejects with the error the plan names", async () => {
    const boom = new Error("disk full");
    const store = faultyStore(memoryStore(), { append: [{ kind: "reject", error: boom }] });
    await expect(store.append("s", events(1), 0)).rejects.toBe(boom);
  });

  it("a conflicted append is an AppendConflict, as if another writer had got there first, and writes nothing", async () => {
    const inner = memoryStore();
    const store = faultyStore(inner, { append: [{ kind: "conflict" }] });
    const conflict = store.append("s", events(2), 0);
    await expect(conflict).rejects.toBeInstanceOf(AppendConflict);
    await expect(conflict).rejects.toMatchObject({ stream: "s", expectedSeq: 0, actualSeq: 1 });
    expect(await inner.read("s")).toEqual([]);
    expect(await store.append("s", events(2), 0)).toHaveLength(2);
  });

  it("fails reads and lastSeq; a conflict planned for them is a rejection", async () => {
    const inner = memoryStore();
    await inner.append("s", events(2), 0);
    const store = faultyStore(inner, {
      read: [{ kind: "reject" }, { kind: "conflict" }],
      lastSeq: [{ kind: "reject" }],
    });
    await expect(store.read("s")).rejects.toMatchObject({ _tag: "StoreUnavailable", op: "read" });
    await expect(store.read("s")).rejects.toBeInstanceOf(StoreUnavailable);
    await expect(store.lastSeq("s")).rejects.toMatchObject({ op: "lastSeq", stream: "s" });
    expect(await store.read("s")).toHaveLength(2);
    expect(await store.lastSeq("s")).toBe(2);
  });

  it("indexes a script by each kind's own count", async () => {
    const store = faultyStore(memoryStore(), {
      append: [null, { kind: "reject" }],
      read: [null, null, { kind: "reject" }],
    });
    await store.read("s");
    await store.append("s", events(1), 0);
    await store.lastSeq("s");
    await store.read("s");
    await expect(store.append("s", events(1), 1)).rejects.toBeInstanceOf(StoreUnavailable);
    await expect(store.read("s")).rejects.toBeInstanceOf(StoreUnavailable);
    expect(store.injected.map(({ op }) => [op.kind, op.n, op.nth])).toEqual([
      ["append", 4, 1],
      ["read", 5, 2],
    ]);
  });

  it("asks a plan function about each operation, with what it is", async () => {
    const asked: StoreOp[] = [];
    const store = faultyStore(memoryStore(), (op) => {
      asked.push(op);
      return op.kind === "append" && op.events === 2 ? { kind: "reject" } : undefined;
    });
    await store.append("a", events(1), 0);
    await expect(store.append("a", events(2), 1)).rejects.toBeInstanceOf(StoreUnavailable);
    await store.read("a", 1, 5);
    await store.lastSeq("b");
    expect(asked).toEqual([
      { kind: "append", stream: "a", expectedSeq: 0, events: 1, n: 0, nth: 0 },
      { kind: "append", stream: "a", expectedSeq: 1, events: 2, n: 1, nth: 1 },
      { kind: "read", stream: "a", fromSeq: 1, toSeq: 5, n: 2, nth: 0 },
      { kind: "lastSeq", stream: "b", n: 3, nth: 0 },
    ]);
  });

  it("delays on its clock: a delayed operation goes through late, a delayed rejection rejects late", async () => {
    const clock = simulatedClock();
    const inner = memoryStore();
    const store = faultyStore(
      inner,
      {
        append: [
          { kind: "delay", delayMs: 50 },
          { kind: "reject", delayMs: 20 },
        ],
      },
      { clock },
    );
    const late = store.append("s", events(1), 0);
    expect(await settledYet(late)).toBe(false);
    expect(await inner.read("s")).toEqual([]);
    clock.increment(49);
    expect(await settledYet(late)).toBe(false);
    clock.increment(1);
    expect(await late).toEqual(numbered(events(1)));

    const refused = store.append("s", events(1, 1), 1);
    expect(await settledYet(refused)).toBe(false);
    clock.increment(20);
    await expect(refused).rejects.toBeInstanceOf(StoreUnavailable);
    expect(await inner.lastSeq("s")).toBe(1);
  });

  it("heal() stops every fault from then on", async () => {
    const store = faultyStore(memoryStore(), () => ({ kind: "reject" }));
    await expect(store.read("s")).rejects.toBeInstanceOf(StoreUnavailable);
    expect(store.healed()).toBe(false);
    store.heal();
    expect(store.healed()).toBe(true);
    expect(await store.append("s", events(1), 0)).toHaveLength(1);
    expect(await store.read("s")).toHaveLength(1);
    expect(await store.lastSeq("s")).toBe(1);
    expect(store.injected).toHaveLength(1);
  });

  it("faultRates: none at rate 0, every one at rate 1, by the random numbers it is given", () => {
    const op = (kind: StoreOp["kind"]): StoreOp => ({ kind, stream: "s", n: 0, nth: 0 });
    const never = faultRates({}, () => 0);
    expect([never(op("read")), never(op("append")), never(op("lastSeq"))]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    const always = faultRates(
      { readFails: 1, lastSeqFails: 1, appendFails: 1, delays: 1, delayMs: 3 },
      () => 0.5,
    );
    expect(always(op("read"))).toEqual({ kind: "reject", delayMs: 3 });
    expect(always(op("append"))).toEqual({ kind: "reject", delayMs: 3 });
    const draws = [0.3, 0.9, 0.1, 0.3, 0.95, 0.9];
    const conflicts = faultRates(
      { appendFails: 0.2, appendConflicts: 0.2, delays: 0.5 },
      () => draws.shift() ?? 0,
    );
    expect(conflicts(op("append"))).toEqual({ kind: "conflict" });
    expect(conflicts(op("append"))).toEqual({ kind: "reject", delayMs: 1 });
    expect(conflicts(op("append"))).toBe(undefined);
  });

  it("all or none, for any script fast-check draws: the log holds exactly the appends that resolved", async () => {
    const fault = fc.oneof(
      fc.constant<StoreFault>({ kind: "reject" }),
      fc.constant<StoreFault>({ kind: "conflict" }),
      fc.constant<StoreFault>({ kind: "delay", delayMs: 0 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(fault), { maxLength: 10 }),
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 10 }),
        async (append, sizes) => {
          const inner = memoryStore();
          const store = faultyStore(inner, { append });
          const kept: NewEvent[] = [];
          for (const [i, size] of sizes.entries()) {
            const batch = events(size, i * 10);
            const at = kept.length;
            const outcome = await store.append("s", batch, at).then(
              (written) => ({ ok: true as const, written }),
              (error: unknown) => ({ ok: false as const, error }),
            );
            const planned = append[i] ?? null;
            expect(outcome.ok).toBe(planned === null || planned.kind === "delay");
            if (outcome.ok) {
              expect(outcome.written).toEqual(numbered(batch, at));
              kept.push(...batch);
            }
            expect(await inner.read("s")).toEqual(numbered(kept));
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
