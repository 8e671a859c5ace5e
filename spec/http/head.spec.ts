/** HEAD is refused on every route: answered as GET without its body, an event stream would never end. */
import { createProxy, ProxyConfigError } from "elyra-assistant/proxy";
import { describe, expect, it } from "vitest";
import { setup } from "./fixture.ts";

describe("HEAD", () => {
  it("is refused on the event and live streams, and opens no stream", async () => {
    const s = setup();
    for (const path of ["events", "live?command=customers_show&args=%7B%22id%22%3A1%7D"]) {
      const response = await s.call(path, { method: "HEAD" });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("GET, POST");
    }
    expect(s.host.live.queries("w1")).toEqual([]);
    expect(s.spies.total()).toBe(0);
    await s.host.close();
  });
});

describe("createProxy's settings", () => {
  const base = {
    apiKey: "k",
    authenticate: () => "ada",
    models: ["claude-sonnet-5-5"],
  };
  it("refuses a cap or a rate limit that would let everything through (NaN, 0, fractions)", () => {
    for (const maxTokens of [Number.NaN, 0, -1, 1.5, Number.POSITIVE_INFINITY]) {
      expect(() => createProxy({ ...base, maxTokens })).toThrow(ProxyConfigError);
      expect(() => createProxy({ ...base, maxTokens })).toThrow(/^createProxy: maxTokens must be/);
    }
    for (const rateLimit of [
      { calls: Number.NaN, perSeconds: 60 },
      { calls: 10, perSeconds: 0 },
      { calls: 0, perSeconds: 60 },
      { calls: 10, perSeconds: Number.NaN },
    ]) {
      expect(() => createProxy({ ...base, maxTokens: 1024, rateLimit })).toThrow(ProxyConfigError);
      expect(() => createProxy({ ...base, maxTokens: 1024, rateLimit })).toThrow(
        /^createProxy: rateLimit/,
      );
    }
    expect(() =>
      createProxy({ ...base, maxTokens: 1024, rateLimit: { calls: 5, perSeconds: 60 } }),
    ).not.toThrow();
  });
});
