/**
 * What the Redis store uses of a client: an ioredis `Redis` is one. Written
 * here rather than imported from ioredis, so that the store's declarations
 * never pull in ioredis' own (which a consumer checking libraries'
 * declarations, `skipLibCheck: false`, would have to compile).
 */

/** The commands the Redis store sends, as ioredis' `Redis` has them. */
export interface RedisClient {
  evalsha(sha: string, numKeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  hmget(key: string, ...fields: string[]): Promise<Array<string | null>>;
  quit(): Promise<unknown>;
  disconnect(): void;
}
