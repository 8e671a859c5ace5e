/**
 * Several hosts on one real PostgreSQL database, model-based (issue 29, "go
 * further"): three hosts in this process, each on a `postgresStore` of its
 * own through a proxy (so that it can be paused and lose notifications), on
 * a window of each run's own. Random operations, each on a random host:
 * prompt (not awaited: the model deletes a customer, after confirmation,
 * then answers), accept or decline a logged confirmId, stop, reset, pause a
 * host past its lease (its bytes held, its heartbeat lapsed: another host
 * takes the window over at its next request), resume it, kill its backends
 * (pg_terminate_backend), lose or hold its NOTIFYs, advance the hosts'
 * clock, settle. Then everything goes on, and the window is settled.
 * Checked:
 * 1. a delete ran at most once, only on the host that had stored (under its
 *    lease) the acceptance of its question, after that append was stored,
 *    when nothing of another lease after it and no end of its turn had been
 *    stored yet;
 * 2. the log: turns 1, 2, 3, …, each ending once; each question answered at
 *    most once;
 * 3. a reader on every host (an event stream, opened again from its last seq
 *    when it ends, as a page does) sees every stored event once, in order;
 * 4. no uncaught error or unhandled rejection;
 * 5. afterwards the window is usable from any host: a prompt to one is
 *    answered, and a question asked through another is declined through the
 *    third (which host does what turns with the runs).
 * Time: 200 runs take 45–50 s here on a loaded 2-core machine (1.5–2 min
 * before postgresStore's appends became one round trip).
 * It found five bugs, fixed, each with a spec that failed before its fix (the
 * shrunk plans of the first three and of the fifth run first, KNOWN below):
 * - a late notice of another host's appends, read while this host took the
 *   lease, was taken for a takeover: the lease was forgotten and the turn's
 *   next append refused (spec/actors/lateNotice.spec.ts);
 * - a window given up after a killed backend left its readers open and
 *   silent (spec/actors/failedWindowStreams.spec.ts);
 * - a window rebuilt from its log did not tell its readers what others had
 *   written meanwhile (spec/actors/pausedHolder.spec.ts, the reader);
 * - notices that joined a catch-up queued behind one reading were not read:
 *   the queued one looked at its first notice's seq only, which the reading
 *   one had reached, and read nothing, so a reader missed the log's last
 *   events for good though its store told their seqs (about once in 100–150
 *   runs, 9 in 350 of the third KNOWN plan; spec/actors/joinedNotices.spec.ts);
 * - a stop or reset told the writer late (a paused host's, or its LISTEN cut)
 *   ended a turn begun after it: its question said `UnknownConfirmation` (1 in
 *   150 runs, 16 in 40 of the fourth KNOWN plan; spec/actors/lateStop.spec.ts).
 * - a host whose giving back of the lease failed (its backend killed) still
 *   held it, live, but answered `NotHolder` to every host that asked, so the
 *   end's prompt was refused "did not answer" (1 in 600 runs;
 *   spec/actors/lostRelease.spec.ts);
 * - a routed prompt's probe of its writer that the store refused was an
 *   unhandled rejection (spec/actors/probeFault.spec.ts).
 * It runs in `npm test` (200 runs; `ELYRA_PROPERTY_SCALE` for more): 600 runs
 * and then 1 000 more passed after the last of these fixes.
 */
import type { LogEvent } from "elyra-assistant/log";
import fc from "fast-check";
import pg from "pg";
import type { Subscription } from "rxjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isTurnEnd } from "../../src/runtime/log/events.ts";
import {
  havePostgres,
  type PostgresServer,
  postgresSuite,
  startPostgres,
} from "../adapters/postgresServer.ts";
import { type PgProxy, pgProxy } from "../fixtures/pgProxy.ts";
import {
  type Cluster,
  cluster,
  clusterStores,
  HUNG_MS,
  inTime,
  KNOWN,
  type Op,
  sleep,
  until,
} from "./multiHost.cluster.ts";
import { runs, timeoutFor } from "./runs.ts";

const N = 3;
/** The store's lease (real time, at the server) and the hosts' waits (on their clock). */
const LEASE_MS = 2_000;
const HEARTBEAT_MS = 200;
/** A paused host inside a transaction holds its window's lock this long (real time). */
const IDLE_IN_TRANSACTION_MS = 300;
const SCHEMA = "multihost";

const host = fc.nat({ max: N - 1 });
const on = <K extends Op["op"]>(...ops: K[]) => fc.record({ op: fc.constantFrom(...ops), host });
const pick = fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, fc.nat({ max: 3 }));
const weighted = <A>(weight: number, arbitrary: fc.Arbitrary<A>) => ({ weight, arbitrary });
const op: fc.Arbitrary<Op> = fc.oneof(
  weighted(4, on("prompt")),
  weighted(5, fc.record({ op: fc.constant("confirm" as const), host, pick, accept: fc.boolean() })),
  weighted(2, on("stop", "reset")),
  weighted(2, on("pause")),
  weighted(2, on("resume")),
  weighted(1, on("kill")),
  weighted(
    1,
    fc.record({
      op: fc.constant("notices" as const),
      host,
      mode: fc.constantFrom("drop" as const, "hold" as const, "pass" as const),
    }),
  ),
  weighted(2, fc.record({ op: fc.constant("advance" as const), ms: fc.constantFrom(500, 2_100) })),
  weighted(2, on("settle")),
);
const plans = fc.array(op, { minLength: 1, maxLength: 14 });

const uncaught: unknown[] = [];
const onUncaught = (reason: unknown) => void uncaught.push(reason);
/** How much of the space the runs reached: printed at the end. */
const reached = {
  runs: 0,
  turns: 0,
  pauses: 0,
  takeovers: 0,
  kills: 0,
  accepted: 0,
  ran: 0,
};

describe.skipIf(!havePostgres)(postgresSuite("S2: hosts on one PostgreSQL (model-based)"), () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  const proxies: PgProxy[] = [];
  let stores: ReturnType<typeof clusterStores>;
  let run = 0;

  beforeAll(async () => {
    server = await startPostgres();
    admin = new pg.Pool({ connectionString: server.url, max: 4 });
    admin.on("error", () => {});
    for (let i = 0; i < N; i++) proxies.push(await pgProxy(server.port));
    stores = clusterStores(
      (port, name) => `postgres://postgres@127.0.0.1:${port}/postgres?application_name=${name}`,
      proxies,
      {
        schema: SCHEMA,
        leaseMs: LEASE_MS,
        heartbeatMs: HEARTBEAT_MS,
        idleInTransactionMs: IDLE_IN_TRANSACTION_MS,
      },
    );
    for (const store of stores.stores) await store.ready();
    process.on("uncaughtException", onUncaught);
    process.on("unhandledRejection", onUncaught);
  }, 60_000);
  afterAll(async () => {
    process.off("uncaughtException", onUncaught);
    process.off("unhandledRejection", onUncaught);
    for (const store of stores?.stores ?? []) await store.close().catch(() => undefined);
    for (const proxy of proxies) await proxy.close();
    await admin?.end();
    await server?.stop();
  }, 30_000);

  const setup = () => ({ ...stores, proxies, admin, schema: SCHEMA });

  type Reader = { host: number; seen: LogEvent[]; broken: string[]; sub?: Subscription };
  /** Host `i`'s reader, from its last seq: opened again (as a page does) when its stream ends. */
  const follow = (c: Cluster, r: Reader, closing: () => boolean) => {
    if (closing()) return;
    let ended = false;
    const again = () => {
      if (ended) return;
      ended = true;
      r.sub?.unsubscribe();
      setTimeout(() => follow(c, r, closing), 10);
    };
    try {
      r.sub = c
        .window(r.host)
        .events$(r.seen.at(-1)?.seq ?? 0)
        .subscribe({
          next: (event) => {
            const due = (r.seen.at(-1)?.seq ?? 0) + 1;
            if (event.seq !== due) r.broken.push(`seq ${event.seq} where ${due} was due`);
            r.seen.push(event);
          },
          error: again,
          complete: again,
        });
    } catch {
      again();
    }
  };

  const runOnce = async (plan: ReadonlyArray<Op>) => {
    reached.runs++;
    const c = cluster(setup(), ++run);
    const trail: string[] = [];
    const pending: Array<{ readonly what: string; done: boolean }> = [];
    const track = (what: string, promise: Promise<unknown>) => {
      const entry = { what, done: false };
      pending.push(entry);
      void promise.catch(() => undefined).finally(() => Object.assign(entry, { done: true }));
      return entry;
    };
    const paused = new Set<number>();
    let closing = false;
    const readers: Reader[] = c.hosts.map((_, i) => ({ host: i, seen: [], broken: [] }));
    const advance = async (ms: number) => {
      for (let left = ms; left > 0; left -= HEARTBEAT_MS) {
        c.clock.increment(Math.min(HEARTBEAT_MS, left));
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const settle = (ms: number) => until(() => pending.every((p) => p.done), ms);
    /** The questions asked so far, as the reader furthest on has them. */
    const asked = () =>
      readers
        .map((r) => r.seen.flatMap((e) => (e._tag === "ConfirmRequested" ? [e.confirmId] : [])))
        .reduce((a, b) => (b.length > a.length ? b : a), []);
    try {
      for (let i = 0; i < N; i++) {
        await inTime(c.window(i).settled(), `h${i} opening the window`);
        follow(c, readers[i] as Reader, () => closing);
      }
      let prompts = 0;
      for (const o of plan) {
        if (o.op === "advance") {
          trail.push(`+${o.ms} ms`);
          await advance(o.ms);
          continue;
        }
        const at = o.host;
        trail.push(`h${at} ${o.op}${o.op === "notices" ? ` ${o.mode}` : ""}`);
        if (o.op === "prompt") {
          prompts++;
          const before = asked().length;
          const entry = track(
            `h${at} prompt #${prompts}`,
            c.window(at).prompt(`delete #${prompts}`),
          );
          // Until it asks its question (or ends), or a little while: a paused host asks nothing.
          await until(() => entry.done || asked().length > before, 150);
        } else if (o.op === "confirm") {
          const ids = asked();
          const id = ids[ids.length - 1 - (o.pick % Math.max(1, ids.length))] ?? "none";
          trail.push(`${o.accept ? "accepts" : "declines"} ${id}`);
          const entry = track(`h${at} confirm ${id}`, c.window(at).confirm(id, o.accept));
          await until(() => entry.done, 100);
        } else if (o.op === "stop") c.window(at).stop();
        else if (o.op === "reset") track(`h${at} reset`, c.window(at).reset());
        else if (o.op === "pause") {
          if (paused.size >= N - 1 || paused.has(at)) continue;
          reached.pauses++;
          paused.add(at);
          await c.pause(at);
        } else if (o.op === "resume") {
          paused.delete(at);
          c.resume(at);
        } else if (o.op === "kill") reached.kills += await c.kill(at);
        else if (o.op === "notices") setup().proxies[at]?.notices(o.mode);
        else await settle(100);
        await sleep(2);
      }

      // The end: every host goes on, tells what it was told, and the window is settled.
      trail.push("end");
      for (let i = 0; i < N; i++) {
        c.resume(i);
        setup().proxies[i]?.notices("pass");
      }
      for (let round = 0; round < 12; round++) {
        await advance(LEASE_MS + HEARTBEAT_MS);
        const w = c.window(round % N);
        w.stop();
        track(`h${round % N} confirm dead`, w.confirm("dead", true));
        await settle(200);
        await inTime(c.window(round % N).settled(), `h${round % N} settled() at the end`);
        const log = await c.log();
        const start = log.findLast((e) => e._tag === "TurnStarted");
        const ended = start === undefined || log.some((e) => isTurnEnd(e) && e.seq > start.seq);
        if (ended && pending.every((p) => p.done)) break;
      }

      const logNow = await c.log();
      const ctx = () =>
        [
          `\n  after: ${trail.join(" → ")}`,
          `  host errors: ${c.errors.slice(0, 12).join(" | ") || "-"}`,
          `  runs: ${c.runs.map((r) => `#${r.id}@h${r.host}@${r.at}`).join(" ") || "-"}`,
          `  log: ${logNow
            .map((e) => {
              const by = c.stored.get(e.seq);
              return `${e.seq}:${e._tag}/${e.turn}@${by === undefined ? "?" : `h${by.host}.${by.token}@${by.at}`}`;
            })
            .join(" ")}`,
        ].join("\n");
      const must = (ok: boolean, what: string) => expect(ok, `${what}${ctx()}`).toBe(true);
      const late = pending.filter((p) => !p.done).map((p) => p.what);
      must(late.length === 0, `operations never settled: ${late.join(", ")}`);

      // 1. Each delete ran at most once, on the holder, right after its acceptance was stored.
      for (const r of c.runs) {
        reached.ran++;
        const who = `customers_delete #${r.id} on h${r.host}`;
        must(c.runs.filter((s) => s.id === r.id).length === 1, `${who} ran more than once`);
        const asked = logNow.find(
          (e) => e._tag === "ConfirmRequested" && (e.args as { id?: unknown }).id === r.id,
        );
        const yes = logNow.find(
          (e) =>
            e._tag === "ConfirmAnswered" &&
            asked?._tag === "ConfirmRequested" &&
            e.confirmId === asked.confirmId &&
            e.answer === "accepted",
        );
        const by = yes === undefined ? undefined : c.stored.get(yes.seq);
        must(yes !== undefined, `${who}: its acceptance is not in the log`);
        must(by?.host === r.host, `${who}: its acceptance was stored by h${by?.host}`);
        must((by?.at ?? Infinity) < r.at, `${who} ran before its acceptance was stored`);
        const taken = [...c.stored].filter(
          ([seq, s]) => seq > (yes?.seq ?? 0) && s.at < r.at && s.token !== by?.token,
        );
        must(taken.length === 0, `${who} ran after seq ${taken[0]?.[0]} of another lease`);
        const end = logNow.find((e) => isTurnEnd(e) && e.turn === asked?.turn);
        const endAt = end === undefined ? undefined : c.stored.get(end.seq)?.at;
        must(endAt === undefined || endAt > r.at, `${who} ran after its turn's end was stored`);
      }

      // 2. The log: turns 1, 2, 3, … each ending once; each question answered at most once.
      const starts = logNow.filter((e) => e._tag === "TurnStarted").map((e) => e.turn);
      reached.turns += starts.length;
      must(
        starts.every((turn, i) => turn === i + 1),
        `TurnStarted turns are ${starts.join(", ")}`,
      );
      for (const turn of starts) {
        const ends = logNow.filter((e) => isTurnEnd(e) && e.turn === turn).length;
        must(ends === 1, `turn ${turn} has ${ends} turn ends`);
      }
      const answered = logNow.flatMap((e) => (e._tag === "ConfirmAnswered" ? [e.confirmId] : []));
      must(new Set(answered).size === answered.length, "a question was answered twice");
      reached.accepted += logNow.filter(
        (e) => e._tag === "ConfirmAnswered" && e.answer === "accepted",
      ).length;
      reached.takeovers += Math.max(
        0,
        new Set([...c.stored.values()].map((s) => s.token)).size - 1,
      );

      // 5. Usable from any host: a prompt to one is answered; a question asked through another is
      // declined through the third (which host does what turns with the runs).
      const [asker, answerer, third] = [run % N, (run + 1) % N, (run + 2) % N];
      const hello = await inTime(c.window(third).prompt("hello"), `h${third}'s prompt after`);
      must(hello._tag === "Answered", `h${third}'s prompt after the run ended ${hello._tag}`);
      const before = (await c.log()).length;
      const asking = inTime(c.window(asker).prompt("delete one more"), "the last prompt");
      asking.catch(() => undefined);
      let id: string | undefined;
      await until(async () => {
        const last = (await c.log()).slice(before).find((e) => e._tag === "ConfirmRequested");
        id = last?._tag === "ConfirmRequested" ? last.confirmId : undefined;
        return id !== undefined;
      }, HUNG_MS);
      must(id !== undefined, `h${asker}'s prompt after the run asked nothing`);
      const answer = await inTime(c.window(answerer).confirm(id as string, false), "the decline");
      must(answer._tag === "Answered", `the last question was answered ${JSON.stringify(answer)}`);
      must((await asking)._tag === "Answered", `h${asker}'s last prompt was not answered`);

      // 3. Every reader saw the stored log, once, in order (opened again where its stream ended).
      const final = await c.log();
      for (const r of readers) {
        await until(() => r.seen.length >= final.length, 5_000);
        must(r.broken.length === 0, `h${r.host}'s reader: ${r.broken.join("; ")}`);
        const told = (c.told[r.host] ?? []).map((t) => (t._tag === "Resync" ? "R" : t.seq));
        const what = `h${r.host}'s reader has other events than the log (its store told ${told.join(" ")})`;
        expect(r.seen, `${what}${ctx()}`).toEqual(final);
      }
      // 4. Nothing uncaught.
      expect(uncaught.map(String), `uncaught${ctx()}`).toEqual([]);
    } finally {
      closing = true;
      for (const r of readers) r.sub?.unsubscribe();
      await c.close();
    }
  };

  it("a delete runs once at most, on the holder after its stored acceptance; one log seen whole; usable after", {
    timeout: timeoutFor(300_000),
  }, async () => {
    const started = Date.now();
    try {
      const examples = KNOWN.map((plan): [ReadonlyArray<Op>] => [plan]);
      await fc.assert(fc.asyncProperty(plans, runOnce), { numRuns: runs(200), examples });
    } finally {
      console.log(`S2: ${reached.runs} runs in ${Date.now() - started} ms`, reached);
    }
  });
});
