import { randomIds } from "elyra-assistant";
import { describe, expect, it } from "vitest";

const decode = (id: string): Uint8Array =>
  Uint8Array.from(atob(id.replaceAll("-", "+").replaceAll("_", "/") + "=="), (c) =>
    c.charCodeAt(0),
  );

describe("randomIds", () => {
  it("gives 22 base64url characters that decode to 16 bytes", () => {
    const ids = randomIds();
    for (let i = 0; i < 1000; i++) {
      const id = ids.next();
      expect(id).toMatch(/^[A-Za-z0-9_-]{21}[AQgw]$/);
      expect(decode(id)).toHaveLength(16);
    }
  });

  it("never repeats across pool refills, and its bits look uniform", () => {
    const ids = randomIds();
    const seen = new Set<string>();
    const ones = new Array<number>(128).fill(0);
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const id = ids.next();
      seen.add(id);
      decode(id).forEach((byte, b) => {
        for (let bit = 0; bit < 8; bit++) ones[b * 8 + bit]! += (byte >> bit) & 1;
      });
    }
    expect(seen.size).toBe(n);
    // Each of the 128 bits is set about half the time (6 sigma bounds: no stuck or zeroed bits).
    const sigma = Math.sqrt(n / 4);
    for (const count of ones) expect(Math.abs(count - n / 2)).toBeLessThan(6 * sigma);
  });
});
