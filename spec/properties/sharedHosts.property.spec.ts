/**
 * S1: three hosts on one shared store (the memory twin of writer leases, one
 * simulated clock) under random use of one window, model-based.
 * Time: 1 000 runs (≤ 30 operations each) take 3–4 s here; 3 000 took 10 s.
 * Random operations, each on a random live host: prompt (not awaited: the
 * model deletes a customer, after confirmation, then answers), confirm or
 * decline a logged confirmId, stop, reset, select, reconnect an observer
 * (`events$` from its last seq), crash a host (≤ N−1), advance the clock (in
 * heartbeat steps), settle; then past the lease time a live host stops the
 * window until all settled. Checked: 1. seqs 1..n, turns 1, 2, 3, … each
 * ending once in place, none running; 2. observers on live hosts hold the
 * log; 3. deletes only for confirmIds answered accepted, once; each answered
 * once; 4. interrupted only for a crashed host's turn, once; 5. (added) a live
 * host's tool step has its ToolFinished stored.
 * It found two bugs, fixed, whose shrunk plans run first (KNOWN below):
 * - a host answered another's request while it was still taking the lease
 *   over (before it had read the log, recorded the orphaned turn and told
 *   its conversation the log's turn): turn 1 started twice, or a Reset
 *   numbered with an old turn;
 * - the writer gave the lease back once Stopped was stored, before the
 *   stopped tool step's ToolFinished, whose append was then refused
 *   (LeaseLost) and never stored.
 */

import { createHash } from "node:crypto";
import { type AnswerResult, createApp, createHost } from "elyra-assistant";
import type { LogEvent } from "elyra-assistant/log";
import { countingIds, memoryStore, simulatedClock } from "elyra-assistant/testing";
import fc from "fast-check";
import type { Subscription } from "rxjs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { isTurnEnd } from "../../src/runtime/log/events.ts";
import { loopModel } from "../fixtures/loopModel.ts";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";
import { runs, timeoutFor } from "./runs.ts";

const N = 3;
const LEASE_MS = 5_000;
const HEARTBEAT_MS = 1_000;
const STREAM = "conversation/w";
const ada: TestUser = { name: "Ada", abilities: ["customers.*"] };
const HUNG_MS = 3_000; // real time one await may take before the run fails as hung

type Op =
  | { op: "prompt" | "stop" | "reset" | "select" | "settle" | "crash"; host: number }
  | { op: "confirm"; host: number; pick: number; accept: boolean }
  | { op: "reconnect"; observer: number; host: number }
  | { op: "advance"; ms: number };

/** A host by its place among the live ones (modulo their number): stable when shrinking. */
const host = fc.nat({ max: N - 1 });
const on = <K extends Op["op"]>(...ops: K[]) => fc.record({ op: fc.constantFrom(...ops), host });
/** Counted from the newest: mostly the question open now, sometimes an older one. */
const pick = fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, fc.nat({ max: 7 }));
const accept = fc.oneof({ weight: 2, arbitrary: fc.constant(true) }, fc.constant(false));
const ms = fc.integer({ min: 1, max: 2 * LEASE_MS });
const weighted = <A>(weight: number, arbitrary: fc.Arbitrary<A>) => ({ weight, arbitrary });
const op: fc.Arbitrary<Op> = fc.oneof(
  weighted(4, on("prompt")),
  weighted(5, fc.record({ op: fc.constant("confirm" as const), host, pick, accept })),
  weighted(3, on("stop", "reset", "select")),
  weighted(2, fc.record({ op: fc.constant("reconnect" as const), observer: host, host })),
  weighted(2, on("crash")),
  weighted(3, fc.record({ op: fc.constant("advance" as const), ms })),
  weighted(3, on("settle")),
);
const plans = fc.array(op, { minLength: 1, maxLength: 30 });

/** Lets every promise and message in flight move on: a few turns of the event loop. */
const flush = async (turns = 4) => {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** Resolves with `promise`, or rejects naming `what` after HUNG_MS of real time. */
const inTime = <A>(promise: Promise<A>, what: string): Promise<A> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hung: ${what}`)), HUNG_MS);
  });
  return Promise.race([promise, hung]).finally(() => clearTimeout(timer));
};

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);
beforeAll(() => {
  process.on("unhandledRejection", onUnhandled);
  // A confirmation's digest answers on the next turn of the event loop, not from the thread pool
  // (whose timing is real time): a run replays the same from its seed.
  vi.spyOn(globalThis.crypto.subtle, "digest").mockImplementation(async (_, data) => {
    const hash = createHash("sha256").update(data as Uint8Array);
    return new Promise((resolve) =>
      setImmediate(() => resolve(Uint8Array.from(hash.digest()).buffer)),
    );
  });
});
afterAll(() => {
  process.off("unhandledRejection", onUnhandled);
  vi.restoreAllMocks();
});

/** How much of the space the runs reached: printed at the end. */
const reached = { runs: 0, crashes: 0, turns: 0, interrupted: 0, accepted: 0, deletesRan: 0 };

/** Three hosts on one shared store, and what the test keeps of them. */
const cluster = () => {
  const clock = simulatedClock(Date.parse("2026-12-01T09:00:00Z"));
  const shared = memoryStore({ shared: { clock, leaseMs: LEASE_MS, heartbeatMs: HEARTBEAT_MS } });
  /** Which host appended each stored event, by seq. */
  const writerOf = new Map<number, string>();
  const store: typeof shared = {
    ...shared,
    append: async (stream, events, expectedSeq, writer) => {
      const added = await shared.append(stream, events, expectedSeq, writer);
      for (const e of added) writerOf.set(e.seq, writer?.holder ?? "no lease");
      return added;
    },
  };
  const spies = spyCommands();
  /** The customer ids customers_delete ran for (each model request names a new one). */
  const deleted: number[] = [];
  const spied = (c: (typeof spies.commands)[number]) => ({
    ...c,
    run: ((args: { readonly id: number }, ctx: unknown) => {
      deleted.push(args.id);
      return (c.run as (a: unknown, b: unknown) => unknown)(args, ctx);
    }) as typeof c.run,
  });
  const app = createApp({
    commands: spies.commands.map((c) => (c.name === "customers_delete" ? spied(c) : c)),
    userAbilities: (u) => (u as TestUser).abilities,
    assistant: { allow: ["customers.*"], confirm: ["customers.delete"] },
  });
  const model = loopModel();
  const errors: string[] = [];
  const hosts = Array.from({ length: N }, (_, i) =>
    createHost(app, {
      model,
      store,
      clock,
      hostId: `h${i}`,
      confirmIds: countingIds(`h${i}-confirm`),
      onError: (e) => void errors.push(`h${i}: ${(e as Error)?.name}: ${(e as Error)?.message}`),
    }),
  );
  const windows = hosts.map((h) => h.window("w", { user: ada }));
  return { clock, store, writerOf, spies, deleted, errors, hosts, windows };
};

type Observer = { host: number; seen: LogEvent[]; sub?: Subscription; broken: string[] };

const runOnce = async (plan: ReadonlyArray<Op>) => {
  reached.runs++;
  const { clock, store, writerOf, spies, deleted, errors, hosts, windows } = cluster();
  const windowOf = (i: number) => windows[i]!;
  const crashed = new Set<number>();
  const alive = () => windows.map((_, i) => i).filter((i) => !crashed.has(i));
  const liveHost = (pick: number) => alive()[pick % alive().length] as number;
  const trail: string[] = [];
  const refusals: string[] = [];
  const observers: Observer[] = [];
  /** The observer's stream, on host `to` now, from the last seq it has. */
  const follow = (o: Observer, to: number) => {
    o.sub?.unsubscribe();
    o.host = to;
    o.sub = windowOf(to)
      .events$(o.seen.at(-1)?.seq ?? 0)
      .subscribe({
        next: (event) => {
          const due = (o.seen.at(-1)?.seq ?? 0) + 1;
          if (event.seq !== due) o.broken.push(`seq ${event.seq} where ${due} was due, on h${to}`);
          o.seen.push(event);
        },
        error: (error: unknown) => void o.broken.push(`stream failed on h${to}: ${String(error)}`),
        complete: () => void o.broken.push(`stream ended on h${to}`),
      });
  };
  /** The operations not awaited, and whether each settled. */
  const pending: Array<{ readonly what: string; done: boolean }> = [];
  const track = <A>(what: string, promise: Promise<A>, onValue: (value: A) => void = () => {}) => {
    const entry = { what, done: false };
    pending.push(entry);
    const refused = (error: unknown) => {
      const reason = (error as { reason?: unknown } | null)?.reason;
      if (reason !== "turnInProgress") refusals.push(`${what}: ${String(error)}`);
    };
    void promise.then(onValue, refused).finally(() => Object.assign(entry, { done: true }));
  };
  const answers: Array<{ confirmId: string; accept: boolean; result: AnswerResult }> = [];
  const confirm = (at: number, confirmId: string, accept: boolean) =>
    track(`h${at} confirm ${confirmId} ${accept}`, windowOf(at).confirm(confirmId, accept), (r) =>
      answers.push({ confirmId, accept, result: r }),
    );
  const advance = async (ms: number) => {
    for (let left = ms; left > 0; left -= HEARTBEAT_MS) {
      clock.increment(Math.min(HEARTBEAT_MS, left));
      await flush();
    }
  };

  try {
    // Each host joins the leases (a stop takes the free lease and gives it back): a crash kills a member.
    for (let i = 0; i < N; i++) {
      await inTime(windowOf(i).settled(), `h${i} opening w`);
      windowOf(i).stop();
      await flush();
      observers.push({ host: i, seen: [], broken: [] });
      follow(observers[i] as Observer, i);
    }
    let prompts = 0;
    for (const o of plan) {
      if (o.op === "advance") {
        trail.push(`+${o.ms} ms`);
        await advance(o.ms);
        continue;
      }
      const at = liveHost(o.host);
      const w = windowOf(at);
      if (o.op === "crash" && crashed.size >= N - 1) continue;
      trail.push(`h${at} ${o.op === "reconnect" ? `takes observer ${o.observer}` : o.op}`);
      if (o.op === "prompt") track(`h${at} prompt #${++prompts}`, w.prompt(`delete (#${prompts})`));
      else if (o.op === "confirm") {
        const asked = (await store.read(STREAM)).flatMap((e) =>
          e._tag === "ConfirmRequested" ? [e.confirmId] : [],
        );
        const id = asked[asked.length - 1 - (o.pick % Math.max(1, asked.length))] ?? "none";
        trail.push(`${o.accept ? "accepts" : "declines"} ${id}`);
        confirm(at, id, o.accept);
      } else if (o.op === "stop") w.stop();
      else if (o.op === "reset") track(`h${at} reset`, w.reset());
      else if (o.op === "select")
        track(`h${at} select`, w.select("customers", [prompts], { route: "/customers" }));
      else if (o.op === "reconnect") follow(observers[o.observer] as Observer, at);
      else if (o.op === "crash") {
        reached.crashes++;
        store.leases.crash(`h${at}`);
        crashed.add(at);
      } else {
        await flush(8);
        await inTime(w.settled(), `h${at} settled()`);
      }
      await flush(1);
    }

    // The end: past the lease time, a live host stops and answers a dead id until all settled.
    trail.push("end");
    await advance(2 * LEASE_MS);
    const last = alive()[0] as number;
    for (let round = 0; round < 8; round++) {
      windowOf(last).stop();
      confirm(last, "dead", true);
      await advance(LEASE_MS + HEARTBEAT_MS);
      await inTime(windowOf(last).settled(), `h${last} settled() at the end`);
      const log = await store.read(STREAM);
      const start = log.findLast((e) => e._tag === "TurnStarted");
      const ended = start === undefined || log.some((e) => isTurnEnd(e) && e.seq > start.seq);
      if (ended && pending.every((p) => p.done)) break;
    }
    for (const i of alive()) await inTime(windowOf(i).settled(), `h${i} settled() at the end`);
    await flush(8);

    const log = await store.read(STREAM);
    const ctx = [
      `\n  after: ${trail.join(" → ")}`,
      `  refused: ${refusals.join(" | ") || "-"}`,
      `  host errors: ${errors.join(" | ") || "-"}`,
      `  log: ${log.map((e) => `${e.seq}:${e._tag}/${e.turn}@${writerOf.get(e.seq)}`).join(" ")}`,
    ].join("\n");
    /** One invariant: fails the run with `what` and how the run got there. */
    const must = (ok: boolean, what: string) => expect(ok, `${what}${ctx}`).toBe(true);
    const late = pending.filter((p) => !p.done).map((p) => p.what);
    must(late.length === 0, `operations never settled: ${late.join(", ")}`);

    // 1. The log: seqs 1..n; turns 1, 2, 3, …, each ending once, in its place.
    const seqsOk = log.every((e, i) => e.seq === i + 1);
    must(seqsOk, "the stored seqs have a gap or a repeat");
    const starts = log.flatMap((e, i) => (e._tag === "TurnStarted" ? [[e.turn, i] as const] : []));
    reached.turns += starts.length;
    const turns = starts.map(([turn]) => turn);
    const turnsOk = turns.every((turn, i) => turn === i + 1);
    must(turnsOk, `TurnStarted turns are ${turns.join(", ")}, not 1, 2, 3, …`);
    for (const [k, [turn, at]] of starts.entries()) {
      const next = starts[k + 1]?.[1] ?? log.length;
      const ends = log.flatMap((e, i) => (isTurnEnd(e) && e.turn === turn ? [i] : []));
      must(ends.length === 1, `turn ${turn} has ${ends.length} turn ends`);
      must((ends[0] ?? 0) > at, `turn ${turn} ends before it starts`);
      const outside = log.filter(
        (e, i) => e.turn === turn && e._tag !== "ToolFinished" && (i > next || i < at),
      );
      must(outside.length === 0, `seq ${outside[0]?.seq} of turn ${turn} is outside the turn`);
    }

    // 2. Every observer on a live host has the stored log, once, in order, across reconnects.
    for (const [k, o] of observers.entries()) {
      if (crashed.has(o.host)) continue;
      const who = `observer ${k} (now on h${o.host})`;
      must(o.broken.length === 0, `${who}: ${o.broken.join("; ")}`);
      expect(o.seen, `${who} has other events than the stored log${ctx}`).toEqual(log);
    }

    // 3. A delete ran only for a confirmId answered accepted, once; each id answered once.
    const answered = answers.filter((a) => a.result._tag === "Answered");
    const accepted = answered.flatMap((a) =>
      a.result._tag === "Answered" && a.result.answer === "accepted" ? [a.confirmId] : [],
    );
    reached.accepted += accepted.length;
    reached.deletesRan += deleted.length;
    for (const { confirmId, accept, result } of answered) {
      const times = answered.filter((b) => b.confirmId === confirmId).length;
      must(times === 1, `${confirmId} was answered ${times} times`);
      const answer = accept ? "accepted" : "declined";
      must(
        result._tag === "Answered" && result.answer === answer,
        `${confirmId} (${answer}) was answered ${JSON.stringify(result)}`,
      );
    }
    const ran = spies.runs.get("customers_delete") ?? 0;
    must(ran <= accepted.length, `customers_delete ran ${ran}×, ${accepted.length} accepted`);
    for (const id of deleted) {
      const asked = log.flatMap((e) =>
        e._tag === "ConfirmRequested" && (e.args as { id?: unknown }).id === id ? [e] : [],
      );
      const times = deleted.filter((d) => d === id).length;
      must(asked.length === 1, `customers_delete ran for #${id}, asked ${asked.length}×`);
      must(accepted.includes(asked[0]?.confirmId ?? ""), `#${id} deleted, not accepted`);
      must(times === 1, `customers_delete ran ${times}× for #${id}`);
    }

    // 4. Interrupted only where the host that started the turn crashed, once per turn.
    const dead = [...crashed].map((i) => `h${i}`);
    const interrupted = log.filter((e) => e._tag === "Failed" && e.error === "interrupted");
    reached.interrupted += interrupted.length;
    for (const e of interrupted) {
      const times = interrupted.filter((f) => f.turn === e.turn).length;
      must(times === 1, `turn ${e.turn} was recorded interrupted ${times}×`);
      const start = log.find((s) => s._tag === "TurnStarted" && s.turn === e.turn);
      const by = writerOf.get(start?.seq ?? -1) ?? "?";
      must(dead.includes(by), `turn ${e.turn} recorded interrupted, yet ${by} ran it and lives`);
    }

    // 5. A tool step started by a live host is finished in the log, once.
    for (const e of log) {
      if (e._tag !== "ToolStarted") continue;
      const by = writerOf.get(e.seq) ?? "?";
      const done = log.filter((f) => f._tag === "ToolFinished" && f.callId === e.callId).length;
      if (!(dead.includes(by) && done === 0))
        must(done === 1, `the tool step of seq ${e.seq} (by ${by}) has ${done} ToolFinished`);
    }
  } finally {
    for (const o of observers) o.sub?.unsubscribe();
    await Promise.all(hosts.map((h) => inTime(h.close(), "host.close()").catch(() => undefined)));
  }
};

/**
 * Counterexamples the property found, shrunk, each played on its own (random runs reach the
 * first two about once in 500). Plans: `op host`, `confirm host pick accept|decline`.
 */
const KNOWN: ReadonlyArray<[string, string]> = [
  // h1 and h2 both wait for the crashed h0; when its lease lapses h1 takes it over and, while it
  // still records turn 1 interrupted, answers h2's prompt: turn 1 is started again.
  ["a takeover answers once caught up: turns 1, 1", "prompt 0, crash 0, prompt 0, prompt 1"],
  // As above: h2's reset, answered by h1 mid-takeover, is logged Reset/1 after turn 2.
  [
    "a takeover answers once caught up: a Reset of turn 1 after turn 2",
    "prompt 1, settle 0, confirm 0 0 accept, settle 0, prompt 0, settle 0, crash 0, reset 1, prompt 0",
  ],
  // The stop lands while the confirmation's digest is computed: Stopped is stored, the writer
  // gives the lease back, and the stopped tool step's ToolFinished is refused (LeaseLost "none").
  ["a stopped tool step's ToolFinished is stored, even with one host", "prompt 0, stop 0"],
];

const planOf = (text: string): Op[] =>
  text.split(", ").map((step): Op => {
    const [name, a = "0", b = "0", c] = step.split(" ");
    if (name === "confirm") return { op: "confirm", host: +a, pick: +b, accept: c === "accept" };
    return { op: name as "prompt", host: +a };
  });

describe("S1: hosts sharing a store under random use (model-based)", () => {
  it("one log, seen whole by every observer; deletes only if accepted; interrupted only after a crash", {
    timeout: timeoutFor(120_000),
  }, async () => {
    const started = Date.now();
    try {
      // The known counterexamples first: the property fails on them until they are fixed.
      const examples = KNOWN.map(([, plan]): [Op[]] => [planOf(plan)]);
      await fc.assert(fc.asyncProperty(plans, runOnce), { numRuns: runs(1_000), examples });
      expect(unhandled.map(String), "unhandled rejections").toEqual([]);
    } finally {
      console.log(`S1: ${reached.runs} runs in ${Date.now() - started} ms`, reached);
    }
  });

  it.each(KNOWN)("counterexample: %s", async (_, plan) => {
    await runOnce(planOf(plan));
  });
});
