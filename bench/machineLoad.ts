/**
 * What other processes take of the machine's CPU (Linux, /proc/stat): during
 * a benchmark, and before it, to wait for a quiet machine.
 */
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";

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
export const othersCpu = async () => {
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

/**
 * Waits until other processes take at most `quietPct` % of the CPU over a
 * second, for at most `waitS` seconds; resolves with the last second's share
 * (null where it cannot be read).
 */
export const waitForQuiet = async (quietPct: number, waitS: number): Promise<number | null> => {
  const deadline = performance.now() + waitS * 1000;
  for (;;) {
    const others = await othersCpu();
    await sleep(1000);
    const pct = await others.stop();
    if (pct === null || pct <= quietPct || performance.now() >= deadline) return pct;
  }
};
