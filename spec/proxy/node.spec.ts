/**
 * Served on node:http (`toNodeListener`), the proxy writes upstream's answer
 * to Node's response itself, with no `Response` or web stream on the way:
 * the same bytes, headers, statuses, cuts and usage as an answer by
 * `Response`, the event stream piped as it arrives and held back while the
 * client reads slowly. Each case by undici (the default) and by a fetch the
 * app gives.
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { createProxy, type ProxyOptions, type ProxyUsage } from "elyra-assistant/proxy";
import { simulatedClock } from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  type Ada,
  ask,
  bareUpstream,
  quietProxy,
  serve,
  type UpstreamAnswer,
  USER_TOKEN,
  until,
} from "./fixture.ts";

let upstream: Awaited<ReturnType<typeof bareUpstream>> | undefined;
let served: Awaited<ReturnType<typeof serve>> | undefined;
afterEach(async () => {
  await served?.close();
  await upstream?.close();
  served = undefined;
  upstream = undefined;
});

/** The proxy in front of a bare upstream answering by `answer`, served on loopback. */
const proxyOn = async (answer: UpstreamAnswer, way: Partial<ProxyOptions<Ada>>) => {
  upstream = await bareUpstream(answer);
  const reports: ProxyUsage<Ada>[] = [];
  const proxy = createProxy<Ada>({
    ...quietProxy(upstream.url),
    onUsage: (report) => reports.push(report),
    ...way,
  });
  served = await serve(proxy);
  return { url: served.url, reports, seen: upstream.seen };
};

/** A request to the proxy over node:http: resolves with the answer's head, its body unread. */
const post = (url: string, stream: boolean) => {
  const body = JSON.stringify({ ...ask("Hi"), stream });
  const out = httpRequest(`${url}/v1/messages`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${USER_TOKEN}`,
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
    },
  });
  const answer = new Promise<IncomingMessage>((resolve, reject) => {
    out.once("response", resolve);
    out.once("error", reject);
  });
  out.end(body);
  return { out, answer };
};

/** An answer's body whole; rejects when its connection is cut before the end. */
const bytesOf = (response: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on("data", (chunk: Buffer) => chunks.push(chunk));
    response.once("end", () => resolve(Buffer.concat(chunks)));
    response.once("error", reject);
    response.once("close", () => {
      if (!response.complete) reject(new Error("the answer was cut"));
    });
    // A paused answer too: a listener alone doesn't resume it.
    response.resume();
  });

const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

const MESSAGE_START = event("message_start", {
  type: "message_start",
  message: { usage: { input_tokens: 42, output_tokens: 1 } },
});

/** A whole stream, multi-byte characters and all, with its usage: 42 in, 7 out. */
const STREAM = Buffer.from(
  [
    MESSAGE_START,
    event("content_block_delta", {
      type: "content_block_delta",
      index: 0,
      delta: { type: "text_delta", text: "Straße, 東京 and 🎉" },
    }),
    event("message_delta", { type: "message_delta", usage: { output_tokens: 7 } }),
    event("message_stop", { type: "message_stop" }),
  ].join(""),
);

/** Writes `bytes` in chunks of 1, 3, 7 and 2 bytes, cycled, a turn of the event loop apart. */
const inPieces = (bytes: Buffer): UpstreamAnswer => {
  return (_, response) => {
    response.writeHead(200, { "content-type": "text/event-stream", "request-id": "req_s" });
    const sizes = [1, 3, 7, 2];
    let at = 0;
    const next = (i: number) => {
      if (at >= bytes.length) return void response.end();
      const size = sizes[i % sizes.length] ?? 1;
      response.write(bytes.subarray(at, at + size));
      at += size;
      setImmediate(() => next(i + 1));
    };
    next(0);
  };
};

/** Streams `message_start`, then nothing: the answer stays open. */
const stalls: UpstreamAnswer = (_, response) => {
  response.writeHead(200, { "content-type": "text/event-stream" });
  response.write(MESSAGE_START);
};

const WAYS = {
  undici: {},
  "a given fetch": { fetch: (input, init) => globalThis.fetch(input, init) },
} satisfies Record<string, Partial<ProxyOptions<Ada>>>;

describe.each(Object.entries(WAYS))("served on node:http, by %s", (_, way) => {
  it("an event stream passes byte for byte as it arrives, with no-buffering headers; its usage is reported", async () => {
    const proxy = await proxyOn(inPieces(STREAM), way);
    const { answer } = post(proxy.url, true);
    const response = await answer;
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("text/event-stream");
    expect(response.headers["request-id"]).toBe("req_s");
    expect(response.headers["cache-control"]).toBe("no-cache");
    expect(response.headers["x-accel-buffering"]).toBe("no");
    expect((await bytesOf(response)).equals(STREAM)).toBe(true);
    await until(() => proxy.reports.length === 1);
    expect(proxy.reports[0]?.usage).toMatchObject({ inputTokens: 42, outputTokens: 7 });
  });

  it("a whole answer passes its bytes as sent, with their length, and no header but content-type and request-id", async () => {
    // Not UTF-8, not JSON: passed on as it is, with no usage read.
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x7d]);
    const proxy = await proxyOn((_, response) => {
      response.setHeader("request-id", ["req_a", "req_b"]);
      response.setHeader("set-cookie", "lb=1");
      response.writeHead(200, { "content-type": "application/json" });
      response.end(bytes);
    }, way);
    const response = await post(proxy.url, false).answer;
    expect(response.statusCode).toBe(200);
    expect(response.headers["request-id"]).toBe("req_a, req_b");
    expect(response.headers["content-length"]).toBe("5");
    expect(response.headers["set-cookie"]).toBeUndefined();
    expect((await bytesOf(response)).equals(bytes)).toBe(true);
    expect(proxy.reports).toHaveLength(1);
  });

  it("a whole answer without a content type gets the listener's own, as an answer by Response did", async () => {
    const proxy = await proxyOn((_, response) => {
      response.end('{"type":"message"}');
    }, way);
    const response = await post(proxy.url, false).answer;
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("text/plain; charset=UTF-8");
    expect((await bytesOf(response)).toString()).toBe('{"type":"message"}');
  });

  it("an answer without a body (204) passes with its status and request-id", async () => {
    const proxy = await proxyOn((_, response) => {
      response.writeHead(204, { "request-id": "req_204" });
      response.end();
    }, way);
    const response = await post(proxy.url, false).answer;
    expect(response.statusCode).toBe(204);
    expect(response.headers["request-id"]).toBe("req_204");
    expect((await bytesOf(response)).length).toBe(0);
    expect(proxy.reports).toHaveLength(1);
  });

  it("a client that leaves mid-stream drops upstream's answer; usage is reported once", async () => {
    const proxy = await proxyOn(stalls, way);
    const response = await post(proxy.url, true).answer;
    const [first] = (await new Promise((resolve) =>
      response.once("data", (c) => resolve([c])),
    )) as [Buffer];
    expect(first.toString("utf8")).toBe(MESSAGE_START);
    response.destroy();
    await until(() => proxy.seen.cut === 1);
    await until(() => proxy.reports.length === 1);
    expect(proxy.reports[0]?.usage.inputTokens).toBe(42);
  });

  it("a client that leaves before upstream's headers drops upstream's call; usage is reported once", async () => {
    const proxy = await proxyOn(() => undefined, way);
    const { out, answer } = post(proxy.url, false);
    answer.catch(() => undefined);
    await until(() => proxy.seen.requests === 1);
    out.destroy();
    await until(() => proxy.seen.cut === 1);
    await until(() => proxy.reports.length === 1);
  });

  it("an answer cut mid-stream cuts the client's; usage is reported once", async () => {
    const proxy = await proxyOn((request, response) => {
      stalls(request, response);
      setTimeout(() => response.socket?.destroy(), 20);
    }, way);
    const response = await post(proxy.url, true).answer;
    await expect(bytesOf(response)).rejects.toThrow();
    await until(() => proxy.reports.length === 1);
    expect(proxy.reports[0]?.usage.inputTokens).toBe(42);
  });

  it("a client that reads slowly holds upstream back, then gets every byte in order", async () => {
    const piece = Buffer.from(`data: ${"x".repeat(64 * 1024 - 9)}\n\n`);
    const pieces = 512; // 32 MB: more than the sockets on the way hold
    const sent = { pieces: 0, blocked: false };
    const proxy = await proxyOn((_, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      const more = () => {
        while (sent.pieces < pieces) {
          sent.pieces++;
          if (!response.write(piece)) {
            sent.blocked = true;
            return void response.once("drain", more);
          }
        }
        response.end();
      };
      more();
    }, way);
    const response = await post(proxy.url, true).answer;
    response.pause();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sent.blocked).toBe(true);
    expect(sent.pieces).toBeLessThan(pieces);
    const received = await bytesOf(response);
    expect(received.length).toBe(piece.length * pieces);
    for (let at = 0; at < received.length; at += piece.length)
      expect(received.subarray(at, at + piece.length).equals(piece)).toBe(true);
  }, 20_000);

  it.each([
    ["between events", [MESSAGE_START], true],
    [
      "between events, the blank line in pieces (CRLF)",
      [MESSAGE_START.replaceAll("\n", "\r\n").slice(0, -2), "\r", "\n"],
      true,
    ],
    ["mid-event", [MESSAGE_START, 'event: content_block_delta\ndata: {"ty'], false],
  ])(
    "silent for the timeout %s: the stream ends with the API's timeout event, else is cut",
    async (_, pieces, ended) => {
      const clock = simulatedClock();
      const proxy = await proxyOn(
        (__, response) => {
          response.writeHead(200, { "content-type": "text/event-stream" });
          const next = (i: number) => {
            const piece = pieces[i];
            if (piece === undefined) return;
            response.write(piece);
            setImmediate(() => next(i + 1));
          };
          next(0);
        },
        { ...way, clock },
      );
      const response = await post(proxy.url, true).answer;
      const received: Buffer[] = [];
      response.on("data", (chunk: Buffer) => received.push(chunk));
      const whole = bytesOf(response);
      whole.catch(() => undefined);
      const sent = pieces.join("");
      await until(() => Buffer.concat(received).toString() === sent);
      clock.increment(120_000);
      const timeoutEvent = event("error", {
        type: "error",
        error: { type: "timeout_error", message: "the Messages API sent nothing for 120 s" },
      });
      if (ended) expect((await whole).toString()).toBe(`${sent}${timeoutEvent}`);
      else await expect(whole).rejects.toThrow();
      await until(() => proxy.seen.cut === 1);
      await until(() => proxy.reports.length === 1);
      expect(proxy.reports[0]?.usage.inputTokens).toBe(42);
    },
  );

  it("an upstream that can't be reached: 502 api_error, usage reported once", async () => {
    const proxy = await proxyOn(() => undefined, way);
    await upstream?.close();
    const response = await post(proxy.url, false).answer;
    expect(response.statusCode).toBe(502);
    expect(JSON.parse((await bytesOf(response)).toString())).toMatchObject({
      type: "error",
      error: { type: "api_error" },
    });
    expect(proxy.reports).toHaveLength(1);
  });
});
