/**
 * The way upstream: by default undici's `request()` on kept-alive connections,
 * never the platform's `fetch`; the app's `fetch` when it gives one. Either way
 * the answer passes byte for byte, and a client that leaves drops upstream's.
 */
import { createProxy, type ProxyOptions, type ProxyUsage } from "elyra-assistant/proxy";
import { Agent, type Dispatcher, getGlobalDispatcher, setGlobalDispatcher } from "undici";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type Ada,
  type UpstreamAnswer as Answer,
  asForwarded,
  ask,
  bareUpstream,
  quietProxy,
  USER_TOKEN,
  until,
} from "./fixture.ts";

let upstream: Awaited<ReturnType<typeof bareUpstream>> | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await upstream?.close();
  upstream = undefined;
});

/** The proxy's handler in front of `url`, called directly (no server of its own). */
const proxyTo = (url: string, options: Partial<ProxyOptions<Ada>> = {}) => {
  const reports: ProxyUsage<Ada>[] = [];
  const handle = createProxy<Ada>({
    ...quietProxy(url),
    onUsage: (report) => reports.push(report),
    ...options,
  });
  return { handle, reports };
};

const post = (init: { stream?: boolean; signal?: AbortSignal } = {}) =>
  new Request("http://proxy.test/claude/v1/messages", {
    method: "POST",
    headers: { authorization: `Bearer ${USER_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ ...ask("Hi"), stream: init.stream ?? false }),
    ...(init.signal === undefined ? {} : { signal: init.signal }),
  });

const MESSAGE_START = `event: message_start\ndata: ${JSON.stringify({
  type: "message_start",
  message: { usage: { input_tokens: 42, output_tokens: 1 } },
})}\n\n`;

/** Streams `message_start`, then nothing: the answer stays open. */
const stalls: Answer = (_, response) => {
  response.writeHead(200, { "content-type": "text/event-stream" });
  response.write(MESSAGE_START);
};

describe("the default way upstream", () => {
  it("is undici on kept-alive connections, not the platform's fetch", async () => {
    upstream = await bareUpstream((_, response) => {
      response.writeHead(200, { "content-type": "application/json", "request-id": "req_1" });
      response.end(JSON.stringify({ type: "message", usage: { input_tokens: 3 } }));
    });
    const platformFetch = vi.spyOn(globalThis, "fetch");
    const { handle, reports } = proxyTo(upstream.url);
    for (let i = 0; i < 8; i++) {
      const response = await handle(post());
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ type: "message", usage: { input_tokens: 3 } });
    }
    expect(platformFetch).not.toHaveBeenCalled();
    expect(upstream.seen.requests).toBe(8);
    // Kept alive: undici may open a second while the first frees up, never one per request.
    expect(upstream.seen.sockets.size).toBeLessThanOrEqual(2);
    expect(reports.map((r) => r.usage.inputTokens)).toEqual([3, 3, 3, 3, 3, 3, 3, 3]);
  });

  it("joins a repeated header as fetch does, drops the rest, and passes a whole answer's bytes as sent", async () => {
    // Not UTF-8, not JSON: passed on as it is, with no usage read.
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x7d]);
    upstream = await bareUpstream((_, response) => {
      response.setHeader("request-id", ["req_a", "req_b"]);
      response.setHeader("set-cookie", "lb=1");
      response.writeHead(200, { "content-type": "application/json" });
      response.end(bytes);
    });
    const { handle, reports } = proxyTo(upstream.url);
    const response = await handle(post());
    expect(response.status).toBe(200);
    expect(response.headers.get("request-id")).toBe("req_a, req_b");
    expect([...response.headers.keys()].sort()).toEqual(["content-type", "request-id"]);
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
    expect(reports).toHaveLength(1);
    expect(JSON.parse(upstream.seen.bodies[0] ?? "")).toEqual(
      asForwarded({ ...ask("Hi"), stream: false }),
    );
  });
});

describe("a dispatcher the app set with setGlobalDispatcher", () => {
  it("carries every request, as it would the platform's fetch", async () => {
    upstream = await bareUpstream((_, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end("{}");
    });
    const seen: string[] = [];
    // An egress proxy, say: here an agent that notes where each request goes.
    class Egress extends Agent {
      override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) {
        seen.push(`${String(options.origin)}${options.path}`);
        return super.dispatch(options, handler);
      }
    }
    const previous = getGlobalDispatcher();
    const egress = new Egress();
    setGlobalDispatcher(egress);
    try {
      const { handle } = proxyTo(upstream.url);
      for (let i = 0; i < 2; i++) expect((await handle(post())).status).toBe(200);
    } finally {
      setGlobalDispatcher(previous);
      await egress.close();
    }
    expect(seen).toEqual([`${upstream.url}/v1/messages`, `${upstream.url}/v1/messages`]);
  });

  it("carries every request when it has dispatch() alone, not undici's other methods", async () => {
    upstream = await bareUpstream((_, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end("{}");
    });
    const agent = new Agent();
    const seen: string[] = [];
    const bare = {
      dispatch: (options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) => {
        seen.push(`${String(options.origin)}${options.path}`);
        return agent.dispatch(options, handler);
      },
    };
    const previous = getGlobalDispatcher();
    setGlobalDispatcher(bare as unknown as Dispatcher);
    try {
      const { handle } = proxyTo(upstream.url);
      for (let i = 0; i < 2; i++) expect((await handle(post())).status).toBe(200);
    } finally {
      setGlobalDispatcher(previous);
      await agent.close();
    }
    expect(seen).toEqual([`${upstream.url}/v1/messages`, `${upstream.url}/v1/messages`]);
  });
});

describe("a fetch the app gives", () => {
  it("carries every request, with the server's key", async () => {
    upstream = await bareUpstream((_, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end("{}");
    });
    const given = vi.fn<typeof globalThis.fetch>((input, init) => globalThis.fetch(input, init));
    const { handle } = proxyTo(upstream.url, { fetch: given });
    for (let i = 0; i < 3; i++) expect((await handle(post())).status).toBe(200);
    expect(given).toHaveBeenCalledTimes(3);
    const init = given.mock.calls[0]?.[1];
    expect(new Headers(init?.headers).get("x-api-key")).toBe("sk-ant-server-key");
    expect(upstream.seen.requests).toBe(3);
  });
});

const WAYS = {
  undici: {},
  "a given fetch": { fetch: (input, init) => globalThis.fetch(input, init) },
} satisfies Record<string, Partial<ProxyOptions<Ada>>>;

describe.each(Object.entries(WAYS))("by %s", (_, way) => {
  it("a client that leaves mid-stream drops upstream's answer; usage is reported once", async () => {
    upstream = await bareUpstream(stalls);
    const { handle, reports } = proxyTo(upstream.url, way);
    const response = await handle(post({ stream: true }));
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value ?? []).toString("utf8")).toBe(MESSAGE_START);
    await reader.cancel();
    await until(() => upstream?.seen.cut === 1);
    await until(() => reports.length === 1);
    expect(reports[0]?.usage.inputTokens).toBe(42);
  });

  it("a client whose request aborts mid-stream drops upstream's answer", async () => {
    upstream = await bareUpstream(stalls);
    const { handle, reports } = proxyTo(upstream.url, way);
    const client = new AbortController();
    const response = await handle(post({ stream: true, signal: client.signal }));
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    client.abort();
    await until(() => upstream?.seen.cut === 1);
    await until(() => reports.length === 1);
    expect(reports[0]?.usage.inputTokens).toBe(42);
  });

  it("a client that leaves before upstream's headers: 499, upstream dropped", async () => {
    upstream = await bareUpstream(() => undefined);
    const { handle, reports } = proxyTo(upstream.url, way);
    const client = new AbortController();
    const answer = handle(post({ signal: client.signal }));
    await until(() => upstream?.seen.requests === 1);
    client.abort();
    expect((await answer).status).toBe(499);
    await until(() => upstream?.seen.cut === 1);
    expect(reports).toHaveLength(1);
  });

  it("an answer without a body (204) passes with its status and no body", async () => {
    upstream = await bareUpstream((_, response) => {
      response.writeHead(204, { "request-id": "req_204" });
      response.end();
    });
    const { handle, reports } = proxyTo(upstream.url, way);
    const response = await handle(post());
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
    expect(response.headers.get("request-id")).toBe("req_204");
    expect(reports).toHaveLength(1);
  });

  it("an upstream that can't be reached: 502, usage reported once", async () => {
    const closed = await bareUpstream(() => undefined);
    await closed.close();
    const { handle, reports } = proxyTo(closed.url, way);
    const response = await handle(post());
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: { type: "api_error" } });
    expect(reports).toHaveLength(1);
  });

  it("an answer cut mid-stream errors the client's stream, usage reported once", async () => {
    upstream = await bareUpstream((_, response) => {
      stalls(_, response);
      setTimeout(() => response.socket?.destroy(), 20);
    });
    const { handle, reports } = proxyTo(upstream.url, way);
    const response = await handle(post({ stream: true }));
    await expect(response.text()).rejects.toThrow();
    await until(() => reports.length === 1);
    expect(reports[0]?.usage.inputTokens).toBe(42);
  });
});
