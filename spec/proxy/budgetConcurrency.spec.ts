/**
 * Money in flight: requests of one user under way at once never pass on
 * the same money. Each holds its worst case from before it goes until its
 * answer ends, so the second of two is clamped to what the first left, or
 * refused, and gets the money back only once the first has settled.
 *
 * Prices as in budget.spec.ts: an output token of claude-sonnet-5-5 is
 * 10 000 nano-dollars, `ask("Hi")`'s input 24 000.
 */
import { BUDGET_MAX_TOKENS_HEADER } from "elyra-assistant/proxy";
import { says, simulatedClock } from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";
import { ask, proxied, USER_TOKEN, until } from "./fixture.ts";

type Setup = Awaited<ReturnType<typeof proxied>>;
let setup: Setup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

const MINUTE = { start: 0, ms: 60_000 };

const post = async (body: object) => {
  const response = await fetch(`${setup?.url}/v1/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${USER_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return { status: response.status, clamped: response.headers.get(BUDGET_MAX_TOKENS_HEADER) };
};

/** The worst case of `ask("Hi")` with `maxTokens`, in nano-dollars. */
const worst = (maxTokens: number) => 24_000 + maxTokens * 10_000;

describe("money in flight", () => {
  it("two requests at once: the first holds its worst case, the second is clamped to the rest", async () => {
    // Room for one request of 1024 tokens and 500 more tokens' worth.
    const dollars = (worst(1024) + worst(500)) / 1e9;
    let open: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let held = 0;
    setup = await proxied(() => says("ok", { usage: { inputTokens: 0, outputTokens: 1 } }), {
      clock: simulatedClock(),
      budget: { dollars, perSeconds: 60 },
      // Both wait at the gate until both went: neither settles before the other is decided.
      fetch: async (url, init) => {
        held++;
        await gate;
        return fetch(url, init);
      },
    });
    const both = Promise.all([post(ask("Hi")), post(ask("Hi"))]);
    await until(() => held === 2);
    open?.();
    const answers = await both;
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    const sent = setup.api.requests.map((r) => (r.body as { max_tokens: number }).max_tokens);
    expect(sent.sort((a, b) => a - b)).toEqual([500, 1024]);
    expect(answers.map((a) => a.clamped).sort()).toEqual(["500", null]);
    // Both settled: nothing held, 2 output tokens spent.
    await until(() => setup?.usage.spend("id:ada", MINUTE).reserved === 0);
    expect(setup.usage.spend("id:ada", MINUTE)).toEqual({ spent: 0.00002, reserved: 0 });
  });

  it("the second is refused while the first holds the money, and passes once it has settled", async () => {
    // Room for one request of 1024 tokens and 100 more: under the floor of 256.
    const dollars = (worst(1024) + 100 * 10_000) / 1e9;
    let release: (() => void) | undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    setup = await proxied(() => says("ok", { usage: { inputTokens: 0, outputTokens: 1 } }), {
      clock: simulatedClock(),
      budget: { dollars, perSeconds: 60 },
      // The first request's answer waits until released: it is in flight the while.
      fetch: async (url, init) => {
        if (release !== undefined) await held;
        return fetch(url, init);
      },
    });
    const first = post(ask("Hi"));
    await until(() => setup?.usage.spend("id:ada", MINUTE).reserved === worst(1024) / 1e9);
    const second = await post(ask("Hi"));
    expect(second.status).toBe(429);
    release?.();
    release = undefined;
    expect((await first).status).toBe(200);
    await until(() => setup?.usage.spend("id:ada", MINUTE).reserved === 0);
    // The first cost one output token: the rest came back, and a request of 1024 fits again.
    expect((await post(ask("Hi"))).status).toBe(200);
    expect(setup.api.requests).toHaveLength(2);
  });

  it("a client that leaves gives back what its request held", async () => {
    setup = await proxied(() => says("ok", { delayMs: 2_000 }), {
      clock: simulatedClock(),
      budget: { dollars: worst(1024) / 1e9, perSeconds: 60 },
    });
    const leaving = new AbortController();
    const gone = fetch(`${setup.url}/v1/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${USER_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(ask("Hi")),
      signal: leaving.signal,
    }).catch(() => undefined);
    await until(() => setup?.usage.spend("id:ada", MINUTE).reserved === worst(1024) / 1e9);
    leaving.abort();
    await gone;
    await until(() => setup?.usage.spend("id:ada", MINUTE).reserved === 0);
    expect(setup.usage.spend("id:ada", MINUTE).spent).toBe(0);
  });

  it("twenty requests at once that can't be clamped: exactly as many pass as the budget holds", async () => {
    // max_tokens 100, under the floor: each needs its whole worst case. Room for three and a half.
    let open: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let held = 0;
    setup = await proxied(() => says("ok"), {
      clock: simulatedClock(),
      budget: { dollars: (3.5 * worst(100)) / 1e9, perSeconds: 60 },
      // Every request that goes waits at the gate, so none settles before all are decided.
      fetch: async (url, init) => {
        held++;
        await gate;
        return fetch(url, init);
      },
    });
    let refused = 0;
    const answers = Array.from({ length: 20 }, () =>
      post({ ...ask("Hi"), max_tokens: 100 }).then((answer) => {
        if (answer.status === 429) refused++;
        return answer;
      }),
    );
    await until(() => held + refused === 20);
    expect(held).toBe(3);
    open?.();
    const statuses = (await Promise.all(answers)).map((a) => a.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(17);
    expect(setup.api.requests).toHaveLength(3);
  });
});
