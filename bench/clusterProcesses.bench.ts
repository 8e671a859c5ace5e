/**
 * Hosts in processes of their own over HTTP (decision (aj)): 60 short turns,
 * 10 at a time, each opening a window's event stream, prompting and waiting
 * for `Answered` on it, round-robin over 1, 2 and 3 host processes on one
 * PostgreSQL, against 1 host process on SQLite, in interleaved rounds of the
 * same run. Measures turns/s, each host process's CPU a turn (its own
 * `process.cpuUsage`, asked before and after), PostgreSQL's CPU a turn (its
 * processes' times from /proc), turns per CPU-second, and the statements the
 * hosts send a turn (pg's `Client.query`, counted in the children).
 * Target: 1 host on PostgreSQL ≥ 0.5× 1 host on SQLite in turns/s, and turns
 * per CPU-second that do not fall as hosts are added (3 hosts ≥ 0.9× 1).
 * Beside them, the same rounds on a pass-through (bench/clusterPassThroughChild.ts,
 * the routes without the library: one write and NOTIFY a turn) in 1–3
 * processes: how turns per CPU-second fall on this machine for any host.
 * Without PostgreSQL's binaries the bench reports itself skipped.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface, type Interface } from "node:readline";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { POSTGRES_INSTALL, postgresMissing, startPostgres } from "../examples/crm/localPostgres.ts";
import { SOURCE_NODE_ARGS } from "../spec/fixtures/sourceNode.ts";
import { type FloorRow, floor } from "./postgresFloor.ts";
import { type Benchmark, type BenchResult, median, round2 as r2 } from "./report.ts";

const TURNS = 60;
const AT_ONCE = 10;
const ROUNDS = Number(process.env.ELYRA_BENCH_ROUNDS ?? 5);
const WARMUP = Number(process.env.ELYRA_BENCH_WARMUP ?? 3);
const IDLE_MS = 3_000;
const TOKEN = "bench-token-0123456789";
/** When set, every host child runs under `--cpu-prof`, its profile written here at its end. */
const PROFILE_DIR = process.env.ELYRA_BENCH_CPU_PROF;
const CHILD = fileURLToPath(new URL("clusterProcessesChild.ts", import.meta.url));
const PASS_THROUGH = fileURLToPath(new URL("clusterPassThroughChild.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("..", import.meta.url));

type Config = {
  readonly name: string;
  readonly hosts: number;
  readonly postgres: boolean;
  /** The baseline child (bench/clusterPassThroughChild.ts) rather than the library's host. */
  readonly passThrough?: true;
};
const CONFIGS: ReadonlyArray<Config> = [
  { name: "sqlite × 1 host", hosts: 1, postgres: false },
  { name: "postgres × 1 host", hosts: 1, postgres: true },
  { name: "postgres × 2 hosts", hosts: 2, postgres: true },
  { name: "postgres × 3 hosts", hosts: 3, postgres: true },
  ...[1, 2, 3].map((hosts) => ({
    name: `pass-through × ${hosts}`,
    hosts,
    postgres: true,
    passThrough: true as const,
  })),
];
/** A count's database: each its own, so that other counts' listeners cost it nothing. */
const databaseOf = (config: Config) => `${config.passThrough ? "pass" : "hosts"}${config.hosts}`;

interface Child {
  readonly url: string;
  readonly process: ChildProcess;
  /** Its CPU so far in µs, and the statements its pg connections sent so far. */
  readonly cpu: () => Promise<{ us: number; counts: Record<string, number> }>;
}

const startChild = async (env: Record<string, string>, script = CHILD): Promise<Child> => {
  const child = spawn(
    process.execPath,
    [
      ...SOURCE_NODE_ARGS,
      ...(PROFILE_DIR === undefined ? [] : ["--cpu-prof", "--cpu-prof-dir", PROFILE_DIR]),
      script,
    ],
    { cwd: ROOT, env: { ...process.env, ...env, TOKEN }, stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines: Interface = createInterface({ input: child.stdout! });
  const waiting: Array<(line: string) => void> = [];
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`host ${env.HOST_ID} exited ${code}`)));
    lines.on("line", (line) => {
      const listening = /^listening (\S+)/.exec(line)?.[1];
      if (listening !== undefined) resolve(listening);
      else if (line.startsWith("cpu ")) waiting.shift()?.(line);
    });
  });
  return {
    url,
    process: child,
    cpu: () =>
      new Promise((resolve) => {
        waiting.push((line) => {
          const [, us, counts] = /^cpu (\d+) (.*)$/.exec(line)!;
          resolve({ us: Number(us), counts: JSON.parse(counts!) as Record<string, number> });
        });
        child.stdin!.write("cpu\n");
      }),
  };
};

const stopChild = async (child: Child) => {
  if (child.process.exitCode !== null) return;
  const exited = new Promise((resolve) => child.process.once("exit", resolve));
  child.process.stdin!.end();
  await exited;
};

/** PostgreSQL's CPU so far, in ms: the postmaster's own and its reaped children's, and its live children's. */
const postgresCpuMs = async (postmaster: number): Promise<number> => {
  const fields = async (pid: string) => {
    const text = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  };
  // After the name: [1] ppid, [11] utime, [12] stime, [13] cutime, [14] cstime (ticks of 10 ms).
  const own = await fields(String(postmaster));
  let ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(own[i] ?? 0), 0);
  for (const pid of await readdir("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const f = await fields(pid);
    if (Number(f[1]) === postmaster) ticks += Number(f[11] ?? 0) + Number(f[12] ?? 0);
  }
  return ticks * 10;
};

const headers = (client: string) => ({
  "x-elyra-token": TOKEN,
  "x-elyra-client": client,
  "content-type": "application/json",
});

/** One turn: the window's event stream opened, a prompt, `Answered` read on the stream. */
const turn = async (url: string, client: string): Promise<void> => {
  const controller = new AbortController();
  try {
    const response = await fetch(`${url}/__assistant/events`, {
      headers: headers(client),
      signal: controller.signal,
    });
    if (response.status !== 200) throw new Error(`${client}: events ${response.status}`);
    const reader = response.body!.getReader();
    const prompted = await fetch(`${url}/__assistant/prompt`, {
      method: "POST",
      headers: headers(client),
      body: JSON.stringify({ text: "Which invoices of hers are overdue?" }),
    });
    await prompted.arrayBuffer();
    if (prompted.status !== 202) throw new Error(`${client}: prompt ${prompted.status}`);
    const decoder = new TextDecoder();
    let tail = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`${client}: the stream ended before Answered`);
      tail = (tail + decoder.decode(value, { stream: true })).slice(-4_096);
      if (tail.includes('"_tag":"Answered"')) return;
      if (tail.includes('"_tag":"Failed"')) throw new Error(`${client}: the turn failed`);
    }
  } finally {
    controller.abort();
  }
};

interface Round {
  readonly turnsPerSec: number;
  readonly hostCpuMs: number;
  readonly dbCpuMs: number;
  readonly counts: Record<string, number>;
}

const runRound = async (
  config: Config,
  hosts: ReadonlyArray<Child>,
  postmaster: number,
  round: number,
): Promise<Round> => {
  const before = await Promise.all(hosts.map((h) => h.cpu()));
  const dbBefore = config.postgres ? await postgresCpuMs(postmaster) : 0;
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: AT_ONCE }, async () => {
      for (let i = next++; i < TURNS; i = next++)
        await turn(hosts[i % hosts.length]!.url, `r${round}-${config.hosts}-${i}`);
    }),
  );
  const wallMs = performance.now() - started;
  const dbAfter = config.postgres ? await postgresCpuMs(postmaster) : 0;
  const after = await Promise.all(hosts.map((h) => h.cpu()));
  const counts: Record<string, number> = {};
  after.forEach((a, h) => {
    for (const [kind, n] of Object.entries(a.counts))
      counts[kind] = (counts[kind] ?? 0) + n - (before[h]!.counts[kind] ?? 0);
  });
  const hostUs = after.reduce((sum, a, h) => sum + a.us - before[h]!.us, 0);
  return {
    turnsPerSec: (TURNS * 1000) / wallMs,
    hostCpuMs: hostUs / 1000 / TURNS,
    dbCpuMs: (dbAfter - dbBefore) / TURNS,
    counts,
  };
};

const spread = (values: ReadonlyArray<number>) =>
  `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}`;

const COLUMNS = [
  ...["case", "turnsPerSec", "ratio", "spread", "hostCpuMs", "dbCpuMs", "cpuMs"],
  ...["turnsPerCpuSec", "perCpuRatio", "vsFloor", "statements", "idleCpuMsPerSec", "wallMs"],
  "pass",
];

const run = async (): Promise<BenchResult> => {
  const title = "clusterProcesses: 1–3 host processes on one PostgreSQL over HTTP, against SQLite";
  const target =
    "postgres × 1 host ≥ 0.5× sqlite × 1 host (turns/s); turns per CPU-second not falling with hosts (≥ 0.9× of 1 host)";
  const baseline = "1 host process on SQLite, rounds interleaved in the same run";
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
  const server = await startPostgres();
  const dir = await mkdtemp(join(tmpdir(), "elyra-cluster-processes-"));
  const children: Child[] = [];
  const rounds = CONFIGS.map(() => [] as Round[]);
  const problems: string[] = [];
  let floorRows: FloorRow[] = [];
  /** Each count's host processes' CPU while idle, ms a second. */
  const idleCpu = CONFIGS.map(() => 0);
  try {
    const probe = new pg.Client({ connectionString: server.url });
    await probe.connect();
    const backend = (await probe.query("SELECT pg_backend_pid() AS pid")).rows[0].pid as number;
    // Read while the backend lives: its parent is the postmaster.
    const stat = await readFile(`/proc/${backend}/stat`, "utf8");
    // A database per host count: NOTIFY wakes every listening backend of its database, and the
    // other counts' hosts, idle meanwhile, must not add to this one's database CPU.
    for (const config of CONFIGS)
      if (config.postgres) await probe.query(`CREATE DATABASE ${databaseOf(config)}`);
    await probe.end();
    const postmaster = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const sets = await Promise.all(
      CONFIGS.map((config, c) =>
        Promise.all(
          Array.from({ length: config.hosts }, (_, h) =>
            startChild(
              {
                HOST_ID: `c${c}-h${h}`,
                ...(config.postgres
                  ? {
                      STORE: "postgres",
                      DATABASE_URL: server.urlOf(databaseOf(config)),
                      SCHEMA: "bench",
                    }
                  : { STORE: "sqlite", SQLITE_PATH: join(dir, "events.db") }),
              },
              config.passThrough ? PASS_THROUGH : CHILD,
            ).then((child) => {
              children.push(child);
              return child;
            }),
          ),
        ),
      ),
    );
    // What the host processes cost idle (timers, heartbeats), all of a count's together.
    const idleBefore = await Promise.all(sets.map((set) => Promise.all(set.map((h) => h.cpu()))));
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    for (const [c, set] of sets.entries()) {
      const after = await Promise.all(set.map((h) => h.cpu()));
      const us = after.reduce((sum, a, h) => sum + a.us - idleBefore[c]![h]!.us, 0);
      idleCpu[c] = us / 1000 / (IDLE_MS / 1000);
    }
    // Warm-up rounds, not kept: each host process runs its share of the turns until V8 has
    // compiled what a turn runs (a host of three gets a third of each round's turns).
    for (let w = 0; w < WARMUP; w++)
      for (let c = 0; c < CONFIGS.length; c++)
        await runRound(CONFIGS[c]!, sets[c]!, postmaster, -1 - w);
    for (let round = 1; round <= ROUNDS; round++)
      for (let j = 0; j < CONFIGS.length; j++) {
        const c = (j + round) % CONFIGS.length;
        rounds[c]!.push(await runRound(CONFIGS[c]!, sets[c]!, postmaster, round));
      }
    floorRows = await floor(server.urlOf("hosts1"), () => postgresCpuMs(postmaster));
  } catch (error) {
    problems.push(String(error));
  } finally {
    await Promise.all(children.map(stopChild));
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
  if (problems.length > 0)
    return { ...shape, pass: false, rows: [], notes: [`failed: ${problems.join(" | ")}`] };
  const sqlite = rounds[0]!;
  const perCpu = (r: Round) => 1000 / (r.hostCpuMs + r.dbCpuMs);
  const onePg = rounds[1]!;
  const onePass = rounds[CONFIGS.findIndex((c) => c.passThrough)]!;
  const rows = CONFIGS.map((config, c) => {
    const mine = rounds[c]!;
    const tps = mine.map((r) => r.turnsPerSec);
    const statements = Object.entries(
      mine.reduce<Record<string, number>>((all, r) => {
        for (const [k, n] of Object.entries(r.counts)) all[k] = (all[k] ?? 0) + n;
        return all;
      }, {}),
    )
      .map(([kind, n]) => [kind, n / (mine.length * TURNS)] as const)
      .filter(([, n]) => n >= 0.05)
      .sort((a, b) => b[1] - a[1]);
    const total = statements.reduce((sum, [kind, n]) => (kind.startsWith("(") ? sum : sum + n), 0);
    const ratio = median(tps.map((t, i) => t / sqlite[i]!.turnsPerSec));
    const perCpuRatio = median(
      mine.map((r, i) => perCpu(r) / perCpu((config.passThrough ? onePass : onePg)[i]!)),
    );
    // The hosts' fall ÷ the pass-through's at the same count, in the same round.
    const passAt = rounds[CONFIGS.findIndex((o) => o.passThrough && o.hosts === config.hosts)]!;
    const vsFloor = median(
      mine.map(
        (r, i) => perCpu(r) / perCpu(onePg[i]!) / (perCpu(passAt[i]!) / perCpu(onePass[i]!)),
      ),
    );
    return {
      case: config.name,
      turnsPerSec: r2(median(tps)),
      ratio: r2(ratio),
      spread: spread(tps),
      hostCpuMs: r2(median(mine.map((r) => r.hostCpuMs))),
      dbCpuMs: r2(median(mine.map((r) => r.dbCpuMs))),
      cpuMs: r2(median(mine.map((r) => r.hostCpuMs + r.dbCpuMs))),
      turnsPerCpuSec: r2(median(mine.map(perCpu))),
      perCpuRatio: config.postgres ? r2(perCpuRatio) : "",
      vsFloor: config.postgres && !config.passThrough && config.hosts > 1 ? r2(vsFloor) : "",
      statements: r2(total),
      idleCpuMsPerSec: r2(idleCpu[c]!),
      statementsByKind: statements.map(([k, n]) => `${k} ${n.toFixed(2)}`).join(", "),
      pass:
        !config.postgres ||
        config.passThrough === true ||
        (config.hosts === 1 ? ratio >= 0.5 : perCpuRatio >= 0.9),
    };
  });
  const floors = floorRows.map((f) => ({
    case: f.case,
    hostCpuMs: r2(f.hostCpuMs),
    dbCpuMs: r2(f.dbCpuMs),
    cpuMs: r2(f.hostCpuMs + f.dbCpuMs),
    wallMs: r2(f.wallMs),
    pass: true,
  }));
  return {
    ...shape,
    pass: rows.every((r) => r.pass),
    rows: [...rows, ...floors],
    notes: [
      `${TURNS} turns a round, ${AT_ONCE} at a time, turn i to host i mod n; each a window of its ` +
        "own: GET /__assistant/events, POST /prompt, read until Answered. Hosts: " +
        "bench/clusterProcessesChild.ts, one node process each (tsx, sources), model answering " +
        "at once; the client (fetch) is this process, on the same 2 cores. PostgreSQL: a " +
        "throwaway cluster (fsync off), one database per host count.",
      `${ROUNDS} rounds after ${WARMUP} warm-up round(s) of each, order turned; medians, spread min–max; ` +
        "ratio: ÷ sqlite × 1 host in the same round; hostCpuMs: all host processes' CPU a turn; " +
        "dbCpuMs: PostgreSQL's processes (/proc) a turn; turnsPerCpuSec: 1000 ÷ (host + db); " +
        "perCpuRatio: ÷ postgres × 1 host (pass-through: ÷ pass-through × 1) in the same round; idleCpuMsPerSec: the host " +
        `processes' CPU over ${IDLE_MS / 1000} s idle before the rounds, ms a second.`,
      `statements a turn (all hosts, pg round trips; "(NOTIFY heard)": notifications all hosts' LISTEN connections were told, not a round trip): ${rows
        .filter((r) => r.statements > 0)
        .map((r) => `${r.case}: ${r.statementsByKind}`)
        .join("; ")}.`,
      "pass-through × n: the baseline, bench/clusterPassThroughChild.ts in n processes on a " +
        "database of its own: the same routes without the library, one write a turn (lock, " +
        "insert, pg_notify, one round trip), every process listening: what splitting the same " +
        "turns over n processes on these 2 cores costs any host; its perCpuRatio is the floor " +
        "of the hosts' (not a target of its own). vsFloor: postgres × n's perCpuRatio ÷ " +
        "pass-through × n's, in the same round (≥ 1: the hosts fall no faster than the floor).",
      "floor rows: each store call 1 000 times one at a time in this process (after 100), its " +
        "CPU (hostCpuMs) and PostgreSQL's (dbCpuMs) a call, wallMs its latency; the host " +
        "processes idle meanwhile.",
      `Whole bench ${((performance.now() - benchStart) / 1000).toFixed(1)} s.`,
    ],
  };
};

export const benchmark: Benchmark = { name: "clusterProcesses", run };
