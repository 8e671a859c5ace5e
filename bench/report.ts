/**
 * What a benchmark module gives the runner, and the figures taken from a
 * tinybench task. Every `*.bench.ts` in bench/ exports a `benchmark`.
 */
import type { Task } from "tinybench";

/** One row of a benchmark's table and of its entry in results.json. */
export type Row = Readonly<Record<string, string | number | boolean>>;

/**
 * What one benchmark measured, against its baseline and its target (the
 * targets in docs/architecture.md).
 */
export interface BenchResult {
  /** The benchmark as the targets in docs/architecture.md name it. */
  readonly title: string;
  /** What the baseline, measured in the same run, is. */
  readonly baseline: string;
  /** The target, in the words of the targets in docs/architecture.md. */
  readonly target: string;
  /** Whether every row meets the target. */
  readonly pass: boolean;
  /** The column compared against the previous stored run, when there is one. */
  readonly headline: string;
  /** The columns the table shows, in order (results.json keeps every field). */
  readonly columns: ReadonlyArray<string>;
  /** One row per case; `case` names it. */
  readonly rows: ReadonlyArray<Row & { readonly case: string }>;
  /** Anything the figures need said beside them. */
  readonly notes: ReadonlyArray<string>;
}

/** A benchmark module's export: its key in results.json (and on the command line) and its run. */
export interface Benchmark {
  readonly name: string;
  readonly run: () => Promise<BenchResult>;
}

/** Per-call figures of a finished task, in µs. */
export interface PerCall {
  readonly meanUs: number;
  readonly p50Us: number;
  readonly p99Us: number;
  readonly samples: number;
  /** The relative margin of error of the mean, in percent. */
  readonly rme: number;
}

/** The per-call figures of a task that ran to completion; anything else is an error. */
export const perCall = (task: Task): PerCall => {
  const result = task.result;
  if (result.state === "errored") throw result.error;
  if (result.state !== "completed") throw new Error(`${task.name}: ${result.state}`);
  const { latency } = result;
  return {
    meanUs: latency.mean * 1000,
    p50Us: latency.p50 * 1000,
    p99Us: latency.p99 * 1000,
    samples: latency.samplesCount,
    rme: latency.rme,
  };
};

/** Rounds for the table and the stored figures: µs to hundredths. */
/** The middle of `values` (the mean of the two middle ones for an even count; 0 for none). */
export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? 0)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

export const round2 = (value: number): number => Math.round(value * 100) / 100;
