/**
 * The coalescer at 1 000 and 10 000 pieces/s (the targets in
 * docs/architecture.md), in real time on the system clock: pieces pushed at a
 * steady rate for 2 s, every delta and the arrival of the first piece it told
 * timed. Targets: ≤ 21 window events per second, ≤ 55 ms added latency p99,
 * ≤ 2 µs CPU per piece.
 *
 * Pacing: one piece (or the few now due) per turn of the event loop
 * (`setImmediate`), the time read with `performance.now()`; while the next
 * piece is not yet due the thread sleeps in `Atomics.wait` rather than
 * spinning, so the process's CPU is the feed's and the coalescer's, not a
 * busy loop's. The coalescer's 50 ms timer fires between the feed's turns, at
 * most one gap between pieces late, as it would between network reads.
 */
import { Coalescer } from "../src/actors/turn/coalescer.ts";
import { type Clock, systemClock } from "../src/runtime/ports/clock.ts";
import type { Benchmark, BenchResult } from "./report.ts";

const TARGET_EVENTS_PER_S = 21;
const TARGET_P99_MS = 55;
const TARGET_CPU_US = 2;
const RATES = [1_000, 10_000] as const;
const RUN_MS = 2_000;
const ROUNDS = 3;
const PIECE = "abc ";
const WARMUP_GATHERINGS = 5_000;

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Blocks the thread for `ms` (a fraction of a millisecond too) without spinning. */
const sleep = (ms: number) => void Atomics.wait(sleeper, 0, 0, ms);
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/** Where pieces go: the coalescer, or (the feed's own cost) a string. */
interface Sink {
  readonly push: (piece: string) => void;
  /** Called when the feed is over; resolves once everything is told. */
  readonly end: () => Promise<void>;
}

interface Feed {
  readonly pieces: number;
  readonly wallMs: number;
  /** process.cpuUsage over the feed and the wait for its last delta, µs. */
  readonly cpuUs: number;
  /** Arrival time of every piece (performance.now at its push). */
  readonly arrivals: Float64Array;
}

/**
 * Pushes `rate` pieces a second for `RUN_MS` into `sink`, each at the first
 * turn of the event loop at or after its due time; sleeps while none is due.
 */
const feed = async (rate: number, sink: Sink): Promise<Feed> => {
  const total = Math.round((rate * RUN_MS) / 1000);
  const arrivals = new Float64Array(total);
  const gapMs = 1000 / rate;
  await nextTurn();
  const cpu = cpuUs();
  const start = performance.now();
  let pushed = 0;
  while (pushed < total) {
    let now = performance.now();
    const dueAt = start + pushed * gapMs;
    if (dueAt > now) {
      sleep(dueAt - now);
      now = performance.now();
    }
    const due = Math.min(total, Math.floor((now - start) / gapMs) + 1);
    for (; pushed < due; pushed++) {
      arrivals[pushed] = now;
      sink.push(PIECE);
    }
    await nextTurn();
  }
  await sink.end();
  return { pieces: total, wallMs: performance.now() - start, cpuUs: cpuUs() - cpu, arrivals };
};

/** One delta: when it was told and how many pieces it carried. */
interface Delta {
  readonly at: number;
  readonly pieces: number;
}

/**
 * A coalescer on the system clock, its own work timed: each `push`, and each
 * of its timers' callbacks less the time spent in `tell` (the window's, not
 * the coalescer's). Synchronous work on this thread: its wall time is its CPU.
 */
const coalescerSink = () => {
  const deltas: Delta[] = [];
  let ownMs = 0;
  let tellMs = 0;
  const clock: Clock = {
    now: systemClock.now,
    setTimeout: (fn, ms) =>
      systemClock.setTimeout(() => {
        const from = performance.now();
        fn();
        ownMs += performance.now() - from;
      }, ms),
    clearTimeout: systemClock.clearTimeout,
  };
  const coalescer = new Coalescer(clock, (_step, text) => {
    const at = performance.now();
    deltas.push({ at, pieces: text.length / PIECE.length });
    tellMs += performance.now() - at;
  });
  const sink: Sink = {
    push: (piece) => {
      const from = performance.now();
      coalescer.push(1, piece);
      ownMs += performance.now() - from;
    },
    // The last gathering is told by its timer, as in a stream that stops.
    end: async () => {
      while (coalescer.waiting()) await new Promise((resolve) => setTimeout(resolve, 5));
    },
  };
  return { sink, deltas, ownUs: () => (ownMs - tellMs) * 1000 };
};

/** The feed alone: the same loop into a string. */
const stringSink = (): Sink => {
  let text = "";
  return {
    push: (piece) => {
      text += piece;
    },
    end: async () => {
      if (text.length === 0) throw new Error("the feed pushed nothing");
    },
  };
};

/** The timing of `performance.now()` pairs, per call pair, µs: taken off the timed pushes. */
const timerPairUs = () => {
  const n = 200_000;
  const from = performance.now();
  for (let i = 0; i < n; i++) {
    performance.now();
    performance.now();
  }
  return ((performance.now() - from) * 1000) / n;
};

const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
};
const median = (values: ReadonlyArray<number>) => quantile(values, 0.5);
const r2 = (value: number) => Math.round(value * 100) / 100;

interface RoundFigures {
  readonly eventsPerS: number;
  /** Per delta: from the arrival of the first piece it told to the delta, ms. */
  readonly deltaLatencies: number[];
  /** Per piece: from its arrival to the delta that told it, ms. */
  readonly pieceLatencies: number[];
  readonly ownUsPerPiece: number;
  /** The coalescer's own time per delta (a gathering: its actor made, timed, told, stopped), µs. */
  readonly ownUsPerDelta: number;
  readonly processUsPerPiece: number;
  readonly feedUsPerPiece: number;
  readonly piecesPerDelta: number;
}

const round = async (rate: number, coalescerFirst: boolean, pairUs: number) => {
  const measured = coalescerSink();
  const runCoalescer = () => feed(rate, measured.sink);
  const runFeed = () => feed(rate, stringSink());
  const [withCoalescer, alone] = coalescerFirst
    ? [await runCoalescer(), await runFeed()]
    : [await runFeed(), await runCoalescer()].reverse();
  const { deltas } = measured;
  const told = deltas.reduce((sum, d) => sum + d.pieces, 0);
  if (told !== withCoalescer!.pieces) throw new Error(`told ${told} of ${withCoalescer!.pieces}`);
  const arrivals = withCoalescer!.arrivals;
  const deltaLatencies: number[] = [];
  const pieceLatencies: number[] = [];
  let piece = 0;
  for (const delta of deltas) {
    deltaLatencies.push(delta.at - arrivals[piece]!);
    for (const end = piece + delta.pieces; piece < end; piece++) {
      pieceLatencies.push(delta.at - arrivals[piece]!);
    }
  }
  const first = arrivals[0]!;
  const last = deltas.at(-1)!.at;
  const pieces = withCoalescer!.pieces;
  const figures: RoundFigures = {
    eventsPerS: deltas.length / ((last - first) / 1000),
    deltaLatencies,
    pieceLatencies,
    // The timed pushes carry a performance.now() pair each; that pair is the harness's.
    ownUsPerPiece: measured.ownUs() / pieces - pairUs,
    ownUsPerDelta: (measured.ownUs() - pairUs * pieces) / deltas.length,
    processUsPerPiece: withCoalescer!.cpuUs / pieces,
    feedUsPerPiece: alone!.cpuUs / pieces,
    piecesPerDelta: pieces / deltas.length,
  };
  return figures;
};

/**
 * Compiles the coalescer's code (and xstate's) before the clock runs, as a
 * process serving windows has it: gatherings told at once by `flush`.
 */
const warmUp = () => {
  const coalescer = new Coalescer(systemClock, () => {});
  for (let i = 0; i < WARMUP_GATHERINGS; i++) {
    for (let j = 0; j < 10; j++) coalescer.push(1, PIECE);
    coalescer.flush();
  }
};

const run = async (): Promise<BenchResult> => {
  const pairUs = timerPairUs();
  warmUp();
  const rows = [];
  for (const rate of RATES) {
    const rounds: RoundFigures[] = [];
    for (let i = 0; i < ROUNDS; i++) rounds.push(await round(rate, i % 2 === 0, pairUs));
    const eventsPerS = median(rounds.map((r) => r.eventsPerS));
    const deltaP99 = quantile(
      rounds.flatMap((r) => r.deltaLatencies),
      0.99,
    );
    const piecesP99 = quantile(
      rounds.flatMap((r) => r.pieceLatencies),
      0.99,
    );
    const ownUs = median(rounds.map((r) => r.ownUsPerPiece));
    const processUs = median(rounds.map((r) => r.processUsPerPiece));
    const feedUs = median(rounds.map((r) => r.feedUsPerPiece));
    const addedUs = median(rounds.map((r) => r.processUsPerPiece - r.feedUsPerPiece));
    rows.push({
      case: `${rate.toLocaleString("en-US")} pieces/s`,
      eventsPerS: r2(eventsPerS),
      piecesPerEvent: r2(median(rounds.map((r) => r.piecesPerDelta))),
      latencyP99Ms: r2(deltaP99),
      latencyMaxMs: r2(Math.max(...rounds.flatMap((r) => r.deltaLatencies))),
      pieceLatencyP99Ms: r2(piecesP99),
      cpuUsPerPiece: r2(ownUs),
      cpuUsPerEvent: r2(median(rounds.map((r) => r.ownUsPerDelta))),
      processCpuUsPerPiece: r2(processUs),
      feedCpuUsPerPiece: r2(feedUs),
      processLessFeedUs: r2(addedUs),
      pass:
        eventsPerS <= TARGET_EVENTS_PER_S && deltaP99 <= TARGET_P99_MS && ownUs <= TARGET_CPU_US,
    });
  }
  return {
    title: "coalescer at 1 000 and 10 000 pieces/s",
    baseline: "— (the feed alone, pushing into a string, beside it for the CPU)",
    target: `≤ ${TARGET_EVENTS_PER_S} window events/s; ≤ ${TARGET_P99_MS} ms added latency p99; ≤ ${TARGET_CPU_US} µs CPU per piece`,
    pass: rows.every((r) => r.pass),
    headline: "cpuUsPerPiece",
    columns: [
      "case",
      "eventsPerS",
      "piecesPerEvent",
      "latencyP99Ms",
      "latencyMaxMs",
      "pieceLatencyP99Ms",
      "cpuUsPerPiece",
      "cpuUsPerEvent",
      "processCpuUsPerPiece",
      "feedCpuUsPerPiece",
      "processLessFeedUs",
      "pass",
    ],
    rows,
    notes: [
      `A Coalescer on systemClock, real time: "${PIECE}" pieces of one step pushed at the rate for ` +
        `${RUN_MS / 1000} s, ${ROUNDS} rounds a rate; each delta's time and the arrival of the first ` +
        "piece it told recorded (performance.now).",
      "Pacing: setImmediate turns, performance.now() for time, every piece due pushed at once; " +
        "while none is due the thread sleeps in Atomics.wait (no busy loop), so the 50 ms timer " +
        "fires between turns, at most one gap (1 ms, 0.1 ms) late.",
      "eventsPerS: deltas / (last delta − first piece). latencyP99Ms: p99 over all deltas of the " +
        "delta's time − its first piece's arrival (the longest any piece of it waited); " +
        "pieceLatencyP99Ms: p99 over every piece.",
      "cpuUsPerPiece (the target): the coalescer's own time per piece, every push and every " +
        "timer callback of its clock timed with performance.now() (synchronous on this thread: " +
        `wall = CPU), less the tell callback and the timing pair (${pairUs.toFixed(3)} µs) — medians of the rounds; ` +
        "cpuUsPerEvent: the same time per delta. The coalescer's code is compiled first " +
        `(${WARMUP_GATHERINGS.toLocaleString("en-US")} gatherings told by flush).`,
      "processCpuUsPerPiece: process.cpuUsage() user+system over the run / pieces, the feed loop " +
        "included; feedCpuUsPerPiece: the same loop pushing into a string, alternated with it; " +
        "processLessFeedUs: their difference per round, median (a cross-check, noisy: at 1 000/s it is a few ms of CPU in a 2 s run).",
    ],
  };
};

export const benchmark: Benchmark = { name: "coalescer", run };
