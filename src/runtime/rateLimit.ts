/**
 * Per-tool rate limits: at most `calls` accepted in any `perSeconds` window,
 * counted per scope (a window's conversation, or an MCP client) and per tool.
 */

/** A limit: at most `calls` calls in any window of `perSeconds` seconds. */
export interface RateLimit {
  readonly calls: number;
  readonly perSeconds: number;
}

/** What a store answers when asked to take one call. */
export type RateDecision =
  | { readonly ok: true }
  | { readonly ok: false; readonly retryAfterMs: number };

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

/**
 * An in-memory sliding-log store: exact over any window, for one process.
 *
 * @example
 * ```ts
 * const store = memoryRateLimitStore();
 * store.take("w1:invoices_index", { calls: 2, perSeconds: 60 }, Date.now());
 * ```
 */
export const memoryRateLimitStore = (): RateLimitStore => {
  const logs = new Map<string, number[]>();
  return {
    take: (key, limit, now) => {
      const windowMs = limit.perSeconds * 1000;
      const log = (logs.get(key) ?? []).filter((at) => at > now - windowMs);
      if (log.length >= limit.calls) {
        logs.set(key, log);
        const oldest = log[log.length - limit.calls] ?? now;
        return { ok: false, retryAfterMs: Math.max(1, oldest + windowMs - now) };
      }
      log.push(now);
      logs.set(key, log);
      return { ok: true };
    },
  };
};

/** Whether a limit is usable: whole calls ≥ 1 over a positive window. */
export const isRateLimit = (limit: RateLimit): boolean =>
  Number.isInteger(limit.calls) &&
  limit.calls >= 1 &&
  Number.isFinite(limit.perSeconds) &&
  limit.perSeconds > 0;
