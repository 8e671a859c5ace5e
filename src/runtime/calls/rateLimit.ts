/**
 * Per-tool rate limits: at most `calls` accepted in any `perSeconds` window,
 * counted per scope (a window's conversation, or an MCP client) and per tool.
 */

/** A limit: at most `calls` calls in any window of `perSeconds` seconds. */
export interface RateLimit {
  readonly calls: number;
  readonly perSeconds: number;
}

/**
 * What a store answers when asked to take one call: `Allowed` (a place was
 * taken), or `Limited` with the wait until a place frees, in ms (at least 1).
 */
export type RateDecision =
  | { readonly _tag: "Allowed" }
  | { readonly _tag: "Limited"; readonly retryAfterMs: number };

/**
 * The rate-limit store port. `take` must be atomic per key: two concurrent
 * takes never both get the last place. A store that throws or rejects makes
 * the call path refuse the call (fail closed).
 */
export interface RateLimitStore {
  readonly take: (
    key: string,
    limit: RateLimit,
    now: number,
  ) => RateDecision | Promise<RateDecision>;
}

/** How many takes pass between sweeps of keys whose window has emptied. */
const SWEEP_EVERY = 1024;

/**
 * An in-memory sliding-log store: exact over any window, for one process.
 * Keys whose window has emptied are swept now and then, so idle windows cost
 * nothing.
 *
 * @example
 * ```ts
 * const store = memoryRateLimitStore();
 * store.take("w1:invoices_index", { calls: 2, perSeconds: 60 }, Date.now()); // { _tag: "Allowed" }
 * ```
 */
export const memoryRateLimitStore = (): RateLimitStore & { readonly size: () => number } => {
  /** Per key: the times taken, oldest first, the expired ones before `head` (dropped in bulk). */
  const logs = new Map<string, { windowMs: number; times: number[]; head: number }>();
  let takes = 0;
  const sweep = (now: number) => {
    for (const [key, log] of logs) {
      if ((log.times.at(-1) ?? Number.NEGATIVE_INFINITY) <= now - log.windowMs) logs.delete(key);
    }
  };
  return {
    size: () => logs.size,
    take: (key, limit, now) => {
      if (++takes % SWEEP_EVERY === 0) sweep(now);
      const windowMs = limit.perSeconds * 1000;
      let log = logs.get(key);
      if (log === undefined) {
        log = { windowMs, times: [], head: 0 };
        logs.set(key, log);
      }
      log.windowMs = windowMs;
      const { times } = log;
      // Times are appended in order, so the expired ones are at the front: they are skipped, and
      // dropped once they are half the array, so a take costs O(1) amortized whatever the limit.
      let { head } = log;
      while (head < times.length && (times[head] as number) <= now - windowMs) head++;
      if (head > 0 && head * 2 >= times.length) {
        times.splice(0, head);
        head = 0;
      }
      log.head = head;
      if (times.length - head >= limit.calls) {
        const oldest = times[times.length - limit.calls] ?? now;
        return { _tag: "Limited", retryAfterMs: Math.max(1, oldest + windowMs - now) };
      }
      times.push(now);
      return { _tag: "Allowed" };
    },
  };
};

/** Whether a limit is usable: whole calls ≥ 1 over a positive window. */
export const isRateLimit = (limit: RateLimit): boolean =>
  Number.isInteger(limit.calls) &&
  limit.calls >= 1 &&
  Number.isFinite(limit.perSeconds) &&
  limit.perSeconds > 0;
