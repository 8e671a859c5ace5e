/**
 * The `metadata.user_id` the proxy sends upstream for a signed-in user: an
 * opaque, stable id (HMAC-SHA-256 of the user's key, keyed by the server's
 * API key), so the API can tell users apart to detect abuse without being
 * told who they are, and a client can never name another user.
 */
import { createHmac } from "node:crypto";

/**
 * Upstream's user id for each user key, made with one secret: 64 hex
 * characters. With `node:crypto`'s HMAC, at about 3–5 µs of CPU a request;
 * WebCrypto's `subtle.sign`, which made the same bytes, cost 60–70 µs, most
 * of what the proxy added to a pass-through's CPU.
 */
export const userIdsOf = (secret: string): ((userKey: string) => string) => {
  const key = `elyra-assistant proxy user id\0${secret}`;
  return (userKey) => createHmac("sha256", key).update(userKey, "utf8").digest("hex");
};
