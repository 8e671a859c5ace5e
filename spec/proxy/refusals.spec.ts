/** Every refusal is the API's error JSON with its status, and nothing goes upstream (P1, P2). */
import Anthropic from "@anthropic-ai/sdk";
import { createProxy } from "elyra-assistant/proxy";
import { memoryRateLimitStore, says } from "elyra-assistant/testing";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { runs } from "../properties/runs.ts";
import { ask, proxied, USER_TOKEN } from "./fixture.ts";

type Setup = Awaited<ReturnType<typeof proxied>>;
let setup: Setup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** What the SDK threw, as status, error type and message. */
const refusal = async (call: Promise<unknown>) => {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof Anthropic.APIError)) throw error;
    const body = error.error as { type?: string; error?: { type?: string; message?: string } };
    return {
      status: error.status,
      type: body.error?.type,
      message: body.error?.message ?? "",
      retryAfter: error.headers?.get("retry-after") ?? null,
    };
  }
  throw new Error("the request was not refused");
};

const codeTool = { type: "code_execution_20260120", name: "code_execution" } as const;

describe("refusals, with 0 upstream requests", () => {
  it("no token or a bad one: 401 authentication_error, never a redirect", async () => {
    setup = await proxied([says("never")]);
    for (const authToken of ["someone-else", ""]) {
      const sdk = new Anthropic({ baseURL: setup.url, authToken, maxRetries: 0 });
      expect(await refusal(sdk.messages.create(ask("Hi")))).toMatchObject({
        status: 401,
        type: "authentication_error",
      });
    }
    const raw = await fetch(`${setup.url}/v1/messages`, { method: "POST", redirect: "manual" });
    expect(raw.status).toBe(401);
    expect(raw.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await raw.json()).toEqual({
      type: "error",
      error: { type: "authentication_error", message: "no signed-in user" },
    });
    expect(setup.api.requests).toEqual([]);
  });

  it("a body that doesn't decode: 400 naming the field", async () => {
    setup = await proxied([says("never")]);
    const post = (body: string) =>
      fetch(`${setup?.url}/v1/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${USER_TOKEN}`, "content-type": "application/json" },
        body,
      });
    const cases: Array<[string, RegExp]> = [
      ["not json", /must be JSON/],
      ["[]", /expected an object/],
      [JSON.stringify({ model: "claude-sonnet-5-5", messages: [] }), /max_tokens/],
      [JSON.stringify({ ...ask("Hi"), max_tokens: "lots" }), /max_tokens/],
      [JSON.stringify({ ...ask("Hi"), model: 5 }), /model/],
      [JSON.stringify({ ...ask("Hi"), stream: "yes" }), /stream/],
      [
        JSON.stringify({ ...ask("Hi"), tools: [{ type: "web_search_20250305" }] }),
        /tools\[0\]\.name/,
      ],
      // Issue 16: nesting is capped before decoding, not a 500.
      [`${"[".repeat(10_000)}${"]".repeat(10_000)}`, /^the body is nested deeper than 64 levels$/],
      [
        JSON.stringify({ ...ask("Hi"), metadata: { user_id: "u" } }).replace(
          '"u"',
          `${"[".repeat(10_000)}${"]".repeat(10_000)}`,
        ),
        /^the body is nested deeper than 64 levels$/,
      ],
    ];
    for (const [body, message] of cases) {
      const response = await post(body);
      expect(response.status).toBe(400);
      const json = (await response.json()) as {
        type: string;
        error: { type: string; message: string };
      };
      expect(json.type).toBe("error");
      expect(json.error.type).toBe("invalid_request_error");
      expect(json.error.message).toMatch(message);
    }
    expect(setup.api.requests).toEqual([]);
  });

  it("a model off the allowlist, max_tokens over the cap: 422 naming them", async () => {
    setup = await proxied([says("never")]);
    expect(
      await refusal(setup.sdk.messages.create({ ...ask("Hi"), model: "claude-opus-9" })),
    ).toMatchObject({
      status: 422,
      type: "invalid_request_error",
      message: 'model: "claude-opus-9" isn\'t allowed here',
    });
    expect(
      await refusal(setup.sdk.messages.create({ ...ask("Hi"), max_tokens: 8192 })),
    ).toMatchObject({
      status: 422,
      message: "max_tokens: 8192 is over this proxy's cap of 4096",
    });
    expect(setup.api.requests).toEqual([]);
  });

  it("a field no rule covers, or one its rule refuses: 400/422 naming it (the policy is an allowlist)", async () => {
    setup = await proxied([says("never")]);
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ service_tier: "priority" }, 400, "service_tier: this proxy doesn't forward this field"],
      [{ betas: ["x"] }, 400, "betas: this proxy doesn't forward this field"],
      [
        { metadata: { user_id: "u", tier: "gold" } },
        400,
        "metadata.tier: this proxy doesn't forward this field",
      ],
      [
        { thinking: { type: "enabled", budget_tokens: 2048, display: "all" } },
        400,
        "thinking.display: this proxy doesn't forward this field",
      ],
      [
        { thinking: { type: "enabled", budget_tokens: 1024 } },
        422,
        "thinking.budget_tokens: 1024 must be under max_tokens (1024)",
      ],
      [
        { container: "container_011CTa" },
        422,
        "container: containers are for code execution, which isn't proxied",
      ],
    ];
    for (const [more, status, message] of cases) {
      const response = await fetch(`${setup.url}/v1/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${USER_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ ...ask("Hi"), ...more }),
      });
      expect(response.status).toBe(status);
      expect(await response.json()).toEqual({
        type: "error",
        error: { type: "invalid_request_error", message },
      });
    }
    expect(setup.api.requests).toEqual([]);
  });

  it("server tools: 422 naming the tool; code execution too, by default", async () => {
    setup = await proxied([says("never")]);
    const webSearch = { type: "web_search_20250305", name: "web_search" } as const;
    expect(
      await refusal(setup.sdk.messages.create({ ...ask("Hi"), tools: [webSearch] } as never)),
    ).toMatchObject({
      status: 422,
      message: 'tools[0]: the server tool "web_search_20250305" ("web_search") isn\'t proxied',
    });
    expect(
      await refusal(setup.sdk.messages.create({ ...ask("Hi"), tools: [codeTool] } as never)),
    ).toMatchObject({ status: 422, message: expect.stringContaining("code_execution_20260120") });
    const mcp = { mcp_servers: [{ type: "url", url: "https://evil.example/mcp", name: "x" }] };
    expect(
      await refusal(setup.sdk.messages.create({ ...ask("Hi"), ...mcp } as never)),
    ).toMatchObject({
      status: 422,
      message: "mcp_servers: MCP servers aren't proxied",
    });
    expect(setup.api.requests).toEqual([]);
  });

  it('streaming, when `stream: false`: 422 "Streaming isn\'t proxied"', async () => {
    setup = await proxied([says("never")], { stream: false });
    expect(await refusal(setup.sdk.messages.create({ ...ask("Hi"), stream: true }))).toMatchObject({
      status: 422,
      message: "Streaming isn't proxied",
    });
    expect(setup.api.requests).toEqual([]);
  });

  it("over the user's rate limit: 429 with retry-after in seconds", async () => {
    setup = await proxied([says("one"), says("two")], {
      rateLimit: { calls: 1, perSeconds: 30 },
      rateLimits: memoryRateLimitStore(),
    });
    await setup.sdk.messages.create(ask("Hi"));
    expect(await refusal(setup.sdk.messages.create(ask("Again")))).toMatchObject({
      status: 429,
      type: "rate_limit_error",
      retryAfter: "30",
    });
    expect(setup.api.requests).toHaveLength(1);
  });

  it("a rate-limit store that fails refuses (fail closed): 503", async () => {
    setup = await proxied([says("never")], {
      rateLimit: { calls: 10, perSeconds: 60 },
      rateLimits: {
        take: () => {
          throw new Error("store down");
        },
      },
    });
    expect(await refusal(setup.sdk.messages.create(ask("Hi")))).toMatchObject({ status: 503 });
    expect(setup.api.requests).toEqual([]);
  });

  it("other paths and methods: 404 and 405", async () => {
    setup = await proxied([says("never")]);
    const headers = { authorization: `Bearer ${USER_TOKEN}` };
    const other = await fetch(`${setup.url}/v1/complete`, { method: "POST", headers });
    expect(other.status).toBe(404);
    const get = await fetch(`${setup.url}/v1/messages`, { headers });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect(setup.api.requests).toEqual([]);
  });

  it("a URL is taken when its path, as the URL parser reads it, ends in /v1/messages: anything else is 404", async () => {
    const handle = createProxy({
      apiKey: "k",
      authenticate: () => undefined,
      models: [ask("").model],
      maxTokens: 4096,
      upstream: "http://127.0.0.1:9",
    });
    const segment = fc.oneof(
      fc.constantFrom(
        "v1",
        "messages",
        "v1/messages",
        "",
        ".",
        "..",
        "%2F",
        "m%65ssages",
        "?",
        "#",
      ),
      fc.webSegment(),
    );
    const url = fc.record({
      scheme: fc.constantFrom("http", "https"),
      user: fc.option(fc.constantFrom("a", "a:b", "a%2Fb", "v1/messages"), { nil: undefined }),
      host: fc.constantFrom("proxy.test", "v1", "127.0.0.1:8080", "[::1]:3000"),
      path: fc.array(segment, { maxLength: 5 }),
      trailing: fc.boolean(),
      query: fc.option(fc.constantFrom("a=1", "x=/v1/messages", ""), { nil: undefined }),
      fragment: fc.option(fc.constantFrom("f", "/v1/messages", "?q"), { nil: undefined }),
    });
    const text = (u: typeof url extends fc.Arbitrary<infer A> ? A : never) =>
      `${u.scheme}://${u.user === undefined ? "" : `${u.user}@`}${u.host}/${u.path.join("/")}${
        u.trailing ? "/" : ""
      }${u.query === undefined ? "" : `?${u.query}`}${u.fragment === undefined ? "" : `#${u.fragment}`}`;
    const plain = {
      scheme: "http",
      user: undefined,
      host: "proxy.test",
      path: ["v1", "messages"],
      trailing: false,
      query: undefined,
      fragment: undefined,
    };
    await fc.assert(
      fc.asyncProperty(url, async (u) => {
        // As a host hands it over, serialized; with userinfo too (an absolute-form target),
        // which `new Request` refuses, hence a request of a URL and a method alone.
        const href = new URL(text(u)).href;
        const taken = /\/v1\/messages\/?$/.test(new URL(href).pathname);
        const request = { url: href, method: "POST", headers: new Headers() } as Request;
        // Taken: refused for want of a user (401); else not found (404).
        expect((await handle(request)).status).toBe(taken ? 401 : 404);
      }),
      {
        numRuns: runs(500),
        // The host and the userinfo don't count: "//v1/messages" is the path "/messages".
        examples: [
          [{ ...plain, host: "v1", path: ["messages"] }],
          [{ ...plain, user: "v1/messages", path: [] }],
        ],
      },
    );
  });
});

describe("credentials and headers (P1)", () => {
  it("forwards the server's key only, and returns only content-type, request-id and retry hints", async () => {
    setup = await proxied(
      [
        says("Hi"),
        {
          error: {
            status: 529,
            type: "overloaded_error",
            message: "Overloaded",
            shouldRetry: true,
          },
        },
      ],
      {},
      {
        defaultHeaders: {
          "x-api-key": "sk-ant-client-key",
          cookie: "session=secret",
          "anthropic-beta": "mcp-client-2025-04-04",
          "x-forwarded-for": "10.0.0.1",
        },
      },
    );
    await setup.sdk.messages.create(ask("Hi"));
    const [sent] = setup.api.requests;
    expect(sent?.headers["x-api-key"]).toBe("sk-ant-server-key");
    expect(sent?.headers.authorization).toBeUndefined();
    expect(sent?.headers.cookie).toBeUndefined();
    expect(sent?.headers["anthropic-beta"]).toBeUndefined();
    expect(sent?.headers["x-forwarded-for"]).toBeUndefined();
    expect(JSON.stringify(sent?.headers)).not.toContain("user-token");
    expect(sent?.headers["anthropic-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    // Upstream's 529 comes back with its status and type, in the proxy's words.
    const response = await fetch(`${setup.url}/v1/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${USER_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(ask("Hi")),
    });
    expect(response.status).toBe(529);
    expect(await response.json()).toEqual({
      type: "error",
      error: {
        type: "overloaded_error",
        message: "the Messages API is overloaded; try again shortly",
      },
    });
    const names = [...response.headers.keys()].filter(
      (name) =>
        !["content-length", "date", "connection", "keep-alive", "transfer-encoding"].includes(name),
    );
    // With upstream's retry hints, so the client's SDK backs off as upstream asks.
    expect(names.sort()).toEqual([
      "content-type",
      "request-id",
      "retry-after-ms",
      "x-should-retry",
    ]);
  });
});

describe("what goes upstream for whom", () => {
  it("metadata.user_id is the signed-in user's opaque id, never the client's", async () => {
    setup = await proxied(() => says("Hi"));
    const sent = (metadata: unknown) =>
      fetch(`${setup?.url}/v1/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${USER_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ ...ask("Hi"), ...(metadata === undefined ? {} : { metadata }) }),
      });
    expect((await sent({ user_id: "someone-else" })).status).toBe(200);
    expect((await sent(undefined)).status).toBe(200);
    const ids = setup.api.requests.map(
      (request) => (request.body as { metadata?: { user_id?: string } }).metadata?.user_id,
    );
    expect(ids[0]).toMatch(/^[0-9a-f]{64}$/);
    // One user, one id; not the client's, and nothing of who they are.
    expect(ids[1]).toBe(ids[0]);
    expect(ids[0]).not.toContain("someone-else");
    expect(ids[0]).not.toContain("ada");
  });

  it("an upstream refusal keeps its status and type, in the proxy's words, with its request-id and retry-after", async () => {
    setup = await proxied([
      {
        error: {
          status: 400,
          type: "invalid_request_error",
          message: "Your credit balance is too low to access the Anthropic API (org org_SECRET).",
        },
      },
      {
        error: {
          status: 429,
          type: "rate_limit_error",
          message: "org org_SECRET: 40 000 tokens/min",
          retryAfterMs: 7_000,
        },
      },
      { error: { status: 500, type: "some_new_error", message: "internal detail" } },
    ]);
    const answers = [];
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${setup.url}/v1/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${USER_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify(ask("Hi")),
      });
      const text = await response.text();
      expect(text).not.toContain("SECRET");
      expect(text).not.toContain("internal detail");
      answers.push({
        status: response.status,
        body: JSON.parse(text),
        retry: response.headers.get("retry-after-ms"),
      });
    }
    expect(answers).toEqual([
      {
        status: 400,
        body: {
          type: "error",
          error: {
            type: "invalid_request_error",
            message: "the Messages API refused the request as invalid",
          },
        },
        retry: null,
      },
      {
        status: 429,
        body: {
          type: "error",
          error: {
            type: "rate_limit_error",
            message: "this proxy is rate limited by the Messages API; try again later",
          },
        },
        retry: "7000",
      },
      {
        status: 500,
        body: {
          type: "error",
          error: { type: "api_error", message: "the Messages API failed to answer" },
        },
        retry: "1",
      },
    ]);
  });
});
