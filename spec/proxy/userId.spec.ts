/**
 * The user id the proxy sends upstream is HMAC-SHA-256 of the user's key,
 * keyed by the server's key under a fixed label, in hex: the same bytes for
 * the same user across versions (the API tells users apart by it), whatever
 * computes it. Checked against WebCrypto, which made it before the proxy
 * moved to `node:crypto` for its cost (bench/proxy: the CPU per request).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { USER_IDS_KEPT, userIdsOf } from "../../src/adapters/proxy/userId.ts";

const webCryptoId = async (secret: string, userKey: string): Promise<string> => {
  const encoder = new TextEncoder();
  const key = await globalThis.crypto.subtle.importKey(
    "raw",
    encoder.encode(`elyra-assistant proxy user id\0${secret}`),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(
    await globalThis.crypto.subtle.sign("HMAC", key, encoder.encode(userKey)),
  );
  return Array.from(mac, (byte) => byte.toString(16).padStart(2, "0")).join("");
};

describe("the proxy's user id", () => {
  it("is a known value for a known key and user", () => {
    // Fixed here (made by the WebCrypto code this replaced) so that a change of how it is
    // computed cannot change what upstream sees.
    expect(userIdsOf("sk-server")("id:u-7")).toBe(
      "66e375ada600ac8cf655b68d6ef17db86eb85fc6beb7f39d084f1d20fd308ed0",
    );
  });

  it("is the HMAC WebCrypto makes, for any server key and user key (1 000 runs)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.string({ unit: "binary" }), async (secret, userKey) => {
        expect(userIdsOf(secret)(userKey)).toBe(await webCryptoId(secret, userKey));
      }),
      { numRuns: 1_000 },
    );
  });

  it("tells users apart and keeps one id for one user", () => {
    const idOf = userIdsOf("sk-server");
    expect(idOf("id:1")).toMatch(/^[0-9a-f]{64}$/);
    expect(idOf("id:1")).toBe(idOf("id:1"));
    expect(idOf("id:1")).not.toBe(idOf('id:"1"'));
    expect(userIdsOf("another")("id:1")).not.toBe(idOf("id:1"));
  });
});

describe("the proxy's user ids, kept", () => {
  it("keeps the last users' ids, bounded, and makes the same id again once one was let go", () => {
    const idOf = userIdsOf("sk-server".repeat(20));
    const first = idOf("id:0");
    for (let i = 1; i <= USER_IDS_KEPT + 10; i++) idOf(`id:${i}`);
    expect(idOf("id:0")).toBe(first);
    expect(idOf("x".repeat(10_000))).toBe(idOf("x".repeat(10_000)));
  });
});
