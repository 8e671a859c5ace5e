/**
 * Opening a window at scale: the CPU one window costs to open and close
 * (`host.window(id, { user }).ready`, then `host.closeWindow(id, { user })`)
 * while N other windows are open in the same host, for N = 100, 1 000 and
 * 10 000. Baseline: the same at N = 100, measured in the same run.
 * Target: at 10 000 open ≤ 3× the cost at 100 open.
 *
 * Before the windows were spread over 64 supervisors, one XState parent held
 * every window and copied its children at every spawn and stop: the cost grew
 * with N (5.7 ms at 10 000 against 0.65 ms at 1 000).
 *
 * One host, its idle windows grown and shrunk between the levels in the order
 * 100, 1 000, 10 000, 1 000, 100, 1 000, 10 000, 1 000, 100, so a drift of the
 * machine over the run falls on every level alike; at each stop, rounds of
 * open+close, the heap collected before them. The figure per level is the
 * median of its rounds.
 */
import v8 from "node:v8";
import vm from "node:vm";
import { createApp, createHost, type Model } from "elyra-assistant";
import { memoryStore, responseOf } from "elyra-assistant/testing";
import type { Benchmark, BenchResult } from "./report.ts";

const TARGET_RATIO = 3;
const LEVELS = [100, 1_000, 10_000] as const;
const BASELINE = LEVELS[0];
/** The levels visited in turn: up and down twice, so each is met early and late. */
const ROUTE = [100, 1_000, 10_000, 1_000, 100, 1_000, 10_000, 1_000, 100] as const;
/** Rounds per level over the whole route, shared among its visits. */
const ROUNDS_PER_LEVEL = 24;
/** Open+close in one round. */
const PER_ROUND = 400;
/** Rounds run first and thrown away: the code compiled, the shards' supervisors made. */
const WARMUP_ROUNDS = 3;

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;
const collect = () => {
  for (let i = 0; i < 3; i++) gc();
};

const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const r2 = (value: number) => Math.round(value * 100) / 100;
const r3 = (value: number) => Math.round(value * 1000) / 1000;

interface Round {
  /** CPU (user + system, every thread of the process) per open+close, µs. */
  readonly cpuUs: number;
  /** Wall time per open+close, µs. */
  readonly wallUs: number;
}

const run = async (): Promise<BenchResult> => {
  const app = createApp({ commands: [], userAbilities: () => [], assistant: { allow: [] } });
  // A model that answers at once and keeps nothing; no turn is run here anyway.
  const answer = responseOf({ text: "Hi." });
  const model: Model = { step: async () => answer };
  const errors: string[] = [];
  const host = createHost(app, {
    model,
    store: memoryStore(),
    maxWindows: 100_000,
    onError: (error, { clientId }) => errors.push(`${clientId}: ${String(error)}`),
  });
  const user = { name: "Ada" };
  const problems: string[] = [];

  /** The idle windows held open, most recently opened last. */
  const idle: string[] = [];
  let idleMade = 0;
  const resize = async (target: number) => {
    while (idle.length < target) {
      const id = `idle-${idleMade++}`;
      idle.push(id);
      await host.window(id, { user }).ready;
    }
    while (idle.length > target) await host.closeWindow(idle.pop()!, { user });
    if (host.openWindows() !== target)
      problems.push(`${host.openWindows()} windows open, not ${target}`);
  };

  let probes = 0;
  const round = async (): Promise<Round> => {
    const cpuStart = cpuUs();
    const wallStart = performance.now();
    for (let i = 0; i < PER_ROUND; i++) {
      const id = `probe-${probes++}`;
      await host.window(id, { user }).ready;
      await host.closeWindow(id, { user });
    }
    const wallUs = (performance.now() - wallStart) * 1000;
    return { cpuUs: (cpuUs() - cpuStart) / PER_ROUND, wallUs: wallUs / PER_ROUND };
  };

  const visits = new Map<number, number>();
  for (const level of ROUTE) visits.set(level, (visits.get(level) ?? 0) + 1);
  const rounds = new Map<number, Round[]>(LEVELS.map((level) => [level, []]));
  const started = performance.now();
  try {
    await resize(BASELINE);
    for (let i = 0; i < WARMUP_ROUNDS; i++) await round();
    for (const level of ROUTE) {
      await resize(level);
      const count = Math.ceil(ROUNDS_PER_LEVEL / visits.get(level)!);
      collect();
      for (let i = 0; i < count; i++) {
        rounds.get(level)!.push(await round());
        if (host.openWindows() !== level)
          problems.push(`${host.openWindows()} windows open after a round, not ${level}`);
      }
    }
  } finally {
    await host.close();
  }
  const totalS = (performance.now() - started) / 1000;

  const figures = LEVELS.map((level) => {
    const taken = rounds.get(level)!;
    return {
      level,
      rounds: taken.length,
      cpuUs: median(taken.map((r) => r.cpuUs)),
      cpuMinUs: Math.min(...taken.map((r) => r.cpuUs)),
      cpuMaxUs: Math.max(...taken.map((r) => r.cpuUs)),
      wallUs: median(taken.map((r) => r.wallUs)),
    };
  });
  const base = figures[0]!;
  const failures = [...problems, ...errors];
  const rows = figures.map((f) => {
    const ratio = f.cpuUs / base.cpuUs;
    return {
      case: `${f.level.toLocaleString("en-US")} windows open`,
      openWindows: f.level,
      rounds: f.rounds,
      cpuUsPerOpenClose: r2(f.cpuUs),
      cpuMinUs: r2(f.cpuMinUs),
      cpuMaxUs: r2(f.cpuMaxUs),
      spreadPct: r2((100 * (f.cpuMaxUs - f.cpuMinUs)) / f.cpuUs),
      wallUsPerOpenClose: r2(f.wallUs),
      ratio: r3(ratio),
      wallRatio: r3(f.wallUs / base.wallUs),
      pass: ratio <= TARGET_RATIO && failures.length === 0,
    };
  });
  return {
    title: "opening a window at scale: open+close one window while N others are open",
    baseline: `the same open+close with ${BASELINE} windows open, in the same run`,
    target: `CPU per open+close at ${LEVELS.at(-1)!.toLocaleString("en-US")} windows open ≤ ${TARGET_RATIO}× the baseline`,
    pass: rows.every((r) => r.pass),
    headline: "cpuUsPerOpenClose",
    columns: [
      "case",
      "cpuUsPerOpenClose",
      "cpuMinUs",
      "cpuMaxUs",
      "wallUsPerOpenClose",
      "ratio",
      "wallRatio",
      "pass",
    ],
    rows,
    notes: [
      `A round: ${PER_ROUND} times, a fresh client id opened (host.window(id, { user }).ready) and ` +
        "closed (host.closeWindow(id, { user })), one after the other; its CPU is process.cpuUsage " +
        "(user + system, the collector's helper threads too, so above wall time) over the round, " +
        "divided by the open+closes. Each figure is the median of " +
        "its level's rounds (min and max beside it); ratio is the CPU against the baseline's, " +
        "wallRatio the same for wall time.",
      `One host (a memory store, no commands, a model that answers at once and keeps nothing, ` +
        "maxWindows 100 000), its idle windows opened and closed between the levels in the order " +
        `${ROUTE.map((l) => l.toLocaleString("en-US")).join(", ")}; the rounds of each level ` +
        `(${ROUNDS_PER_LEVEL} in all) shared among its visits, three forced collections before ` +
        `each visit's rounds; ${WARMUP_ROUNDS} warm-up rounds first, thrown away. ` +
        `${r2(totalS)} s in all.`,
      ...(failures.length === 0
        ? []
        : [`${failures.length} problems; the first: ${failures.slice(0, 5).join(" | ")}`]),
    ],
  };
};

export const benchmark: Benchmark = { name: "openAtScale", run };
