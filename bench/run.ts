/**
 * The bench runner: `npm run bench` runs every `*.bench.ts` in bench/;
 * `npm run bench -- callPath` runs the ones named. Each prints its table, and
 * its entry in bench/results.json is replaced; other entries are kept, so the
 * file gathers every benchmark's latest run. Each waits for a quiet machine
 * first (up to BENCH_QUIET_WAIT_S seconds, 20 by default) and is run again
 * when other processes were busy before and during it (BENCH_REPEATS, 1 by
 * default), the quietest run kept.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { othersCpu, waitForQuiet } from "./machineLoad.ts";
import type { Benchmark, BenchResult, Row } from "./report.ts";

const here = new URL(".", import.meta.url);
const resultsFile = fileURLToPath(new URL("results.json", here));

type Stored = Omit<BenchResult, "columns"> & {
  readonly node: string;
  readonly cpu: string;
  readonly cores: number;
  readonly date: string;
  /** The share of the machine's CPU other processes used during the run, when known (Linux). */
  readonly othersCpuPct: number | null;
  /** The share other processes used in the second before the run, with nothing of the bench running. */
  readonly busyBeforePct: number | null;
  /** How many times the bench ran: more than once when the machine was busy (the quietest run kept). */
  readonly runs: number;
};

const load = async (): Promise<Map<string, Benchmark>> => {
  const files = (await readdir(here)).filter((file) => file.endsWith(".bench.ts")).sort();
  const found = new Map<string, Benchmark>();
  for (const file of files) {
    const module = (await import(new URL(file, here).href)) as { benchmark?: Benchmark };
    if (module.benchmark === undefined) throw new Error(`${file} exports no benchmark`);
    found.set(module.benchmark.name, module.benchmark);
  }
  return found;
};

const readStored = async (): Promise<Record<string, Stored>> => {
  try {
    return JSON.parse(await readFile(resultsFile, "utf8")) as Record<string, Stored>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw error;
  }
};

const OTHERS_CPU_WARN_PCT = 5;
/** Other processes' share of the CPU, before a run, under which the machine counts as quiet. */
const QUIET_PCT = 10;
/** How long to wait for a quiet machine before running anyway, seconds. */
const QUIET_WAIT_S = Number(process.env.BENCH_QUIET_WAIT_S ?? 20);
/** How many more runs a busy machine gets. */
const REPEATS = Number(process.env.BENCH_REPEATS ?? 1);

const cell = (value: Row[string] | undefined): string =>
  value === undefined ? "" : typeof value === "number" ? value.toFixed(2) : String(value);

const table = (result: BenchResult, previous: Stored | undefined): string => {
  const columns = [...result.columns];
  const before = new Map(previous?.rows.map((r) => [r.case, r[result.headline]]));
  const hasBefore = result.rows.some((r) => before.get(r.case) !== undefined);
  if (hasBefore) columns.push(`last ${result.headline}`);
  const lines = result.rows.map((r) => [
    ...result.columns.map((c) => cell(r[c])),
    ...(hasBefore ? [cell(before.get(r.case))] : []),
  ]);
  const widths = columns.map((c, i) => Math.max(c.length, ...lines.map((l) => l[i]?.length ?? 0)));
  const format = (cells: ReadonlyArray<string>) =>
    cells
      .map((text, i) => (i === 0 ? text.padEnd(widths[i]!) : text.padStart(widths[i]!)))
      .join("  ");
  return [format(columns), format(widths.map((w) => "-".repeat(w))), ...lines.map(format)].join(
    "\n",
  );
};

const main = async () => {
  const available = await load();
  const asked = process.argv.slice(2);
  const unknown = asked.filter((name) => !available.has(name));
  if (unknown.length > 0) {
    console.error(
      `no benchmark ${unknown.join(", ")}; there are: ${[...available.keys()].join(", ")}`,
    );
    process.exitCode = 2;
    return;
  }
  const chosen = asked.length > 0 ? asked : [...available.keys()];
  const env = {
    node: process.version,
    cpu: cpus()[0]?.model.trim() ?? "unknown",
    cores: cpus().length,
  };
  console.log(`node ${env.node}, ${env.cpu} × ${env.cores}`);
  let failed = false;
  for (const name of chosen) {
    // A quiet machine first; when it was busy before and during the run, the run is made again
    // (BENCH_REPEATS times, 1 by default) and the quietest kept.
    let best: { result: BenchResult; othersCpuPct: number | null; busyBeforePct: number | null };
    let runs = 0;
    for (;;) {
      const busyBeforePct = await waitForQuiet(QUIET_PCT, QUIET_WAIT_S);
      const others = await othersCpu();
      const result = await available.get(name)!.run();
      const othersCpuPct = await others.stop();
      runs++;
      const quieter = runs === 1 || (othersCpuPct ?? 0) < (best!.othersCpuPct ?? 0);
      if (quieter) best = { result, othersCpuPct, busyBeforePct };
      const busy =
        othersCpuPct !== null &&
        othersCpuPct > OTHERS_CPU_WARN_PCT &&
        busyBeforePct !== null &&
        busyBeforePct > QUIET_PCT;
      if (!busy || runs > REPEATS) break;
      console.log(
        `\n${name}: other processes took ${busyBeforePct}% of the CPU before the run and ${othersCpuPct}% during it: run again`,
      );
    }
    const { result, othersCpuPct, busyBeforePct } = best!;
    // Read again for each, so a file written meanwhile by another run is merged, not lost.
    const stored = await readStored();
    console.log(
      `\n${name}: ${result.title}\n  baseline: ${result.baseline}\n  target: ${result.target}\n`,
    );
    console.log(table(result, stored[name]));
    for (const note of result.notes) console.log(`  · ${note}`);
    if (othersCpuPct !== null && othersCpuPct > OTHERS_CPU_WARN_PCT) {
      console.log(
        `  other processes took ${othersCpuPct}% of the CPU meanwhile: figures may be high`,
      );
    }
    if (busyBeforePct !== null && busyBeforePct > QUIET_PCT) {
      console.log(
        `  the machine was busy before the run (${busyBeforePct}% taken by other processes), ${runs} run(s)`,
      );
    }
    console.log(result.pass ? "  PASS" : "  FAIL: a case misses the target");
    failed ||= !result.pass;
    const { columns: _columns, ...figures } = result;
    const next = {
      ...stored,
      [name]: {
        ...figures,
        ...env,
        date: new Date().toISOString(),
        othersCpuPct,
        busyBeforePct,
        runs,
      },
    };
    const sorted = Object.fromEntries(Object.entries(next).sort(([a], [b]) => a.localeCompare(b)));
    await writeFile(resultsFile, `${JSON.stringify(sorted, null, 2)}\n`);
  }
  console.log(`\nwrote ${resultsFile}`);
  if (failed) process.exitCode = 1;
};

await main();
