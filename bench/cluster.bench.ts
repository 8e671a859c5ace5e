/**
 * Hosts sharing one PostgreSQL database (decision (aj)): turns per second and
 * prompt-to-end latency with 1, 2 and 3 hosts (each prompt to a random host;
 * each host its own postgresStore and hostId, in this process), against 1 host
 * on the same database and on memoryStore; and the rebuild of a 1 000-turn
 * conversation from Postgres on a fresh host, against sqliteStore and memory.
 * Target: rebuild ≤ 100 ms (median); no error in any host, every turn answered.
 * Without PostgreSQL's binaries the bench reports itself skipped.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp, createHost, type Host, type Model } from "elyra-assistant";
import type { EventStore } from "elyra-assistant/log";
import { type PostgresStore, postgresStore } from "elyra-assistant/postgres";
import { sqliteStore } from "elyra-assistant/sqlite";
import { memoryStore, responseOf, wordsOf } from "elyra-assistant/testing";
import {
  POSTGRES_INSTALL,
  type PostgresServer,
  postgresMissing,
  startPostgres,
} from "../examples/crm/localPostgres.ts";
import { spyCommands, type TestUser } from "../spec/fixtures/spyCommands.ts";
import { STREAM_PREFIX } from "../src/actors/log/windowLog.ts";
import type { NewEvent } from "../src/runtime/log/events.ts";
import { turnEvents } from "./rebuild.bench.ts";
import type { Benchmark, BenchResult, Row } from "./report.ts";

const WINDOWS = 30;
const TURNS = 4;
const ROUNDS = 5;
const LEASE_MS = 5_000;
const HEARTBEAT_MS = 1_000;
const SLOW_MS = 500;
const REBUILD_TURNS = 1_000;
const REBUILD_SAMPLES = 11;
const REBUILD_WARMUP = 2;
const REBUILD_CLIENT = "rebuild-1000";
const REBUILD_STREAM = `${STREAM_PREFIX}${REBUILD_CLIENT}`;
const TARGET_REBUILD_MS = 100;
const ANSWER = "Ada Lovelace owes 1 200 euros on two overdue invoices.";
const WORDS = wordsOf(ANSWER);
/** Ada's key as createHost's default userKey makes it: the owner a rebuilt log must name. */
const OWNER = "name:Ada";

const user: TestUser = { name: "Ada", abilities: ["customers.*", "invoices.view"] };
const app = createApp({
  commands: spyCommands().commands,
  userAbilities: (u) => (u as TestUser).abilities,
  assistant: { allow: ["customers.*", "invoices.view"], confirm: ["customers.delete"] },
});

/** Which host's model answered each prompt, by the tag the prompt carries. */
const ranOn = new Map<string, number>();

/** fakeModel's responses with no finite script: each step answers at once, a word at a time. */
const answeringModel = (hostIndex: number, answer = responseOf({ text: ANSWER })): Model => ({
  step: async (request, { onText }) => {
    const tag = /\[(w\d+ t\d+)\]/.exec(JSON.stringify(request.messages.at(-1)))?.[1];
    if (tag !== undefined) ranOn.set(tag, hostIndex);
    for (const word of WORDS) onText?.(word);
    return answer;
  },
});

/** Store calls made through a {@link counted} store; fullReads: of a whole stream (from seq 0). */
type Calls = { appends: number; reads: number; fullReads: number };
const noCalls = (): Calls => ({ appends: 0, reads: 0, fullReads: 0 });

/** The store with its appends and reads counted; everything else (changes, leases) as it is. */
const counted = (store: EventStore, calls: Calls): EventStore => ({
  ...store,
  append: (...args) => {
    calls.appends++;
    return store.append(...args);
  },
  read: (stream, fromSeq, toSeq) => {
    calls.reads++;
    if ((fromSeq ?? 0) <= 0) calls.fullReads++;
    return store.read(stream, fromSeq, toSeq);
  },
});

const CONFIGS: ReadonlyArray<{ name: string; hosts: number; postgres: boolean }> = [
  { name: "memoryStore × 1 host", hosts: 1, postgres: false },
  { name: "postgres × 1 host", hosts: 1, postgres: true },
  { name: "postgres × 2 hosts", hosts: 2, postgres: true },
  { name: "postgres × 3 hosts", hosts: 3, postgres: true },
];

type Round = Awaited<ReturnType<typeof runRound>>;

/** A seeded generator (mulberry32): every configuration sees the same draws in a round. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

/** One round of the workload on fresh hosts, stores and windows; only the turns are timed. */
const runRound = async (config: (typeof CONFIGS)[number], url: string, round: number) => {
  const id = `r${round}-${config.hosts}${config.postgres ? "pg" : "mem"}`;
  const r = { latencies: [] as number[], problems: [] as string[], calls: noCalls() };
  // Turns 2…T run on the host of the turn before, and on another (the lease moved).
  const [stay, moved]: [number[], number[]] = [[], []];
  /** Prompts slower than SLOW_MS: which, asked where, run where, the turn before where. */
  const slow: string[] = [];
  const raw: EventStore[] = config.postgres
    ? Array.from({ length: config.hosts }, () =>
        postgresStore(url, { schema: "bench", leaseMs: LEASE_MS, heartbeatMs: HEARTBEAT_MS }),
      )
    : [memoryStore()];
  await Promise.all(raw.map((s) => (s as Partial<PostgresStore>).ready?.()));
  const calls = noCalls();
  const stores = raw.map((s) => counted(s, calls));
  const hosts: Host[] = stores.map((store, i) =>
    createHost(app, {
      model: answeringModel(i),
      store,
      hostId: `${id}-h${i}`,
      onError: (error) => r.problems.push(`onError h${i}: ${String(error)}`),
    }),
  );
  const clientIds = Array.from({ length: WINDOWS }, (_, k) => `${id}-w${k}`);
  const windows = hosts.map((host) => clientIds.map((c) => host.window(c, { user })));
  await Promise.all(windows.flat().map((w) => w.ready));
  const random = seeded(round + 1);
  const picks = clientIds.map(() =>
    Array.from({ length: TURNS }, () => Math.floor(random() * hosts.length)),
  );
  let routed = 0;
  const before = { ...calls };
  const started = performance.now();
  await Promise.all(
    clientIds.map(async (_, k) => {
      let last: number | undefined;
      for (let t = 0; t < TURNS; t++) {
        const h = picks[k]![t]!;
        const tag = `w${k} t${t}`;
        const sent = performance.now();
        try {
          const end = await windows[h]![k]!.prompt({
            text: `[${tag}] Which invoices of hers are overdue?`,
            route: "/customers/42",
          });
          const ms = performance.now() - sent;
          r.latencies.push(ms);
          if (end._tag !== "Answered") r.problems.push(`${tag} on h${h}: ended ${end._tag}`);
          const runner = ranOn.get(tag);
          if (runner !== h) routed++;
          if (last !== undefined) (runner === last ? stay : moved).push(ms);
          const where = `asked h${h} ran h${runner} before h${last}`;
          if (ms > SLOW_MS) slow.push(`${id} ${tag} ${ms.toFixed(0)} ms ${where}`);
          last = runner;
        } catch (error) {
          r.problems.push(`${tag} on h${h}: prompt refused: ${String(error)}`);
        }
      }
    }),
  );
  const wallMs = performance.now() - started;
  // Every host's windows settled, then each log checked: T turns, numbered 1…T, each answered.
  await Promise.all(windows.flat().map((w) => w.settled()));
  for (const key of ["appends", "reads", "fullReads"] as const)
    r.calls[key] = calls[key] - before[key];
  for (const clientId of clientIds) {
    const log = await stores[0]!.read(`${STREAM_PREFIX}${clientId}`);
    const turns = log.flatMap((e) => (e._tag === "TurnStarted" ? [e.turn] : [])).join();
    const answered = log.filter((e) => e._tag === "Answered").length;
    if (turns !== Array.from({ length: TURNS }, (_, i) => i + 1).join() || answered !== TURNS)
      r.problems.push(`${clientId}: log has turns [${turns}], ${answered} answered`);
  }
  ranOn.clear();
  await Promise.all(hosts.map((h) => h.close()));
  await Promise.all(raw.map((s) => (s as Partial<PostgresStore>).close?.()));
  // Turns run on another host than the one asked: routed to the holder.
  return { ...r, stay, moved, slow, routed, turnsPerSec: (WINDOWS * TURNS * 1000) / wallMs };
};

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
/** The 99th percentile (nearest rank) of latencies of rounds. */
const p99Of = (rs: ReadonlyArray<{ latencies: number[] }>): number => {
  const sorted = rs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(0.99 * sorted.length) - 1)] ?? Number.NaN;
};
const r2 = (value: number) => Math.round(value * 100) / 100;
const spread = (values: ReadonlyArray<number>, digits = 1) =>
  `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
const mean = (values: ReadonlyArray<number>) =>
  values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

/** Writes the 1 000-turn log: its owner, then 50 turns per append. */
const writeLog = async (store: EventStore, stream: string): Promise<number> => {
  const owned: NewEvent = { _tag: "WindowOwned", at: 1, turn: 0, owner: OWNER };
  let seq = (await store.append(stream, [owned], 0)).length;
  for (let from = 1; from <= REBUILD_TURNS; from += 50) {
    const events: NewEvent[] = [];
    for (let turn = from; turn < from + 50; turn++)
      events.push(...turnEvents(turn, 1_700_000_000_000 + turn * 60_000));
    seq = (await store.append(stream, events, seq)).at(-1)!.seq;
  }
  return seq;
};

/** One rebuild: a fresh host on `store` opens the window until ready and settled. */
const openOnFreshHost = async (store: EventStore, hostId: string, problems: string[]) => {
  const host = createHost(app, {
    model: answeringModel(0),
    store,
    hostId,
    onError: (error) => problems.push(`rebuild onError: ${String(error)}`),
  });
  const started = performance.now();
  const w = host.window(REBUILD_CLIENT, { user });
  await w.ready;
  await w.settled();
  const took = performance.now() - started;
  const rebuilt = { seq: w.lastSeq(), turn: w.context().turn, failed: w.failed() };
  await host.close();
  return { took, rebuilt };
};

/** Only `store.read` of the whole stream, no host: the store's share of a rebuild. */
const bareRead = async (store: EventStore) => {
  const started = performance.now();
  const log = await store.read(REBUILD_STREAM);
  const took = performance.now() - started;
  return { took, rebuilt: { seq: log.at(-1)?.seq ?? 0, turn: REBUILD_TURNS, failed: false } };
};

/** Rebuild figures: ms per sample of each case, samples interleaved, the order turned each time. */
const rebuilds = async (pg: PostgresServer, problems: string[]) => {
  const dir = await mkdtemp(join(tmpdir(), "elyra-cluster-"));
  const shared = postgresStore(pg.url, { schema: "rebuild" });
  const sqlite = sqliteStore(join(dir, "events.db"));
  // A plain memory store drops a log when its window closes: this one keeps it for the next host.
  const memory: EventStore = { ...memoryStore(), drop: async () => {} };
  try {
    const [events] = await Promise.all(
      [shared, sqlite, memory].map((s) => writeLog(s, REBUILD_STREAM)),
    );
    const open = (store: EventStore) => async () => ({ store, done: async () => {} });
    const fresh = async (): ReturnType<ReturnType<typeof open>> => {
      const store = postgresStore(pg.url, { schema: "rebuild" });
      return { store, done: () => store.close() };
    };
    const cases: Array<{ name: string; store: ReturnType<typeof open>; bare?: true }> = [
      { name: "sqliteStore", store: open(sqlite) },
      { name: "memoryStore", store: open(memory) },
      { name: "postgresStore", store: open(shared) },
      { name: "postgresStore, new store", store: fresh },
      { name: "postgresStore.read only", store: open(shared), bare: true },
    ];
    const ms = cases.map(() => [] as number[]);
    const fullReads = cases.map(() => [] as number[]);
    for (let sample = 0; sample < REBUILD_WARMUP + REBUILD_SAMPLES; sample++) {
      for (let j = 0; j < cases.length; j++) {
        const i = (j + sample) % cases.length;
        const c = cases[i]!;
        const { store, done } = await c.store();
        const calls = noCalls();
        const measure = c.bare === true ? bareRead : openOnFreshHost;
        const { took, rebuilt } = await measure(counted(store, calls), `rb-${sample}`, problems);
        await done();
        if (rebuilt.seq !== events! || rebuilt.turn !== REBUILD_TURNS || rebuilt.failed)
          problems.push(`rebuild ${c.name}: rebuilt ${JSON.stringify(rebuilt)}`);
        if (sample < REBUILD_WARMUP) continue;
        ms[i]!.push(took);
        fullReads[i]!.push(calls.fullReads);
      }
    }
    const found = cases.map((c, i) => ({ name: c.name, ms: ms[i]!, fullReads: fullReads[i]! }));
    return { cases: found, events: events! };
  } finally {
    await shared.close();
    await sqlite.close();
    await rm(dir, { recursive: true, force: true });
  }
};

const COLUMNS = [
  ...["case", "turnsPerSec", "rebuildMs", "ratio", "spread", "p50Ms", "p99Ms", "p99Ratio"],
  ...["p99Spread", "addedP99Ms", "maxMs", "stayP50Ms", "movedP50Ms", "movedPct", "routedPct"],
  ...["reads", "errors", "pass"],
];

const run = async (): Promise<BenchResult> => {
  const title = "cluster: 1–3 hosts on one PostgreSQL; rebuild of 1 000 turns from Postgres";
  const target = `rebuild ≤ ${TARGET_REBUILD_MS} ms (median); no host error, every turn answered`;
  const baseline = "1 host on the same database and memoryStore (turns); sqliteStore (rebuild)";
  const shape = { title, baseline, target, headline: "ratio", columns: COLUMNS };
  if (postgresMissing !== null)
    return {
      ...shape,
      title: `${title} (skipped)`,
      columns: ["case"],
      pass: true,
      rows: [],
      notes: [`skipped: ${postgresMissing}; install it with: ${POSTGRES_INSTALL}`],
    };
  const benchStart = performance.now();
  const pg = await startPostgres();
  const problems: string[] = [];
  const rounds = CONFIGS.map(() => [] as Round[]);
  let rebuilt: Awaited<ReturnType<typeof rebuilds>>;
  try {
    for (const config of CONFIGS) await runRound(config, pg.url, 0); // warm-up, not kept
    for (let round = 1; round <= ROUNDS; round++)
      for (let j = 0; j < CONFIGS.length; j++) {
        const i = (j + round) % CONFIGS.length;
        rounds[i]!.push(await runRound(CONFIGS[i]!, pg.url, round));
      }
    rebuilt = await rebuilds(pg, problems);
  } finally {
    await pg.stop();
  }
  const base = rounds[1]!;
  const memoryP99 = p99Of(rounds[0]!);
  const turnRows = CONFIGS.map((config, c) => {
    const mine = rounds[c]!;
    const all = mine.flatMap((r) => r.latencies);
    const p99s = mine.map((r) => p99Of([r]));
    const errors = mine.flatMap((r) => r.problems);
    problems.push(...errors.map((e) => `${config.name}: ${e}`));
    const pct = (n: number) => r2((100 * n) / Math.max(1, all.length));
    const tps = mine.map((r) => r.turnsPerSec);
    return {
      case: config.name,
      turnsPerSec: r2(median(tps)),
      ratio: r2(median(tps.map((t, i) => t / base[i]!.turnsPerSec))),
      spread: spread(tps, 0),
      p50Ms: r2(median(all)),
      p99Ms: r2(p99Of(mine)),
      p99Ratio: r2(median(p99s.map((p, i) => p / p99Of([base[i]!])))),
      p99Spread: spread(p99s),
      addedP99Ms: r2(p99Of(mine) - memoryP99),
      maxMs: r2(Math.max(...all)),
      stayP50Ms: r2(median(mine.flatMap((r) => r.stay))),
      movedP50Ms: config.hosts === 1 ? "" : r2(median(mine.flatMap((r) => r.moved))),
      movedPct: pct(mine.reduce((n, r) => n + r.moved.length, 0)),
      routedPct: pct(mine.reduce((n, r) => n + r.routed, 0)),
      reads: r2(mean(mine.map((r) => r.calls.reads / (WINDOWS * TURNS)))),
      errors: errors.length,
      pass: errors.length === 0 && all.length === ROUNDS * WINDOWS * TURNS,
    } satisfies Row & { case: string };
  });
  const appendsPerTurn = mean(base.map((r) => r.calls.appends / (WINDOWS * TURNS)));
  const sqliteMs = rebuilt.cases[0]!.ms;
  const rebuildRows = rebuilt.cases.map((c) => ({
    case: `rebuild: ${c.name}`,
    rebuildMs: r2(median(c.ms)),
    ratio: r2(median(c.ms.map((m, i) => m / sqliteMs[i]!))),
    spread: spread(c.ms),
    reads: r2(mean(c.fullReads)),
    errors: problems.filter((p) => p.startsWith(`rebuild ${c.name}:`)).length,
    pass: !c.name.startsWith("postgres") || median(c.ms) <= TARGET_REBUILD_MS,
  }));
  const rows = [...turnRows, ...rebuildRows];
  const slow = rounds.flat().flatMap((r) => r.slow);
  const distinct = [...new Set(problems)];
  return {
    ...shape,
    pass: rows.every((r) => r.pass) && problems.length === 0,
    rows,
    notes: [
      `Turns: ${WINDOWS} windows × ${TURNS} short turns, windows at once, a window's turns in ` +
        "turn, each prompt to a random host (seeded). Model in-process: fakeModel's responses " +
        "(responseOf/wordsOf), no finite script, answering at once (the stand-in Messages API " +
        "in a child would add its HTTP/SSE CPU to the same 2 cores).",
      "Hosts in this process (one event loop: more hosts add coordination, not CPU), each on " +
        `its own postgresStore (pool, LISTEN connection), own hostId, leaseMs ${LEASE_MS}, ` +
        `heartbeatMs ${HEARTBEAT_MS}; every window opened on every host before the clock; all ` +
        `fresh each round. ${ROUNDS} rounds after a warm-up round of each, order turned.`,
      "turnsPerSec: median of rounds, spread min–max; ratio: ÷ postgres × 1 host, same round. " +
        "p50/p99/max over all rounds' prompt-to-end latencies; p99Spread: the rounds' p99s; " +
        "addedP99Ms: − memoryStore's p99. stayP50Ms/movedP50Ms: turns 2…T on the host of the " +
        "turn before / on another (lease moved), movedPct their share; routedPct: run on another " +
        `host than asked. reads: store reads per turn (appends: ${r2(appendsPerTurn)}).`,
      `Rebuild: ${rebuilt.events} events (${REBUILD_TURNS} turns × 13 + WindowOwned) appended ` +
        "50 turns at a time; a fresh host on the open store ('new store': a new postgresStore) " +
        `opens the window until ready and settled(); ${REBUILD_SAMPLES} samples after ` +
        `${REBUILD_WARMUP} warm-up, interleaved; median, spread min–max, ratio ÷ sqliteStore ` +
        "in the same sample; reads: whole-log reads per open. Postgres: a throwaway cluster, " +
        `fsync off. Whole bench ${((performance.now() - benchStart) / 1000).toFixed(1)} s.`,
      `Prompts over ${SLOW_MS} ms: ${slow.length}${slow.length === 0 ? "" : ` (${slow.slice(0, 5).join("; ")})`}.`,
      distinct.length === 0
        ? "No host onError, no refused prompt, every log whole."
        : `${problems.length} problems: ${distinct.slice(0, 6).join(" | ")}`,
    ],
  };
};

export const benchmark: Benchmark = { name: "cluster", run };
