/**
 * The proxy's money budget through the real SDK: `max_tokens` clamped to
 * what is left, a refusal before the call (upstream never asked), the
 * remaining money in a header, the warnings at 80 % and 95 % once each per
 * period, the cache writes of the hour at their price, and the settings it
 * refuses.
 *
 * Prices: claude-sonnet-5-5 is $2 and $10 a million tokens, so an input
 * token is 2 000 nano-dollars and an output token 10 000. `ask("Hi")`'s
 * messages are estimated at 12 tokens (45 bytes of JSON): 24 000.
 */
import Anthropic from "@anthropic-ai/sdk";
import {
  BUDGET_MAX_TOKENS_HEADER,
  BUDGET_REMAINING_HEADER,
  createProxy,
  type ProxyBudgetWarning,
  ProxyConfigError,
} from "elyra-assistant/proxy";
import { memoryUsageStore, says, simulatedClock } from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type Ada, asForwarded, ask, proxied, USER_TOKEN, until } from "./fixture.ts";

type Setup = Awaited<ReturnType<typeof proxied>>;
let setup: Setup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

const MINUTE = { start: 0, ms: 60_000 };

/** Posts `body` as Ada; the status, the headers and the JSON answer. */
const post = async (body: object) => {
  const response = await fetch(`${setup?.url}/v1/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${USER_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json: { error?: { type?: string; message?: string } } = await response.json();
  return { status: response.status, headers: response.headers, json };
};

/** The `max_tokens` each forwarded request carried. */
const forwardedMaxTokens = () =>
  (setup?.api.requests ?? []).map((r) => (r.body as { max_tokens: number }).max_tokens);

describe("a money budget, before the call", () => {
  it("passes a request whose worst case fits as it is, and says what is left after it", async () => {
    setup = await proxied(() => says("ok"), {
      clock: simulatedClock(),
      budget: { dollars: 1, perSeconds: 86_400 },
    });
    const { status, headers } = await post(ask("Hi"));
    expect(status).toBe(200);
    expect(setup.api.requests[0]?.body).toEqual(asForwarded(ask("Hi")));
    // $1 − (24 000 + 1024 × 10 000) nano-dollars.
    expect(headers.get(BUDGET_REMAINING_HEADER)).toBe("0.989736");
    expect(headers.get(BUDGET_MAX_TOKENS_HEADER)).toBeNull();
  });

  it("clamps max_tokens to what is left, says so, and settles each request to what it cost", async () => {
    setup = await proxied(() => says("ok"), {
      clock: simulatedClock(),
      budget: { dollars: 0.005, perSeconds: 60 },
    });
    const first = await post(ask("Hi"));
    expect(first.status).toBe(200);
    // (5 000 000 − 24 000) / 10 000 output tokens.
    expect(first.headers.get(BUDGET_MAX_TOKENS_HEADER)).toBe("497");
    expect(first.headers.get(BUDGET_REMAINING_HEADER)).toBe("0");
    expect(setup.api.requests[0]?.body).toEqual(asForwarded({ ...ask("Hi"), max_tokens: 497 }));
    // The answer cost 10 input and 5 output tokens: 70 000 nano-dollars; the rest is given back.
    await until(() => setup?.usage.spend("id:ada", MINUTE).reserved === 0);
    expect(setup.usage.spend("id:ada", MINUTE)).toEqual({ spent: 0.00007, reserved: 0 });
    expect((await post(ask("Hi"))).status).toBe(200);
    expect(forwardedMaxTokens()).toEqual([497, 490]);
  });

  it("refuses before the call when not even a short answer fits: a 429 the SDK raises, upstream never asked", async () => {
    setup = await proxied(() => says("ok"), {
      clock: simulatedClock(),
      budget: { dollars: 0.002, perSeconds: 60 },
    });
    // The least worth sending: the input and 256 tokens of answer, 2 584 000 nano-dollars.
    const refused = await post(ask("Hi"));
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({
      type: "error",
      error: {
        type: "rate_limit_error",
        message:
          "$0.002 is left of a user's budget of $0.002 per 60 s, too little for this request (at least $0.0026); retry in 60 s",
      },
    });
    expect(refused.headers.get("retry-after")).toBe("60");
    // Nothing under way could give money back before the period ends: the SDK shouldn't retry.
    expect(refused.headers.get("x-should-retry")).toBe("false");
    expect(refused.headers.get(BUDGET_REMAINING_HEADER)).toBe("0.002");
    await expect(setup.sdk.messages.create(ask("Hi"))).rejects.toBeInstanceOf(
      Anthropic.RateLimitError,
    );
    expect(setup.api.requests).toEqual([]);
    expect(setup.reports).toEqual([]);
    // A request asking for less than the floor needs only what it asks for.
    expect((await post({ ...ask("Hi"), max_tokens: 100 })).status).toBe(200);
    expect(setup.api.requests).toHaveLength(1);
  });

  it("keeps a fixed window: spent money comes back when the next period starts", async () => {
    const clock = simulatedClock();
    setup = await proxied(() => says("ok", { usage: { inputTokens: 0, outputTokens: 200 } }), {
      clock,
      budget: { dollars: 0.003, perSeconds: 60 },
    });
    expect((await post(ask("Hi"))).status).toBe(200);
    await until(() => setup?.usage.spend("id:ada", MINUTE).spent === 0.002);
    clock.increment(45_000);
    const refused = await post(ask("Hi"));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("15");
    clock.increment(15_000);
    expect((await post(ask("Hi"))).status).toBe(200);
    expect(setup.api.requests).toHaveLength(2);
  });

  it("leaves a clamped request with thinking room past its thinking budget", async () => {
    setup = await proxied(() => says("ok"), {
      clock: simulatedClock(),
      budget: { dollars: 0.015, perSeconds: 60 },
    });
    const thinking = {
      ...ask("Hi"),
      max_tokens: 4096,
      thinking: { type: "enabled", budget_tokens: 1024 },
    };
    expect((await post(thinking)).status).toBe(200);
    // (15 000 000 − 24 000) / 10 000 = 1 497 tokens, past the 1 024 of thinking.
    expect(forwardedMaxTokens()).toEqual([1497]);
    const tight = await proxied(() => says("ok"), {
      clock: simulatedClock(),
      budget: { dollars: 0.0125, perSeconds: 60 },
    });
    try {
      // 1 024 + 256 output tokens are the floor: 12 824 000 nano-dollars, over the budget.
      const response = await tight.sdk.messages.create(thinking as never).catch((e: unknown) => e);
      expect(response).toBeInstanceOf(Anthropic.RateLimitError);
      expect(tight.api.requests).toEqual([]);
    } finally {
      await tight.close();
    }
  });

  it("counts the cache writes of the hour at their price, read off cache_creation", async () => {
    setup = await proxied(
      () =>
        says("ok", {
          usage: {
            inputTokens: 0,
            outputTokens: 0,
            cacheWriteTokens: 1000,
            cacheWrite1hTokens: 400,
          },
        }),
      { clock: simulatedClock(), budget: { dollars: 1, perSeconds: 60 } },
    );
    expect((await post(ask("Hi"))).status).toBe(200);
    await until(() => setup?.reports.length === 1);
    expect(setup.reports[0]?.usage).toMatchObject({
      cacheWriteTokens: 1000,
      cacheWrite1hTokens: 400,
    });
    // 600 at $2.5 and 400 at $4 a million.
    await until(() => setup?.usage.spend("id:ada", MINUTE).spent === 0.0031);
  });

  it("refuses with 503, upstream never asked, when the store can't reserve", async () => {
    const usage = {
      ...memoryUsageStore(),
      reserve: () => Promise.reject(new Error("down")),
    };
    setup = await proxied(() => says("ok"), {
      clock: simulatedClock(),
      usage,
      budget: { dollars: 1, perSeconds: 60 },
    });
    const refused = await post(ask("Hi"));
    expect(refused.status).toBe(503);
    expect(refused.json.error?.message).toBe("the budget can't be checked just now");
    expect(setup.api.requests).toEqual([]);
  });
});

describe("the budget's warnings", () => {
  it("tells onBudgetWarning once at 80 % and once at 95 % in a period, and again in the next", async () => {
    const clock = simulatedClock();
    const warnings: ProxyBudgetWarning<Ada>[] = [];
    // Each request's cost, in tokens: input at $2 a million, output at $10.
    const costs = [
      { inputTokens: 4000, outputTokens: 0 }, // $0.008: 80 %
      { inputTokens: 0, outputTokens: 10 }, // $0.0081
      { inputTokens: 700, outputTokens: 0 }, // $0.0095: 95 %
      { inputTokens: 0, outputTokens: 1 }, // $0.00951
    ];
    let sent = 0;
    setup = await proxied(() => says("ok", { usage: costs[sent++ % costs.length] ?? {} }), {
      clock,
      budget: { dollars: 0.01, perSeconds: 60 },
      onBudgetWarning: (warning) => warnings.push(warning),
    });
    const small = { ...ask("Hi"), max_tokens: 10 };
    for (let i = 0; i < costs.length; i++) {
      expect((await post(small)).status).toBe(200);
      await until(() => setup?.usage.spend("id:ada", MINUTE).reserved === 0);
    }
    const ada = { id: "ada", name: "Ada" };
    expect(warnings).toEqual([
      { user: ada, spent: 0.008, budget: 0.01, share: 0.8 },
      { user: ada, spent: 0.0095, budget: 0.01, share: 0.95 },
    ]);
    // The next period starts from nothing, and its first crossing is told again.
    clock.increment(60_000);
    expect((await post(small)).status).toBe(200);
    await until(() => warnings.length === 3);
    expect(warnings[2]).toEqual({ user: ada, spent: 0.008, budget: 0.01, share: 0.8 });
  });

  it("tells both at once when one request passes both, and a throwing hook reaches onError", async () => {
    const shares: number[] = [];
    // 96 output tokens of $0.001 are 96 %.
    setup = await proxied(() => says("ok", { usage: { inputTokens: 0, outputTokens: 96 } }), {
      clock: simulatedClock(),
      budget: { dollars: 0.001, perSeconds: 60 },
      onBudgetWarning: ({ share }) => {
        shares.push(share);
        throw new Error("the hook broke");
      },
    });
    expect((await post({ ...ask("Hi"), max_tokens: 97 })).status).toBe(200);
    await until(() => shares.length === 2);
    expect(shares).toEqual([0.8, 0.95]);
    await until(() => setup?.errors.length === 2);
  });
});

describe("createProxy's `budget` and `prices` settings", () => {
  const base = {
    apiKey: "k",
    authenticate: () => "ada",
    models: ["claude-sonnet-5-5"],
    maxTokens: 1024,
  };
  const thrown = (options: object): unknown => {
    try {
      createProxy({ ...base, ...options });
    } catch (error) {
      return error;
    }
    return undefined;
  };

  it("is { dollars, perSeconds } or false; anything else throws ProxyConfigError naming both", () => {
    const bad = [
      null,
      true,
      0,
      "5",
      {},
      { dollars: 5 },
      { dollars: 0, perSeconds: 60 },
      { dollars: -1, perSeconds: 60 },
      { dollars: 5, perSeconds: 0.5 },
      { dollars: 5, perSeconds: 0 },
      [],
    ];
    for (const budget of bad) {
      const error = thrown(JSON.parse(JSON.stringify({ budget })));
      expect(error, JSON.stringify(budget)).toBeInstanceOf(ProxyConfigError);
      expect((error as Error).message).toBe(
        `createProxy: budget must be { dollars, perSeconds } with dollars a positive, finite amount and perSeconds a whole number of seconds ≥ 1, or false for no budget, not ${JSON.stringify(budget)}`,
      );
    }
    expect(
      (thrown({ budget: { dollars: Number.NaN, perSeconds: 60 } }) as Error).message,
    ).toContain('not {"dollars":"NaN","perSeconds":60}');
    expect(thrown({ budget: false })).toBeUndefined();
    expect(thrown({ budget: { dollars: 5, perSeconds: 86_400 } })).toBeUndefined();
  });

  it("needs a price for every model, from prices over the defaults", () => {
    const local = {
      models: ["claude-sonnet-5-5", "my-local-model"],
      budget: { dollars: 5, perSeconds: 60 },
    };
    expect((thrown(local) as Error).message).toBe(
      'createProxy: a budget needs each model\'s price, and the price table has none for "my-local-model": give it in prices',
    );
    const price = { input: 1, output: 2, cacheRead: 0.1, cacheWrite5m: 1.25, cacheWrite1h: 2 };
    expect(thrown({ ...local, prices: { "my-local-model": price } })).toBeUndefined();
    // Without a budget no price is needed.
    expect(thrown({ models: ["my-local-model"] })).toBeUndefined();
  });

  it("refuses a price table that doesn't decode, naming the field", () => {
    const error = thrown({ prices: { "claude-sonnet-5-5": { input: -1 } } }) as Error;
    expect(error).toBeInstanceOf(ProxyConfigError);
    expect(error.message).toMatch(
      /^createProxy: prices must map model ids to \{ input, output, cacheRead, cacheWrite5m, cacheWrite1h \} in US dollars a million tokens: .*claude-sonnet-5-5/,
    );
  });

  it("needs a usage store that holds money", () => {
    const tokensOnly = {
      add: () => undefined,
      read: () => ({ inputTokens: 0, outputTokens: 0, requests: 0 }),
    };
    expect(
      (thrown({ usage: tokensOnly, budget: { dollars: 5, perSeconds: 60 } }) as Error).message,
    ).toBe(
      "createProxy: a budget needs a usage store that holds money (reserve and settle), such as memoryUsageStore() or redisStore(); the usage store given has no reserve or settle",
    );
    expect(thrown({ usage: tokensOnly })).toBeUndefined();
  });
});
