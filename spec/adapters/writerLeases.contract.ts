/**
 * The WriterLeases contract (decision (aj)), run against the memory twin
 * (spec/actors/memoryLeases.spec.ts) and PostgreSQL
 * (spec/adapters/postgresLeases.spec.ts): taking and giving back a stream's
 * lease, a holder whose heartbeat lapsed taken over with a greater token and
 * fenced off the log, a joined host kept alive by its heartbeat, `leave`,
 * and messages between hosts.
 */
import { describe, expect, it } from "vitest";
import type { EventStore } from "../../src/runtime/log/eventStore.ts";
import type { Writer, WriterLeases } from "../../src/runtime/log/writerLeases.ts";
import { deltas, numbered } from "../fixtures/storeContract.ts";

/** What one test of the contract gets: a fresh store and its leases. */
export interface LeasesFixture {
  readonly store: EventStore;
  readonly leases: WriterLeases;
  /** Makes `holder`'s leases lapse, as if its process were killed (no heartbeat, no messages). */
  readonly expire: (holder: string) => Promise<void>;
  /** Lets `ms` pass: the clock of the heartbeats (simulated, in heartbeat-sized steps, or real). */
  readonly pass: (ms: number) => Promise<void>;
  readonly close: () => Promise<void>;
}

/** Polls `condition` every 20 ms until it holds; fails after `timeoutMs`. */
export const until = async (
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 3_000,
  what = "the condition",
): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** Real time, for what must NOT happen (a message delivered twice or to the wrong host). */
export const settle = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** The rejection of `promise` (a resolution fails the test). */
export const rejectionOf = async (promise: Promise<unknown>): Promise<{ _tag?: string }> =>
  promise.then(
    () => expect.fail("it resolved; expected a rejection"),
    (error: unknown) => error as { _tag?: string },
  );

/** The writer of a taking that must be `Taken`. */
export const takenBy = async (
  leases: WriterLeases,
  stream: string,
  holder: string,
  tookOver?: boolean,
): Promise<Writer> => {
  const taking = await leases.acquire(stream, holder);
  if (taking._tag !== "Taken") return expect.fail(`${holder} got ${JSON.stringify(taking)}`);
  if (tookOver !== undefined) expect(taking.tookOver).toBe(tookOver);
  return { holder, token: taking.token };
};

const ignore = () => {};

export const writerLeasesContract = (name: string, make: () => Promise<LeasesFixture>) => {
  describe(`${name}: the WriterLeases contract`, () => {
    /** Runs `body` on a fresh fixture, closed after, whatever happens. */
    const withLeases = (body: (f: LeasesFixture) => Promise<void>) => async () => {
      const f = await make();
      try {
        await body(f);
      } finally {
        await f.close();
      }
    };

    it(
      "a free stream is Taken (tookOver false); its holder again gets the same token; another live host gets Held naming the holder",
      withLeases(async ({ leases }) => {
        await leases.join("a", ignore);
        await leases.join("b", ignore);
        const first = await leases.acquire("w1", "a");
        // The stream's last seq as it was taken, read under the lock its appends take.
        expect(first).toEqual({
          _tag: "Taken",
          token: expect.any(Number),
          tookOver: false,
          lastSeq: 0,
        });
        const again = await leases.acquire("w1", "a");
        expect(again).toEqual(first);
        expect(await leases.acquire("w1", "b")).toEqual({ _tag: "Held", holder: "a" });
        // Still a's, and with the same token, after b asked.
        expect(await leases.acquire("w1", "a")).toEqual(first);
      }),
    );

    it(
      "a taking tells the stream's last seq as it was taken: what its holders appended before",
      withLeases(async ({ store, leases }) => {
        await leases.join("a", ignore);
        await leases.join("b", ignore);
        const a = await takenBy(leases, "w1", "a");
        await store.append("w1", deltas(3), 0, a);
        expect(await leases.acquire("w1", "a")).toMatchObject({ token: a.token, lastSeq: 3 });
        await leases.release("w1", a);
        expect(await leases.acquire("w1", "b")).toMatchObject({ _tag: "Taken", lastSeq: 3 });
        expect(await leases.acquire("w2", "b")).toMatchObject({ _tag: "Taken", lastSeq: 0 });
      }),
    );

    it(
      "release frees the stream (the next taker's token is greater); a release with a stale token does nothing",
      withLeases(async ({ store, leases }) => {
        await leases.join("a", ignore);
        await leases.join("b", ignore);
        const a = await takenBy(leases, "w1", "a", false);
        await leases.release("w1", a);
        const b = await takenBy(leases, "w1", "b", false);
        expect(b.token).toBeGreaterThan(a.token);
        // a's old writer, and a made-up token of b's, give nothing back.
        await leases.release("w1", a);
        await leases.release("w1", { holder: "b", token: b.token + 1 });
        await leases.release("w1", { holder: "a", token: b.token });
        expect(await leases.acquire("w1", "a")).toEqual({ _tag: "Held", holder: "b" });
        await store.append("w1", deltas(1), 0, b);
        expect(await store.lastSeq("w1")).toBe(1);
      }),
    );

    it(
      "a holder whose heartbeat lapsed is taken over (tookOver, greater token); its appends are refused with LeaseLost and write nothing",
      withLeases(async ({ store, leases, expire }) => {
        await leases.join("a", ignore);
        await leases.join("b", ignore);
        const a = await takenBy(leases, "w1", "a", false);
        await store.append("w1", deltas(2, "a"), 0, a);
        expect(await leases.acquire("w1", "b")).toEqual({ _tag: "Held", holder: "a" });
        await expire("a");
        const b = await takenBy(leases, "w1", "b", true);
        expect(b.token).toBeGreaterThan(a.token);
        // a's turn was in flight: its next append, at the right seq, is fenced off.
        const refused = await rejectionOf(store.append("w1", deltas(3, "late"), 2, a));
        expect(refused._tag).toBe("LeaseLost");
        expect(await store.lastSeq("w1")).toBe(2);
        expect(await store.read("w1")).toEqual(numbered(deltas(2, "a")));
        // A release with a's token does not free b's lease.
        await leases.release("w1", a);
        await store.append("w1", deltas(1, "b"), 2, b);
        expect(await store.read("w1")).toEqual([
          ...numbered(deltas(2, "a")),
          ...numbered(deltas(1, "b"), 2),
        ]);
      }),
    );

    it(
      "a joined host keeps its lease past several leaseMs while its heartbeat runs",
      withLeases(async ({ store, leases, pass }) => {
        await leases.join("a", ignore);
        await leases.join("b", ignore);
        const a = await takenBy(leases, "w1", "a", false);
        await pass(3 * leases.leaseMs);
        expect(await leases.acquire("w1", "b")).toEqual({ _tag: "Held", holder: "a" });
        expect(await leases.acquire("w1", "a")).toEqual({
          _tag: "Taken",
          token: a.token,
          tookOver: false,
          lastSeq: 0,
        });
        await store.append("w1", deltas(1), 0, a);
        expect(await store.lastSeq("w1")).toBe(1);
      }),
    );

    it(
      "leave gives back every lease of the host at once: the next taker takes each as free (tookOver false)",
      withLeases(async ({ store, leases }) => {
        const member = await leases.join("a", ignore);
        await leases.join("b", ignore);
        const a1 = await takenBy(leases, "w1", "a");
        const a2 = await takenBy(leases, "w2", "a");
        const c = await takenBy(leases, "w3", "b");
        await member.leave();
        // No time passes: the leases are free at once, not expired.
        const b1 = await takenBy(leases, "w1", "b", false);
        const b2 = await takenBy(leases, "w2", "b", false);
        expect(b1.token).toBeGreaterThan(Math.max(a1.token, a2.token));
        expect(b2.token).toBeGreaterThan(b1.token);
        // Another host's lease is not a's to give back.
        expect(await leases.acquire("w3", "b")).toEqual({
          _tag: "Taken",
          token: c.token,
          tookOver: false,
          lastSeq: 0,
        });
        const refused = await rejectionOf(store.append("w1", deltas(1), 0, a1));
        expect(refused._tag).toBe("LeaseLost");
        expect(await store.lastSeq("w1")).toBe(0);
      }),
    );

    it(
      "messages reach their host each once, in order, as JSON; one to a host that never joined reaches no one",
      withLeases(async ({ leases }) => {
        const toA: unknown[] = [];
        const toB: unknown[] = [];
        await leases.join("a", (message) => toA.push(message));
        await leases.join("b", (message) => toB.push(message));
        const sent = { n: 1, text: "é ☃ 😀", nested: { list: [1, null, "x"] } };
        await leases.send("b", sent);
        await leases.send("b", { n: 2 });
        await until(() => toB.length >= 2, 3_000, "b's two messages");
        await leases.send("nobody", { n: 3 });
        await leases.send("b", { n: 4 });
        await until(() => toB.length >= 3, 3_000, "b's third message");
        // A burst, each send awaited before the next: delivered in the order sent (a hundred, so
        // that deliveries racing each other cannot pass by luck).
        const burst = Array.from({ length: 100 }, (_, i) => ({ n: 5 + i }));
        for (const message of burst) await leases.send("b", message);
        await until(() => toB.length >= 3 + burst.length, 3_000, "the burst");
        await settle(150);
        const expected = [sent, { n: 2 }, { n: 4 }, ...burst];
        const byN = (x: unknown, y: unknown) => (x as { n: number }).n - (y as { n: number }).n;
        expect([...toB].sort(byN), "each delivered exactly once").toEqual(expected);
        expect(toB, "delivered in the order sent").toEqual(expected);
        expect(toA).toEqual([]);
      }),
    );

    it(
      "an append with a writer on a stream whose lease was never taken is refused with LeaseLost",
      withLeases(async ({ store, leases }) => {
        await leases.join("a", ignore);
        const other = await takenBy(leases, "w2", "a");
        for (const writer of [{ holder: "a", token: 1 }, other]) {
          const refused = await rejectionOf(store.append("w1", deltas(1), 0, writer));
          expect(refused._tag).toBe("LeaseLost");
        }
        expect(await store.lastSeq("w1")).toBe(0);
        expect(await store.read("w1")).toEqual([]);
      }),
    );
  });
};
