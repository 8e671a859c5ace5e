/**
 * Bodies that arrive too slowly, or not at all, and refusals given before a
 * body arrived, over node:http with kept-alive connections, for the
 * assistant's routes and the proxy: a body not all there within its time is
 * a 408, and any answer given before the body all arrived says
 * `connection: close` and closes, so the client's next request goes on a
 * fresh connection and succeeds (on a kept-alive one it failed: the server
 * tore the connection down under it).
 */
import { Agent, createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createApp, createHost } from "elyra-assistant";
import { assistantHttp, toNodeListener } from "elyra-assistant/http";
import { createProxy } from "elyra-assistant/proxy";
import { fakeModel, memoryStore } from "elyra-assistant/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BODY_TIMEOUT_MS, readJson } from "../../src/adapters/web/body.ts";

const TOKEN = "host-token-0123456789";
const HEADERS = {
  "x-elyra-token": TOKEN,
  "x-elyra-client": "w1",
  "content-type": "application/json",
};

let server: Server | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  agent?.destroy();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = agent = undefined;
});

const listen = async (handle: (request: Request) => Promise<Response>) => {
  server = createServer(toNodeListener(handle, { onError: () => undefined }));
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return (server.address() as AddressInfo).port;
};

interface Answer {
  readonly status: number | string;
  readonly connection: string | undefined;
  readonly body: string;
}

/** A request on the one kept-alive connection: `chunks` written one by one, `end` or left open. */
const send = (
  port: number,
  path: string,
  headers: Record<string, string>,
  chunks: ReadonlyArray<string>,
  end = true,
) =>
  new Promise<Answer>((resolve) => {
    const req = request(
      { host: "127.0.0.1", port, path, method: "POST", agent, headers },
      (res) => {
        let body = "";
        res.on("data", (chunk) => {
          body += chunk;
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }),
        );
      },
    );
    req.on("error", (error) =>
      resolve({ status: `error: ${error.message}`, connection: undefined, body: "" }),
    );
    for (const chunk of chunks) req.write(chunk);
    if (end) req.end();
  });

const assistant = () => {
  const app = createApp({ commands: [], userAbilities: () => [], assistant: { allow: [] } });
  const host = createHost(app, { model: fakeModel(), store: memoryStore() });
  return assistantHttp(host, { token: TOKEN, authenticate: () => ({ id: 1 }) });
};

const OVER_THE_LIMIT = Array.from({ length: 40 }, () => "x".repeat(50_000));

describe("the assistant's routes on node:http", () => {
  it("a body refused while it still arrives (over the limit, sent in chunks) closes the connection, and the next request works", async () => {
    const port = await listen(assistant());
    const refused = await send(port, "/__assistant/prompt", HEADERS, OVER_THE_LIMIT);
    expect(refused).toMatchObject({ status: 413, connection: "close" });
    const next = await send(port, "/__assistant/prompt", HEADERS, ['{"text":"Hi"}']);
    expect(next).toMatchObject({ status: 202, connection: "keep-alive" });
  });

  it("a refusal that reads no body (a wrong token) closes too, and the next request works", async () => {
    const port = await listen(assistant());
    const refused = await send(
      port,
      "/__assistant/prompt",
      { ...HEADERS, "x-elyra-token": "wrong" },
      OVER_THE_LIMIT.slice(0, 4),
    );
    expect(refused).toMatchObject({ status: 403, connection: "close" });
    const next = await send(port, "/__assistant/prompt", HEADERS, ['{"text":"Hi"}']);
    expect(next.status).toBe(202);
  });

  it("a body read whole keeps the connection", async () => {
    const port = await listen(assistant());
    expect(await send(port, "/__assistant/prompt", HEADERS, ['{"text":"Hi"}'])).toMatchObject({
      status: 202,
      connection: "keep-alive",
    });
  });
});

describe("a body that never ends", () => {
  /** A request whose body sends one piece and then nothing, never ending. */
  const stalled = () =>
    new Request("http://app.test/__assistant/prompt", {
      method: "POST",
      headers: HEADERS,
      body: new ReadableStream<Uint8Array>({
        start: (out) => out.enqueue(new TextEncoder().encode('{"text":')),
      }),
      duplex: "half",
    } as RequestInit);

  it("is a 408 once BODY_TIMEOUT_MS passed on the assistant's routes", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      const answer = assistant()(stalled());
      await vi.advanceTimersByTimeAsync(BODY_TIMEOUT_MS - 1);
      let settled = false;
      void answer.then(() => {
        settled = true;
      });
      await vi.advanceTimersByTimeAsync(0);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      const response = await answer;
      expect(response.status).toBe(408);
      expect(await response.json()).toEqual({
        error: { type: "tooSlow", message: "the body took over 10 s to arrive" },
      });
    } finally {
      vi.useRealTimers();
    }
  });

  it("readJson stops reading it at its time: TooSlow", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      const read = readJson(stalled(), 1_000, 500);
      await vi.advanceTimersByTimeAsync(500);
      expect(await read).toMatchObject({ _tag: "Left", left: { _tag: "TooSlow", limitMs: 500 } });
    } finally {
      vi.useRealTimers();
    }
  });

  it("through the proxy on node:http, with and without a length: 408 timeout_error, the connection closed, the next request answered", async () => {
    const proxy = createProxy({
      apiKey: "sk-ant-server",
      authenticate: () => ({ id: 1 }),
      models: ["claude-sonnet-5-5"],
      maxTokens: 100,
      rateLimit: false,
      upstream: "http://127.0.0.1:9",
      bodyTimeoutMs: 300,
      onError: () => undefined,
    });
    const port = await listen(proxy);
    const json = { "content-type": "application/json" };
    for (const headers of [{ ...json, "content-length": "100" }, json]) {
      const slow = await send(port, "/v1/messages", headers, ['{"model":'], false);
      expect(slow.status).toBe(408);
      expect(slow.connection).toBe("close");
      expect(JSON.parse(slow.body)).toEqual({
        type: "error",
        error: { type: "timeout_error", message: "the body took over 0.3 s to arrive" },
      });
      const next = await send(port, "/v1/messages", json, [
        '{"model":"other","max_tokens":1,"messages":[]}',
      ]);
      expect(next.status).toBe(422);
    }
  });
});
