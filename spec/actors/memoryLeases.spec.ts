/**
 * The memory twin of the writer leases (`memoryStore({ shared }).leases`):
 * the WriterLeases contract on XState's SimulatedClock, what `crash` keeps
 * and what it stops, and a property: random acquires, releases (fresh or
 * stale), appends, crashes and clock steps among three hosts on two streams,
 * against a reference model of leases and heartbeats.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SimulatedClock } from "xstate";
import { memoryStore } from "../../src/runtime/log/memoryStore.ts";
import type { Writer } from "../../src/runtime/log/writerLeases.ts";
import { takenBy, until, writerLeasesContract } from "../adapters/writerLeases.contract.ts";
import { deltas } from "../fixtures/storeContract.ts";
import { runs, timeoutFor } from "../properties/runs.ts";

const LEASE_MS = 500;
const HEARTBEAT_MS = 100;

const shared = (leaseMs = LEASE_MS, heartbeatMs = HEARTBEAT_MS) => {
  const clock = new SimulatedClock();
  const store = memoryStore({ shared: { clock, leaseMs, heartbeatMs } });
  return { clock, store, leases: store.leases };
};

writerLeasesContract("memoryLeases (SimulatedClock)", async () => {
  const { clock, store, leases } = shared();
  return {
    store,
    leases,
    expire: async (holder) => {
      leases.crash(holder);
      clock.increment(LEASE_MS + 1);
    },
    pass: async (ms) => {
      for (let passed = 0; passed < ms; passed += HEARTBEAT_MS) clock.increment(HEARTBEAT_MS);
    },
    close: async () => {},
  };
});

describe("memoryLeases: crash", () => {
  it("keeps the host's leases until its last heartbeat runs out, then frees them to a take-over", async () => {
    const { clock, leases } = shared();
    await leases.join("a", () => {});
    await leases.join("b", () => {});
    clock.increment(HEARTBEAT_MS); // a beats at 100: its leases last until 600
    await takenBy(leases, "w1", "a", false);
    clock.increment(50);
    leases.crash("a");
    clock.increment(LEASE_MS - 50 - 1); // 599
    expect(await leases.acquire("w1", "b")).toEqual({ _tag: "Held", holder: "a" });
    expect(leases.holderOf("w1")).toBe("a");
    clock.increment(1); // 600
    expect(await leases.acquire("w1", "b")).toMatchObject({ _tag: "Taken", tookOver: true });
    expect(leases.holderOf("w1")).toBe("b");
  });

  it("stops the host's messages: in flight at the crash or sent after it, none is delivered", async () => {
    const { leases } = shared();
    const got: unknown[] = [];
    await leases.join("a", (message) => got.push(message));
    // Not awaited: the crash comes before the microtask that would deliver it.
    const inFlight = leases.send("a", { n: 1 });
    leases.crash("a");
    await inFlight;
    await leases.send("a", { n: 2 });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(got).toEqual([]);
  });

  it("messages go on a later microtask, as a copy of the JSON sent", async () => {
    const { leases } = shared();
    const got: unknown[] = [];
    await leases.join("a", (message) => got.push(message));
    const sent = { n: 1, list: [1, 2] };
    await leases.send("a", sent);
    sent.list.push(3);
    await until(() => got.length === 1);
    expect(got).toEqual([{ n: 1, list: [1, 2] }]);
    expect(got[0]).not.toBe(sent);
  });
});

// ——— The property ———

const HOLDERS = ["h0", "h1", "h2"] as const;
const STREAMS = ["s0", "s1"] as const;

type Op =
  | { readonly op: "acquire"; readonly h: number; readonly s: number }
  | { readonly op: "release"; readonly h: number; readonly s: number; readonly stale: boolean }
  | { readonly op: "append"; readonly h: number; readonly s: number; readonly behind: boolean }
  | { readonly op: "crash"; readonly h: number }
  | { readonly op: "rejoin"; readonly h: number }
  | { readonly op: "advance"; readonly permille: number };

const holder = fc.integer({ min: 0, max: HOLDERS.length - 1 });
const stream = fc.integer({ min: 0, max: STREAMS.length - 1 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ op: fc.constant("acquire" as const), h: holder, s: stream }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("release" as const),
      h: holder,
      s: stream,
      stale: fc.boolean(),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant("append" as const),
      h: holder,
      s: stream,
      behind: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("crash" as const), h: holder }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("rejoin" as const), h: holder }) },
  // A step of up to 2 × leaseMs, in thousandths of it (0 … 2 000).
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("advance" as const),
      permille: fc.integer({ min: 0, max: 2_000 }),
    }),
  },
);

/** A host as the model sees it: its heartbeat timer's start, and until when its leases last. */
interface ModelHost {
  crashed: boolean;
  until: number;
  timerStart: number;
}

describe("memoryLeases: property (reference model)", () => {
  it("one writer per (stream, seq), only under the current token; tokens grow; a live host is never taken over", {
    timeout: timeoutFor(),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 200 }),
        fc.array(opArb, { minLength: 10, maxLength: 60 }),
        async (heartbeatMs, extra, ops) => {
          const leaseMs = heartbeatMs + extra;
          const { clock, store, leases } = shared(leaseMs, heartbeatMs);
          let now = 0;
          const hosts: ModelHost[] = HOLDERS.map(() => ({
            crashed: false,
            until: leaseMs,
            timerStart: 0,
          }));
          for (const h of HOLDERS) await leases.join(h, () => {});
          const lease = new Map<string, Writer>();
          const lastSeq = new Map<string, number>(STREAMS.map((s) => [s, 0]));
          let lastToken = 0;
          /** Every writer each host was given, per stream, newest last. */
          const given = new Map<string, Writer[]>();
          const written = new Set<string>();
          const alive = (h: number) => hosts[h]!.until > now;

          for (const step of ops) {
            if (step.op === "advance") {
              const ms = Math.round((step.permille * leaseMs) / 1_000);
              now += ms;
              clock.increment(ms);
              // A live host's timer fires once, late or not, and starts again from now.
              for (const host of hosts)
                if (!host.crashed && now - host.timerStart >= heartbeatMs) {
                  host.until = now + leaseMs;
                  host.timerStart = now;
                }
            } else if (step.op === "crash") {
              hosts[step.h]!.crashed = true;
              leases.crash(HOLDERS[step.h]!);
            } else if (step.op === "rejoin") {
              // Only a crashed host comes back (a process started again under its id).
              if (!hosts[step.h]!.crashed) continue;
              hosts[step.h] = { crashed: false, until: now + leaseMs, timerStart: now };
              await leases.join(HOLDERS[step.h]!, () => {});
            } else {
              const h = HOLDERS[step.h]!;
              const s = STREAMS[step.s]!;
              const key = `${h}/${s}`;
              const current = lease.get(s);
              if (step.op === "acquire") {
                const taking = await leases.acquire(s, h);
                // Taking a lease beats the taker's heart (as on PostgreSQL), a live taker's.
                if (taking._tag === "Taken" && !hosts[step.h]!.crashed)
                  hosts[step.h]!.until = now + leaseMs;
                if (current?.holder === h) {
                  expect(taking).toEqual({
                    _tag: "Taken",
                    token: current.token,
                    tookOver: false,
                    lastSeq: await store.lastSeq(s),
                  });
                } else if (
                  current !== undefined &&
                  alive(HOLDERS.indexOf(current.holder as never))
                ) {
                  expect(taking).toEqual({ _tag: "Held", holder: current.holder });
                } else {
                  if (taking._tag !== "Taken") return expect.fail(JSON.stringify(taking));
                  expect(taking.tookOver).toBe(current !== undefined);
                  // Tokens taken strictly grow.
                  expect(taking.token).toBeGreaterThan(lastToken);
                  lastToken = taking.token;
                  if (current !== undefined) {
                    // Only a host whose heartbeat stopped, and ran out, is taken over.
                    const previous = hosts[HOLDERS.indexOf(current.holder as never)]!;
                    expect(previous.crashed).toBe(true);
                    expect(previous.until).toBeLessThanOrEqual(now);
                  }
                  const writer = { holder: h, token: taking.token };
                  lease.set(s, writer);
                  given.set(key, [...(given.get(key) ?? []), writer]);
                }
              } else if (step.op === "release") {
                const mine = given.get(key) ?? [];
                const writer = step.stale ? mine.at(-2) : mine.at(-1);
                if (writer === undefined) continue;
                await leases.release(s, writer);
                if (current?.holder === writer.holder && current.token === writer.token)
                  lease.delete(s);
              } else {
                // Under the last writer it was given (a zombie's, if it lost it), or a made-up one.
                const writer = given.get(key)?.at(-1) ?? { holder: h, token: 0 };
                const seq = lastSeq.get(s)!;
                const expectedSeq = step.behind && seq > 0 ? seq - 1 : seq;
                const outcome = await store.append(s, deltas(1, h), expectedSeq, writer).then(
                  () => "ok",
                  (error: { _tag?: string }) => error._tag,
                );
                const holds = current?.holder === writer.holder && current.token === writer.token;
                expect(outcome).toBe(
                  !holds ? "LeaseLost" : expectedSeq !== seq ? "AppendConflict" : "ok",
                );
                if (outcome === "ok") {
                  // One writer per (stream, seq), and only under the stream's lease now.
                  expect(written.has(`${s}#${seq + 1}`)).toBe(false);
                  written.add(`${s}#${seq + 1}`);
                  expect(writer).toEqual(lease.get(s));
                  lastSeq.set(s, seq + 1);
                }
              }
            }
            for (const s of STREAMS) expect(leases.holderOf(s)).toBe(lease.get(s)?.holder);
          }
          for (const s of STREAMS) {
            expect(await store.lastSeq(s)).toBe(lastSeq.get(s));
            const log = await store.read(s);
            expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
          }
        },
      ),
      { numRuns: runs(1_000) },
    );
  });
});
