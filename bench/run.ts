/**
 * The bench runner: `npm run bench` runs every `*.bench.ts` in bench/;
 * `npm run bench -- callPath` runs the ones named. Each prints its table, and
 * its entry in bench/results.json is replaced; other entries are kept, so the
 * file gathers every benchmark's latest run.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
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

/** Busy and total CPU time of the machine so far, in ms, from /proc/stat; null elsewhere. */
const machineCpu = async (): Promise<{ busy: number; total: number } | null> => {
  try {
    const line = (await readFile("/proc/stat", "utf8")).split("\n")[0] ?? "";
    const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = ticks.reduce((sum, t) => sum + t, 0);
    const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
    // USER_HZ is 100 on Linux: a tick is 10 ms.
    return { busy: (total - idle) * 10, total: total * 10 };
  } catch {
    return null;
  }
};

/**
 * Measures what other processes take of the CPU while a benchmark runs: the
 * machine's busy time less this process's own, as a share of all the CPU time.
 */
const othersCpu = async () => {
  // Read before starting: a benchmark awaiting only resolved promises starves the I/O callbacks.
  const before = await machineCpu();
  const own = process.cpuUsage();
  return {
    stop: async (): Promise<number | null> => {
      const after = await machineCpu();
      if (before === null || after === null || after.total === before.total) return null;
      const mine = process.cpuUsage(own);
      const ownMs = (mine.user + mine.system) / 1000;
      const othersMs = Math.max(0, after.busy - before.busy - ownMs);
      return Math.round((1000 * othersMs) / (after.total - before.total)) / 10;
    },
  };
};

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
    const others = await othersCpu();
    const result = await available.get(name)!.run();
    const othersCpuPct = await others.stop();
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
    console.log(result.pass ? "  PASS" : "  FAIL: a case misses the target");
    failed ||= !result.pass;
    const { columns: _columns, ...figures } = result;
    const next = {
      ...stored,
      [name]: { ...figures, ...env, date: new Date().toISOString(), othersCpuPct },
    };
    const sorted = Object.fromEntries(Object.entries(next).sort(([a], [b]) => a.localeCompare(b)));
    await writeFile(resultsFile, `${JSON.stringify(sorted, null, 2)}\n`);
  }
  console.log(`\nwrote ${resultsFile}`);
  if (failed) process.exitCode = 1;
};

await main();
