import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { createHost } from "elyra-assistant";
import { anthropic } from "elyra-assistant/anthropic";
import type { EventStore, LogEvent } from "elyra-assistant/log";
import { sqliteStore } from "elyra-assistant/sqlite";
import type { Benchmark, BenchResult } from "./report.ts";
import { serveStandInIfChild, startStandIn } from "./standInChild.ts";
import {
  ANSWER,
  API_KEY,
  bareLoop,
  makeApp,
  PIECES,
  PROMPT,
  scripted,
  user,
} from "./streamedTurnBare.ts";

/** The CPU each store's turn may cost, against the bare loop's. */
const TARGET_CPU_RATIO = { memory: 1.1, sqlite: 1.15 } as const;
const ROUNDS = 11;
const TURNS_PER_BATCH = 20;
const WARMUP_TURNS = 24;
// In the child: the stand-in.
await serveStandInIfChild(import.meta.url, scripted);

/** A process's CPU so far, ms, from /proc (Linux; USER_HZ 100: 10 ms ticks); null elsewhere. */
const processCpuMs = async (pid: number | undefined): Promise<number | null> => {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
};

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

/** What one pipeline turn showed its subscriber. */
interface Seen {
  readonly events: number;
  readonly textDeltas: number;
  readonly text: string;
}

/**
 * The measured side: the host over `anthropic()`, a fresh window per turn
 * (opened, loaded and subscribed before the clock starts; closed after it
 * stops), every event of `events$()` collected as a transport would.
 */
const pipeline = (url: string, store?: EventStore) => {
  const host = createHost(makeApp(), {
    model: anthropic({ baseURL: url, apiKey: API_KEY, maxRetries: 0 }),
    ...(store === undefined ? {} : { store }),
  });
  let opened = 0;
  const open = async () => {
    const w = host.window(`turn-${++opened}`, { user });
    await w.ready;
    const seen: LogEvent[] = [];
    const subscription = w.events$().subscribe((event) => seen.push(event));
    const turn = async () => {
      const end = await w.prompt({ text: PROMPT, route: "/invoices" });
      await w.settled();
      if (end._tag !== "Answered") throw new Error(`the turn ended ${end._tag}`);
    };
    const close = async (): Promise<Seen> => {
      subscription.unsubscribe();
      await w.close();
      const deltas = seen.filter((e) => e._tag === "TextDelta");
      return {
        events: seen.length,
        textDeltas: deltas.length,
        text: deltas.map((e) => (e._tag === "TextDelta" ? e.text : "")).join(""),
      };
    };
    return { turn, close };
  };
  return { open, close: host.close };
};

interface Batch {
  readonly cpuMs: number;
  readonly wallMs: number;
}

const cpuNow = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** `turns` bare turns: CPU and wall per turn. */
const runBare = async (turn: ReturnType<typeof bareLoop>, turns: number): Promise<Batch> => {
  gc();
  const cpu = cpuNow();
  const wall = performance.now();
  for (let i = 0; i < turns; i++) {
    const { text, pieces } = await turn();
    if (text !== ANSWER || pieces !== PIECES) throw new Error("the bare loop got another answer");
  }
  return { cpuMs: (cpuNow() - cpu) / turns, wallMs: (performance.now() - wall) / turns };
};

/**
 * `turns` pipeline turns: CPU and wall per turn, only the turn inside the
 * clock. The batch's windows are opened before and closed after.
 */
const runPipeline = async (
  side: ReturnType<typeof pipeline>,
  turns: number,
  seen: Seen[],
  fresh = false,
): Promise<Batch> => {
  if (fresh) return runFresh(side, turns, seen);
  const windows = [];
  for (let i = 0; i < turns; i++) windows.push(await side.open());
  gc();
  const cpu = cpuNow();
  const wall = performance.now();
  for (const w of windows) await w.turn();
  const figures = { cpuMs: (cpuNow() - cpu) / turns, wallMs: (performance.now() - wall) / turns };
  for (const w of windows) {
    const s = await w.close();
    if (s.text !== ANSWER) throw new Error("the window's deltas do not make the answer");
    seen.push(s);
  }
  return figures;
};

/**
 * `turns` first questions, each in a fresh window: its opening, its turn and
 * its closing inside the clock (what a user opening the panel to ask one
 * thing costs).
 */
const runFresh = async (
  side: ReturnType<typeof pipeline>,
  turns: number,
  seen: Seen[],
): Promise<Batch> => {
  const told: Seen[] = [];
  gc();
  const cpu = cpuNow();
  const wall = performance.now();
  for (let i = 0; i < turns; i++) {
    const w = await side.open();
    await w.turn();
    told.push(await w.close());
  }
  const figures = { cpuMs: (cpuNow() - cpu) / turns, wallMs: (performance.now() - wall) / turns };
  for (const s of told) {
    if (s.text !== ANSWER) throw new Error("the window's deltas do not make the answer");
    seen.push(s);
  }
  return figures;
};

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const r2 = (value: number) => Math.round(value * 100) / 100;
const r3 = (value: number) => Math.round(value * 1000) / 1000;

const run = async (): Promise<BenchResult> => {
  const { url, child } = await startStandIn(import.meta.url);
  const dir = mkdtempSync(join(tmpdir(), "elyra-bench-turn-"));
  const sqlite = sqliteStore(join(dir, "assistant.db"));
  const bare = bareLoop(url);
  const memory = pipeline(url);
  const onSqlite = pipeline(url, sqlite);
  const side = (name: string, on: ReturnType<typeof pipeline>, target: number, fresh: boolean) => ({
    name,
    side: on,
    target,
    fresh,
    seen: [] as Seen[],
    figures: [] as Batch[],
  });
  const sides = [
    side("memory store", memory, TARGET_CPU_RATIO.memory, false),
    side("SQLite store", onSqlite, TARGET_CPU_RATIO.sqlite, false),
    side("memory store, a fresh window", memory, TARGET_CPU_RATIO.memory, true),
    side("SQLite store, a fresh window", onSqlite, TARGET_CPU_RATIO.sqlite, true),
  ];
  const bareFigures: Batch[] = [];
  let standInBefore: number | null = null;
  let standInMsPerTurn: number | null = null;
  try {
    await runBare(bare, WARMUP_TURNS);
    for (const s of sides) await runPipeline(s.side, WARMUP_TURNS, [], s.fresh);
    standInBefore = await processCpuMs(child.pid);
    for (let round = 0; round < ROUNDS; round++) {
      // Each round measures the bare loop, then each store, or the reverse: the order alternates.
      const order = [-1, ...sides.keys()];
      if (round % 2 === 1) order.reverse();
      for (const at of order) {
        if (at < 0) bareFigures.push(await runBare(bare, TURNS_PER_BATCH));
        else {
          const s = sides[at]!;
          s.figures.push(await runPipeline(s.side, TURNS_PER_BATCH, s.seen, s.fresh));
        }
      }
    }
    const after = await processCpuMs(child.pid);
    if (standInBefore !== null && after !== null) {
      standInMsPerTurn = (after - standInBefore) / ((1 + sides.length) * ROUNDS * TURNS_PER_BATCH);
    }
  } finally {
    await memory.close();
    await onSqlite.close();
    await sqlite.close();
    rmSync(dir, { recursive: true, force: true });
    child.stdin?.end();
    await once(child, "exit");
  }
  const bareCpu = median(bareFigures.map((b) => b.cpuMs));
  const bareWall = median(bareFigures.map((b) => b.wallMs));
  const rows = sides.map(({ name, figures, seen, target }) => {
    const ratios = figures.map((p, i) => p.cpuMs / bareFigures[i]!.cpuMs);
    const wallRatios = figures.map((p, i) => p.wallMs / bareFigures[i]!.wallMs);
    const cpuRatio = median(ratios);
    return {
      case: `3 tool steps + 4 KB in 1 000 pieces, ${name}`,
      bareCpuMs: r2(bareCpu),
      pipelineCpuMs: r2(median(figures.map((p) => p.cpuMs))),
      cpuRatio: r3(cpuRatio),
      cpuRatioMin: r3(Math.min(...ratios)),
      cpuRatioMax: r3(Math.max(...ratios)),
      bareWallMs: r2(bareWall),
      pipelineWallMs: r2(median(figures.map((p) => p.wallMs))),
      wallRatio: r3(median(wallRatios)),
      eventsPerTurn: median(seen.map((s) => s.events)),
      textDeltasPerTurn: median(seen.map((s) => s.textDeltas)),
      textDeltasMin: Math.min(...seen.map((s) => s.textDeltas)),
      textDeltasMax: Math.max(...seen.map((s) => s.textDeltas)),
      target,
      pass: cpuRatio <= target,
    };
  });
  const seen = sides.flatMap((s) => s.seen);
  return {
    title: "streamed turn: 3 tool steps, a 4 KB answer in 1 000 pieces",
    baseline:
      "the bare SDK stream loop written by hand (messages.create({stream: true}), for await)",
    target: `≤ ${TARGET_CPU_RATIO.memory.toFixed(2)}× the bare loop in CPU with the memory store, ≤ ${TARGET_CPU_RATIO.sqlite.toFixed(2)}× with SQLite, in a window already open and as a first question in a fresh window`,
    pass: rows.every((r) => r.pass),
    headline: "cpuRatio",
    columns: [
      "case",
      "bareCpuMs",
      "pipelineCpuMs",
      "cpuRatio",
      "cpuRatioMin",
      "cpuRatioMax",
      "bareWallMs",
      "pipelineWallMs",
      "wallRatio",
      "target",
      "eventsPerTurn",
      "textDeltasPerTurn",
      "pass",
    ],
    rows,
    notes: [
      "A turn: 4 streamed requests to the stand-in Messages API on 127.0.0.1 (paceMs 0: each SSE " +
        "event its own write, a turn of the stand-in's event loop apart): invoices_index, " +
        "customers_show ×2, each run for real, then 4 096 characters in 1 000 text_delta pieces.",
      "The stand-in runs in a child process (node --import tsx): CPU is this process's " +
        "process.cpuUsage() user+system over a batch, the client's alone; wall is performance.now(). " +
        (standInMsPerTurn === null
          ? ""
          : `The stand-in took ${standInMsPerTurn.toFixed(1)} ms CPU a turn in its own process, ` +
            "not counted (it is the runner's 'other processes' figure, with anything else running)."),
      "bare: new Anthropic({maxRetries: 0}), messages.create({stream: true}) and for await per " +
        "step, text deltas concatenated, partial_json parsed at block stop, the command's run " +
        "called directly, the next request built by hand; the same system prompt and tools sent.",
      "pipeline: createHost(app, {model: anthropic({maxRetries: 0})}), with the memory store or " +
        "sqliteStore (a file in the temp directory, WAL, synchronous NORMAL: the defaults), one fresh " +
        "window per turn, an events$() subscriber collecting every event, await prompt() and " +
        "settled(); in a window already open, opening the window and subscribing happen before " +
        "the clock, closing after; a fresh window's opening (ready, subscribed), turn and closing " +
        "are all inside it, against the same bare turn.",
      `Medians of ${ROUNDS} rounds of ${TURNS_PER_BATCH} turns a side (bare, then each case), the order reversed each ` +
        `round, a forced GC before each batch, ${WARMUP_TURNS} warm-up turns a side first; ` +
        "cpuRatio is the median of the rounds' ratios to the bare batch of the same round, min/max beside it.",
      `eventsPerTurn: every event the subscriber saw (TurnStarted … Answered); ` +
        `textDeltasPerTurn: the TextDelta events the ${PIECES} pieces became ` +
        `(over ${seen.length} turns: ${Math.min(...seen.map((s) => s.textDeltas))}–` +
        `${Math.max(...seen.map((s) => s.textDeltas))}).`,
    ],
  };
};

export const benchmark: Benchmark = { name: "streamedTurn", run };
