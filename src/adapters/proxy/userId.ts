/**
 * The `metadata.user_id` the proxy sends upstream for a signed-in user: an
 * opaque, stable id (HMAC-SHA-256 of the user's key, keyed by the server's
 * API key), so the API can tell users apart to detect abuse without being
 * told who they are, and a client can never name another user.
 */

/** Upstream's user id for each user key, made with one secret. */
export const userIdsOf = (secret: string): ((userKey: string) => Promise<string>) => {
  const encoder = new TextEncoder();
  let key: Promise<CryptoKey> | undefined;
  return async (userKey) => {
    key ??= globalThis.crypto.subtle.importKey(
      "raw",
      encoder.encode(`elyra-assistant proxy user id\0${secret}`),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const mac = new Uint8Array(
      await globalThis.crypto.subtle.sign("HMAC", await key, encoder.encode(userKey)),
    );
    let hex = "";
    for (const byte of mac) hex += byte.toString(16).padStart(2, "0");
    return hex;
  };
};
