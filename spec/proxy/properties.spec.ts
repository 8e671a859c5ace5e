/**
 * P1, P2, P4 as properties: the handler called directly with a fake upstream
 * `fetch`, for random bodies, headers and settings. What is forwarded is
 * checked against a small reference model of the rules, not the code's own.
 * Bodies are drawn as JSON carries them (no -0: see ../properties/wire.ts),
 * so what is forwarded can be compared with what was drawn.
 */
import { createProxy, type ProxyUsage } from "elyra-assistant/proxy";
import { memoryUsageStore } from "elyra-assistant/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runs, timeoutFor } from "../properties/runs.ts";
import { wireJsonValue } from "../properties/wire.ts";

const NUM_RUNS = 2_000;
const SERVER_KEY = "sk-ant-api03-server";
const MODELS = ["claude-sonnet-5-5", "claude-haiku-5"];
const CAP = 2048;
const CLIENT_SECRETS = ["sk-ant-api03-client", "user-token", "session=abc", "Bearer user-token"];

interface Forwarded {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** What upstream answers: a whole message, an event stream in random chunks, an error, or nothing. */
const upstreamAnswer = fc.oneof(
  fc.record({ kind: fc.constant("json" as const), input: fc.nat(5000), output: fc.nat(5000) }),
  fc.record({
    kind: fc.constant("sse" as const),
    input: fc.nat(5000),
    output: fc.nat(5000),
    chunk: fc.integer({ min: 1, max: 64 }),
    // The client reads this many chunks and leaves; undefined reads to the end.
    leaveAfter: fc.option(fc.nat(6), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant("error" as const), status: fc.constantFrom(400, 429, 500, 529) }),
  fc.record({ kind: fc.constant("unreachable" as const) }),
);
type Answer = typeof upstreamAnswer extends fc.Arbitrary<infer A> ? A : never;

const sseOf = (input: number, output: number) =>
  [
    [
      "message_start",
      {
        type: "message_start",
        message: {
          id: "m",
          type: "message",
          role: "assistant",
          content: [],
          model: "x",
          usage: { input_tokens: input, output_tokens: 1 },
        },
      },
    ],
    [
      "content_block_start",
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    ],
    [
      "content_block_delta",
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hé 🎉" } },
    ],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    [
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: "end_turn" },
        usage: { output_tokens: output },
      },
    ],
    ["message_stop", { type: "message_stop" }],
  ]
    .map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    .join("");

const fakeUpstream =
  (answer: Answer, calls: Forwarded[]): typeof globalThis.fetch =>
  async (url, init) => {
    calls.push({
      url: String(url),
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
      body: String(init?.body),
    });
    const secretHeaders = {
      "request-id": "req_1",
      "x-upstream-secret": "internal",
      "set-cookie": "lb=1",
    };
    switch (answer.kind) {
      case "json":
        return Response.json(
          {
            type: "message",
            content: [],
            usage: { input_tokens: answer.input, output_tokens: answer.output },
          },
          { headers: secretHeaders },
        );
      case "sse": {
        const bytes = new TextEncoder().encode(sseOf(answer.input, answer.output));
        const chunks: Uint8Array[] = [];
        for (let at = 0; at < bytes.length; at += answer.chunk)
          chunks.push(bytes.subarray(at, at + answer.chunk));
        return new Response(
          new ReadableStream<Uint8Array>({
            pull: (out) => {
              const next = chunks.shift();
              if (next === undefined) out.close();
              else out.enqueue(next);
            },
          }),
          { headers: { ...secretHeaders, "content-type": "text/event-stream" } },
        );
      }
      case "error":
        return Response.json(
          { type: "error", error: { type: "api_error", message: "no" } },
          { status: answer.status, headers: { ...secretHeaders, "retry-after": "3" } },
        );
      case "unreachable":
        throw new TypeError("fetch failed");
    }
  };

/** Mostly `good`, sometimes `bad`: random requests that are often valid, so both sides are tried. */
const mostly = <T, U>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<U>) =>
  fc.oneof({ weight: 5, arbitrary: good }, { weight: 1, arbitrary: bad });

const toolArb = fc.record(
  {
    name: mostly(
      fc.constantFrom("lookup", "code_execution", "web_search"),
      fc.oneof(fc.string(), fc.integer()),
    ),
    type: mostly(
      fc.constantFrom(
        undefined,
        "custom",
        "code_execution_20260120",
        "tool_search_tool_bm25_20251119",
      ),
      fc.constantFrom(
        "web_search_20250305",
        "tool_search_tool_regex_20251119",
        "tool_search_tool_bm25",
        "code_execution_20250825",
        "code_execution_20260120",
        "code_execution_latest",
        "bash_20250124",
        "",
      ),
    ),
    input_schema: fc.constant({ type: "object" }),
  },
  { requiredKeys: ["name", "input_schema"] },
);

const temperature = mostly(
  fc.double({ min: 0, max: 1, noNaN: true }),
  fc.constantFrom(2, -1, "0.5"),
);
const thinking = mostly(
  fc.oneof(
    fc.record({ type: fc.constant("enabled"), budget_tokens: fc.integer({ min: 1, max: CAP }) }),
    fc.constant({ type: "disabled" }),
    fc.constant({ type: "adaptive" }),
  ),
  fc.constantFrom(
    { type: "enabled" },
    { type: "enabled", budget_tokens: 10, extra: true },
    { type: "enabled", budget_tokens: CAP * 4 },
    "on",
  ),
);

const bodyArb = mostly(
  fc
    .record(
      {
        model: mostly(
          fc.constantFrom(...MODELS),
          fc.oneof(
            fc.constantFrom("claude-opus-9", "CLAUDE-SONNET-5-5", ""),
            fc.string(),
            fc.integer(),
          ),
        ),
        max_tokens: mostly(
          fc.integer({ min: 1, max: CAP }),
          fc.oneof(
            fc.integer({ min: -3, max: CAP * 2 }),
            fc.constantFrom(CAP + 1, 0, 1.5, "10", null),
          ),
        ),
        messages: mostly(fc.constant([{ role: "user", content: "Hi" }]), wireJsonValue()),
        stream: mostly(fc.boolean(), fc.constantFrom("true", null)),
        tools: mostly(fc.array(toolArb, { maxLength: 3 }), wireJsonValue()),
        mcp_servers: mostly(
          fc.constant([]),
          fc.constant([{ type: "url", url: "https://evil.example" }]),
        ),
        metadata: mostly(
          fc.record({ user_id: fc.oneof(fc.string(), fc.constant(null)) }, { requiredKeys: [] }),
          fc.oneof(wireJsonValue(), fc.constant({ user_id: "x", tier: "gold" })),
        ),
      },
      { requiredKeys: ["model", "max_tokens", "messages"] },
    )
    .chain((body) =>
      // Now and then a container, or a field no rule covers (always refused): rarer than the
      // rest, so most bodies still go.
      fc
        .oneof(
          { weight: 4, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.record({ temperature }) },
          { weight: 2, arbitrary: fc.record({ thinking }) },
          {
            weight: 1,
            arbitrary: fc.oneof(
              fc.record({ container: fc.constant("container_011CTa") }),
              fc.record({ container: fc.string({ minLength: 300, maxLength: 301 }) }),
              fc.record({ service_tier: fc.constantFrom("auto", "standard_only", "priority") }),
              fc.constant({ betas: ["anything"] }),
            ),
          },
        )
        .map((more) => ({ ...body, ...more })),
    ),
  fc.oneof(
    wireJsonValue(),
    fc.record({ model: fc.constantFrom(...MODELS), messages: fc.constant([]) }),
  ),
);

const headersArb = fc.record(
  {
    authorization: mostly(
      fc.constant("Bearer user-token"),
      fc.constantFrom("Bearer other", "user-token", "Bearer ", ""),
    ),
    "x-api-key": fc.constantFrom("sk-ant-api03-client", ""),
    cookie: fc.constant("session=abc"),
    "proxy-authorization": fc.constant("Bearer user-token"),
    "anthropic-version": fc.constantFrom("2023-06-01", "2026-10-21", "evil\u0001", "latest"),
    "anthropic-beta": fc.constant("mcp-client-2025-04-04"),
    "x-forwarded-for": fc.constant("10.0.0.1"),
  },
  { requiredKeys: ["authorization"] },
);

const settingsArb = fc.record({ codeExecution: fc.boolean(), stream: fc.boolean() });

/** The reference: would this request be forwarded? Written from the rules, not from the code. */
const shouldForward = (
  headers: Record<string, string>,
  body: unknown,
  settings: { codeExecution: boolean; stream: boolean },
): boolean => {
  if (headers.authorization !== "Bearer user-token") return false;
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  const b = body as Record<string, unknown>;
  if (typeof b.model !== "string" || !MODELS.includes(b.model)) return false;
  if (typeof b.max_tokens !== "number" || !Number.isInteger(b.max_tokens)) return false;
  if (b.max_tokens < 1 || b.max_tokens > CAP) return false;
  if (!Array.isArray(b.messages)) return false;
  if (b.stream !== undefined && typeof b.stream !== "boolean") return false;
  if (b.stream === true && !settings.stream) return false;
  if (b.mcp_servers !== undefined && !(Array.isArray(b.mcp_servers) && b.mcp_servers.length === 0))
    return false;
  const allowed = [
    ...["model", "max_tokens", "messages", "system", "stream", "tools", "tool_choice"],
    ...["mcp_servers", "temperature", "top_p", "top_k", "stop_sequences", "thinking"],
    ...["metadata", "container"],
  ];
  if (Object.keys(b).some((key) => !allowed.includes(key))) return false;
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  if (b.metadata !== undefined) {
    if (!isObject(b.metadata)) return false;
    if (Object.keys(b.metadata).some((key) => key !== "user_id")) return false;
    const id = b.metadata.user_id;
    if (id !== undefined && id !== null && typeof id !== "string") return false;
  }
  if (b.temperature !== undefined) {
    if (typeof b.temperature !== "number" || b.temperature < 0 || b.temperature > 1) return false;
  }
  if (b.thinking !== undefined) {
    if (!isObject(b.thinking)) return false;
    const { type, budget_tokens: budget, ...rest } = b.thinking;
    if (Object.keys(rest).length > 0) return false;
    if (type === "enabled") {
      if (typeof budget !== "number" || !Number.isInteger(budget) || budget < 1) return false;
      if (budget >= b.max_tokens) return false;
    } else if (!(type === "disabled" || type === "adaptive") || budget !== undefined) return false;
  }
  if (b.container !== undefined) {
    if (typeof b.container !== "string" || b.container.length > 256) return false;
    if (!settings.codeExecution) return false;
  }
  if (b.tools !== undefined) {
    if (!Array.isArray(b.tools)) return false;
    for (const tool of b.tools as unknown[]) {
      if (typeof tool !== "object" || tool === null || Array.isArray(tool)) return false;
      const { name, type } = tool as { name?: unknown; type?: unknown };
      if (typeof name !== "string") return false;
      if (type === undefined || type === "custom") continue;
      if (typeof type !== "string") return false;
      if (/^tool_search_tool_(bm25|regex)_\d{8}$/.test(type)) continue;
      if (!(settings.codeExecution && /^code_execution_\d{8}$/.test(type))) return false;
    }
  }
  return true;
};

/** The opaque id the proxy sends upstream for the user "ada" (an HMAC-SHA-256 in hex). */
const ADA_ID = expect.stringMatching(/^[0-9a-f]{64}$/);

/** The error body of a response whose body was read already: parsed from a clone taken before. */
const refused = new WeakMap<Response, Promise<{ error: { type: string; message: string } }>>();
const refusedWith = (response: Response) =>
  refused.get(response) ?? Promise.resolve({ error: { type: "", message: "" } });

const RETURNED = new Set([
  "content-type",
  "request-id",
  "retry-after",
  "cache-control",
  "x-accel-buffering",
]);

describe("the proxy's guarantees, for random requests", () => {
  it("P1, P2, P4: only allowed requests go, with the server's key alone; usage exactly once", {
    timeout: timeoutFor(),
  }, async () => {
    let forwarded = 0;
    await fc.assert(
      fc.asyncProperty(
        headersArb,
        bodyArb,
        settingsArb,
        upstreamAnswer,
        async (headers, body, settings, answer) => {
          const calls: Forwarded[] = [];
          const reports: ProxyUsage<string>[] = [];
          const usage = memoryUsageStore();
          const errors: unknown[] = [];
          // A fresh proxy for one request: its default rate limit (60 a minute) never refuses it.
          const handle = createProxy<string>({
            apiKey: SERVER_KEY,
            authenticate: (request) =>
              request.headers.get("authorization") === "Bearer user-token" ? "ada" : undefined,
            models: MODELS,
            maxTokens: CAP,
            ...settings,
            usage,
            upstream: "https://upstream.test",
            fetch: fakeUpstream(answer, calls),
            onUsage: (report) => reports.push(report),
            onError: (error) => errors.push(error),
          });
          const response = await handle(
            new Request("https://app.test/claude/v1/messages", {
              method: "POST",
              headers: { "content-type": "application/json", ...headers },
              body: JSON.stringify(body),
            }),
          );
          if (response.status >= 400) refused.set(response, response.clone().json());
          const leaveAfter = answer.kind === "sse" ? answer.leaveAfter : undefined;
          if (response.body !== null) {
            const reader = response.body.getReader();
            for (let read = 0; ; read++) {
              if (leaveAfter !== undefined && read >= leaveAfter) {
                await reader.cancel();
                break;
              }
              if ((await reader.read()).done) break;
            }
          }

          const forward = shouldForward(headers, body, settings);
          if (forward) forwarded++;
          expect(calls.length).toBe(forward ? 1 : 0);
          if (headers.authorization !== "Bearer user-token") expect(response.status).toBe(401);
          else if (!forward) expect([400, 422]).toContain(response.status);
          // Upstream's own statuses pass through; the proxy's never is a 500.
          if (forward && answer.kind === "error") {
            expect(response.status).toBe(answer.status);
            // In the proxy's words: nothing upstream said reaches the client.
            const said = (await refusedWith(response)).error.message;
            expect(said).not.toBe("no");
            expect(response.headers.get("retry-after")).toBe("3");
          } else expect(response.status).not.toBe(500);
          if (forward && answer.kind === "unreachable") expect(response.status).toBe(502);
          expect(errors).toEqual([]);
          for (const name of response.headers.keys()) expect(RETURNED).toContain(name);

          for (const call of calls) {
            expect(call.url).toBe("https://upstream.test/v1/messages");
            expect(Object.keys(call.headers).sort()).toEqual([
              "anthropic-version",
              "content-type",
              "x-api-key",
            ]);
            expect(call.headers["x-api-key"]).toBe(SERVER_KEY);
            for (const secret of CLIENT_SECRETS)
              expect(JSON.stringify(call.headers)).not.toContain(secret);
            // What went is exactly what was checked, with the proxy's own metadata: the
            // signed-in user's opaque id, never what the client sent.
            const sent = JSON.parse(call.body) as { metadata: { user_id: string } };
            expect(sent).toEqual({ ...(body as object), metadata: { user_id: ADA_ID } });
            expect(sent.metadata.user_id).not.toContain("ada");
          }

          expect(reports.length).toBe(forward ? 1 : 0);
          expect(usage.read(`value:"ada"`).requests).toBe(forward ? 1 : 0);
          const report = reports[0];
          if (report !== undefined && leaveAfter === undefined) {
            const sent =
              answer.kind === "json" || answer.kind === "sse"
                ? { inputTokens: answer.input, outputTokens: answer.output }
                : { inputTokens: 0, outputTokens: 0 };
            expect(report.usage).toEqual(sent);
            expect(report.user).toBe("ada");
          }
        },
      ),
      { numRuns: runs(NUM_RUNS) },
    );
    // The generators must try both sides. The count is of the requests the reference rules allow,
    // so it depends on the seed alone, not on load: about one in eight (199-252 of 2 000 seen over
    // seeds). The floor, one in twenty, is far below any seed's count and still fails generators
    // that stopped drawing allowed requests.
    expect(forwarded).toBeGreaterThan(runs(NUM_RUNS) / 20);
  });
});
