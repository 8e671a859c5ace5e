/**
 * The secrets port: one secret per user (their own Anthropic API key), kept
 * by the host and never handed back to the browser. `memorySecrets()` is its
 * in-memory twin; `fileSecrets(path)` from `elyra-assistant/secrets` keeps
 * them on disk.
 */

/**
 * Where a user's secret is kept, by the user's key (the host's `userKey`).
 * `get` is for the host's own use (choosing a model source): no route reads
 * a secret back.
 */
export interface Secrets {
  /** The user's secret, or `undefined` when none is kept. */
  readonly get: (userKey: string) => Promise<string | undefined>;
  /** Keeps `secret` for the user, replacing any before it. */
  readonly set: (userKey: string, secret: string) => Promise<void>;
  /** Forgets the user's secret; forgetting one that is not kept does nothing. */
  readonly delete: (userKey: string) => Promise<void>;
}

/**
 * Secrets kept in memory, gone when the process ends: for tests, and for a
 * host whose users give their key each session.
 *
 * @example
 * ```ts
 * const secrets = memorySecrets();
 * await secrets.set("id:7", "sk-ant-api03-…");
 * await secrets.get("id:7"); // "sk-ant-api03-…"
 * await secrets.delete("id:7");
 * ```
 */
export const memorySecrets = (): Secrets => {
  const kept = new Map<string, string>();
  return {
    get: async (userKey) => kept.get(userKey),
    set: async (userKey, secret) => void kept.set(userKey, secret),
    delete: async (userKey) => void kept.delete(userKey),
  };
};
