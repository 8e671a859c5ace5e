/**
 * The proxy's rate limit by default: a proxy written without `rateLimit`
 * still limits each user (60 requests a minute), and `rateLimit: false`
 * is the one way to turn it off.
 */
import { createProxy, ProxyConfigError } from "elyra-assistant/proxy";
import { says, simulatedClock } from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type Ada, ask, proxied, USER_TOKEN } from "./fixture.ts";

type Setup = Awaited<ReturnType<typeof proxied>>;
let setup: Setup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** Posts a small request with `token` as the bearer; the status, `retry-after` and the error's message. */
const post = async (token: string) => {
  const response = await fetch(`${setup?.url}/v1/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(ask("Hi")),
  });
  const json: { error?: { message?: string } } = await response.json();
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    message: json.error?.message,
  };
};

/** Two users: Ada with the fixture's token, Bob with his own. */
const twoUsers = (request: Request): Ada | undefined => {
  const bearer = request.headers.get("authorization");
  if (bearer === `Bearer ${USER_TOKEN}`) return { id: "ada", name: "Ada" };
  if (bearer === "Bearer bob-token") return { id: "bob", name: "Bob" };
  return undefined;
};

describe("the rate limit when none is given", () => {
  it("is 60 requests a minute per user: the 61st is 429 and goes nowhere, and the window slides on the clock", async () => {
    const clock = simulatedClock();
    setup = await proxied(() => says("ok"), { clock, authenticate: twoUsers });
    for (let i = 0; i < 60; i++) expect((await post(USER_TOKEN)).status).toBe(200);
    expect(await post(USER_TOKEN)).toEqual({
      status: 429,
      retryAfter: "60",
      message: "at most 60 requests per 60 s for a user; retry in 60 s",
    });
    expect(setup.api.requests).toHaveLength(60);
    // Per user: Bob's first request is not Ada's 62nd.
    expect((await post("bob-token")).status).toBe(200);
    clock.increment(60_000);
    expect((await post(USER_TOKEN)).status).toBe(200);
    expect(setup.api.requests).toHaveLength(62);
  });

  it("`rateLimit: false` turns it off: 100 requests of one user in one instant all go", async () => {
    setup = await proxied(() => says("ok"), { rateLimit: false, clock: simulatedClock() });
    for (let i = 0; i < 100; i++) expect((await post(USER_TOKEN)).status).toBe(200);
    expect(setup.api.requests).toHaveLength(100);
  });
});

describe("createProxy's `rateLimit` setting", () => {
  const base = {
    apiKey: "k",
    authenticate: () => "ada",
    models: ["claude-sonnet-5-5"],
    maxTokens: 1024,
  };
  it("is a limit or `false`; anything else (null, true, a word, a half limit) throws ProxyConfigError naming both", () => {
    for (const rateLimit of [null, true, "none", 0, {}, { calls: 10 }, []]) {
      // Settings from a JavaScript caller or a config file, unchecked by the types.
      const options = JSON.parse(JSON.stringify({ ...base, rateLimit }));
      let thrown: unknown;
      try {
        createProxy({ ...options, authenticate: base.authenticate });
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(rateLimit)).toBeInstanceOf(ProxyConfigError);
      expect(thrown instanceof ProxyConfigError && thrown.message).toBe(
        `createProxy: rateLimit must be { calls, perSeconds } with whole calls ≥ 1 over a positive, finite perSeconds, or false for no limit, not ${JSON.stringify(rateLimit)}`,
      );
    }
    expect(() => createProxy({ ...base, rateLimit: false })).not.toThrow();
    expect(() => createProxy({ ...base, rateLimit: { calls: 5, perSeconds: 60 } })).not.toThrow();
    expect(() => createProxy(base)).not.toThrow();
  });
});
