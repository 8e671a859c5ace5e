/**
 * Token usage per key (a user of the proxy): what each request used, added
 * up. The port is small so a shared store (Redis) can stand in for the
 * memory one when several instances serve the same users.
 */

/** The tokens one request used. */
export interface UsageCounts {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** What a key used so far: tokens added up, and how many requests added them. */
export interface UsageTotals extends UsageCounts {
  readonly requests: number;
}

/**
 * The usage store port. `add` records one request (its tokens, and one more
 * request); `read` answers the totals, zeros for a key never added to.
 */
export interface UsageStore {
  readonly add: (key: string, usage: UsageCounts) => Promise<void> | void;
  readonly read: (key: string) => Promise<UsageTotals> | UsageTotals;
}

/**
 * An in-memory usage store, for one process (and for tests).
 *
 * @example
 * ```ts
 * const usageStore = memoryUsageStore();
 * usageStore.add("ada", { inputTokens: 120, outputTokens: 40 });
 * usageStore.read("ada"); // { inputTokens: 120, outputTokens: 40, requests: 1 }
 * ```
 */
export const memoryUsageStore = (): {
  readonly add: (key: string, usage: UsageCounts) => void;
  readonly read: (key: string) => UsageTotals;
} => {
  const totals = new Map<string, UsageTotals>();
  return {
    add: (key, usage) => {
      const was = totals.get(key) ?? { inputTokens: 0, outputTokens: 0, requests: 0 };
      totals.set(key, {
        inputTokens: was.inputTokens + usage.inputTokens,
        outputTokens: was.outputTokens + usage.outputTokens,
        requests: was.requests + 1,
      });
    },
    read: (key) => totals.get(key) ?? { inputTokens: 0, outputTokens: 0, requests: 0 },
  };
};
