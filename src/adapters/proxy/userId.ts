/**
 * The `metadata.user_id` the proxy sends upstream for a signed-in user: an
 * opaque, stable id (HMAC-SHA-256 of the user's key, keyed by the server's
 * API key), so the API can tell users apart to detect abuse without being
 * told who they are, and a client can never name another user.
 */
import { createHash, createHmac, createSecretKey, type KeyObject } from "node:crypto";

/** SHA-256's block: an HMAC key longer than this is used as its digest (RFC 2104). */
const BLOCK_BYTES = 64;

/** The users whose id is kept, most recent last; past this the oldest is made again when asked. */
export const USER_IDS_KEPT = 1_024;

/** A user key longer than this is not kept (its id is made each time): the cache stays small. */
const KEPT_KEY_CHARS = 256;

/**
 * Upstream's user id for each user key, made with one secret: 64 hex
 * characters. With `node:crypto`'s HMAC; WebCrypto's `subtle.sign`, which
 * made the same bytes, cost 60–70 µs a request. The key is made once (a key
 * longer than the hash's block hashed once, as HMAC would on every call),
 * and the ids of the last {@link USER_IDS_KEPT} users are kept: a user's
 * next request costs a map lookup, about 80 bytes a user kept.
 *
 * @example
 * ```ts
 * const idOf = userIdsOf(process.env.ANTHROPIC_API_KEY ?? "");
 * idOf("id:u-7"); // 64 hex characters, the same for this user every time
 * ```
 */
export const userIdsOf = (secret: string): ((userKey: string) => string) => {
  const raw = Buffer.from(`elyra-assistant proxy user id\0${secret}`, "utf8");
  const key: KeyObject = createSecretKey(
    raw.byteLength > BLOCK_BYTES ? createHash("sha256").update(raw).digest() : raw,
  );
  const kept = new Map<string, string>();
  return (userKey) => {
    const known = kept.get(userKey);
    if (known !== undefined) return known;
    const id = createHmac("sha256", key).update(userKey, "utf8").digest("hex");
    if (userKey.length <= KEPT_KEY_CHARS) {
      if (kept.size >= USER_IDS_KEPT) kept.delete(kept.keys().next().value as string);
      kept.set(userKey, id);
    }
    return id;
  };
};
