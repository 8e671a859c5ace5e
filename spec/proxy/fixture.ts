/** The proxy served on loopback in front of the stand-in, and the real SDK pointed at it. */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Anthropic from "@anthropic-ai/sdk";
import { toNodeListener } from "elyra-assistant/http";
import { createProxy, type ProxyOptions, type ProxyUsage } from "elyra-assistant/proxy";
import {
  memoryUsageStore,
  type ScriptedResponse,
  type StandInRequest,
  standInMessagesApi,
} from "elyra-assistant/testing";
import { expect } from "vitest";

export const MODEL = "claude-sonnet-5-5";
export const SERVER_KEY = "sk-ant-server-key";
export const USER_TOKEN = "user-token";

export interface Ada {
  readonly id: string;
  readonly name: string;
}

/**
 * A body as the proxy forwards it: as sent, with the proxy's own metadata
 * (the signed-in user's opaque id, an HMAC-SHA-256 in hex) in place of any
 * the client sent.
 */
export const asForwarded = (body: object) => ({
  ...body,
  metadata: { user_id: expect.stringMatching(/^[0-9a-f]{64}$/) },
});

/** The app's sign-in: the bearer `user-token` is Ada; anything else is nobody. */
export const authenticate = (request: Request): Ada | undefined =>
  request.headers.get("authorization") === `Bearer ${USER_TOKEN}`
    ? { id: "ada", name: "Ada" }
    : undefined;

/**
 * The settings a proxy spec of a bare upstream starts from: the server's key,
 * Ada's sign-in, the one model, no rate limit, failures not told.
 */
export const quietProxy = (upstream: string): ProxyOptions<Ada> => ({
  apiKey: SERVER_KEY,
  authenticate,
  models: [MODEL],
  maxTokens: 4096,
  rateLimit: false,
  upstream,
  onError: () => undefined,
});

/** Serves a fetch handler on 127.0.0.1, at `…/claude`. */
export const serve = async (handle: (request: Request) => Promise<Response>) => {
  const server = createServer(toNodeListener(handle, { onError: () => undefined }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/claude`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};

type Script = ReadonlyArray<ScriptedResponse> | ((request: StandInRequest) => ScriptedResponse);

/** The stand-in, the proxy in front of it, and a client of the proxy; `close` ends all. */
export const proxied = async (
  script: Script,
  options: Partial<ProxyOptions<Ada>> = {},
  client: Partial<ConstructorParameters<typeof Anthropic>[0]> = {},
) => {
  const api = await standInMessagesApi(script);
  const usage = memoryUsageStore();
  const reports: ProxyUsage<Ada>[] = [];
  const errors: unknown[] = [];
  const proxy = createProxy<Ada>({
    apiKey: SERVER_KEY,
    authenticate,
    models: [MODEL],
    maxTokens: 4096,
    upstream: api.url,
    usage,
    onUsage: (report) => reports.push(report),
    onError: (error) => errors.push(error),
    ...options,
  });
  const served = await serve(proxy);
  const sdk = new Anthropic({
    baseURL: served.url,
    authToken: USER_TOKEN,
    maxRetries: 0,
    ...client,
  });
  return {
    api,
    usage,
    reports,
    errors,
    url: served.url,
    sdk,
    close: async () => {
      await served.close();
      await api.close();
    },
  };
};

/** Waits until `check` holds, polling every few ms (for what ends after the client is answered). */
export const until = async (check: () => boolean, ms = 2_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

export const ask = (text: string) => ({
  model: MODEL,
  max_tokens: 1024,
  messages: [{ role: "user" as const, content: text }],
});

/** How a bare upstream answers a request whose body it has read. */
export type UpstreamAnswer = (request: IncomingMessage, response: ServerResponse) => void;

/** A bare upstream: counts requests and sockets, and answers cut before their end. */
export const bareUpstream = async (answer: UpstreamAnswer) => {
  const seen = { requests: 0, sockets: new Set<unknown>(), cut: 0, bodies: [] as string[] };
  const server = createServer((request, response) => {
    seen.requests++;
    seen.sockets.add(request.socket);
    response.once("close", () => {
      if (!response.writableFinished) seen.cut++;
    });
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      body += chunk;
    });
    request.once("end", () => {
      seen.bodies.push(body);
      answer(request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};
