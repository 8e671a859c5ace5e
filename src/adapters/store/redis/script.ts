/** A Lua script run by its SHA on one key, loaded by `EVAL` the first time a server lacks it. */
import { createHash } from "node:crypto";
import type { RedisClient as Redis } from "./client.ts";

/** Runs `lua` on `key` with `args`: by `EVALSHA`, falling back to `EVAL` on `NOSCRIPT`. */
export const script = (lua: string) => {
  const sha = createHash("sha1").update(lua).digest("hex");
  return async (redis: Redis, key: string, args: readonly string[]): Promise<unknown> => {
    try {
      return await redis.evalsha(sha, 1, key, ...args);
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith("NOSCRIPT"))) throw error;
      return redis.eval(lua, 1, key, ...args);
    }
  };
};
