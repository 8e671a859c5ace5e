/**
 * The bounds on one MCP message (issue 29, item 7): 820 KiB of bad arguments
 * stalled the event loop for most of a second. A body over the byte bound is
 * refused unread past it; one holding too many values is refused before it
 * is parsed; on stdio, either line is answered with an error bearing its id
 * and the connection goes on. The mechanism is shown by counting (bytes
 * pulled, texts parsed); one loop-lag check, with a bound far from either
 * side, shows the stall itself.
 */
import { request as httpRequest } from "node:http";
import { PassThrough } from "node:stream";
import { Schema } from "effect";
import { createApp, defineCommand } from "elyra-assistant";
import {
  MCP_MAX_MESSAGE_BYTES,
  MCP_MAX_MESSAGE_VALUES,
  mcpHttp,
  serveMcpStdio,
} from "elyra-assistant/mcp";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loopback } from "./loopback.ts";

const ran: unknown[] = [];
const customersShow = defineCommand({
  name: "customers_show",
  description: "Show one customer by id.",
  can: "customers.view",
  args: { id: Schema.Number },
  run: ({ id }) => {
    ran.push(id);
    return { id };
  },
});
const app = createApp({
  commands: [customersShow],
  userAbilities: () => [],
  mcp: { allow: ["*"] },
});

const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** A tools/call whose arguments have `extra` unexpected properties: `extra + 2` values. */
const callText = (extra: number, id = 2): string => {
  const keys = Array.from({ length: extra }, (_, i) => `"k${i}":0`);
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"customers_show","arguments":{"id":1${keys.map((k) => `,${k}`).join("")}}}}`;
};

/** A body that counts the bytes read from it: `chunks` chunks of `size` bytes. */
const countedBody = (chunks: number, size: number) => {
  const pulled = { bytes: 0 };
  let left = chunks;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (left-- === 0) return controller.close();
        pulled.bytes += size;
        controller.enqueue(new Uint8Array(size).fill(0x20));
      },
      // Nothing is pulled until it is read.
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled };
};

const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: { ...HEADERS, ...headers },
    body,
    duplex: "half",
  } as RequestInit);

interface RpcError {
  readonly id: unknown;
  readonly error: { readonly code: number; readonly message: string };
}

afterEach(() => {
  vi.restoreAllMocks();
  ran.length = 0;
});

describe("mcpHttp: a body over the bounds is refused before it is parsed", () => {
  it("a Content-Length over the byte bound: 413, worded for people, the body never read", async () => {
    const handle = mcpHttp(app);
    const { stream, pulled } = countedBody(4, 64 * 1024);
    const response = await handle(
      post(stream, { "content-length": String(MCP_MAX_MESSAGE_BYTES + 1) }),
    );
    expect(response.status).toBe(413);
    const answer = (await response.json()) as RpcError;
    expect(answer.error.message).toBe(
      "This request is too large: a message to this server may be at most 1 MiB. Nothing was run; send less in one call.",
    );
    expect(pulled.bytes).toBe(0);
    await handle.close();
  });

  it("a body with no length, over the bound: read no further than one chunk past it", async () => {
    const handle = mcpHttp(app, { maxMessageBytes: 100_000 });
    const { stream, pulled } = countedBody(1_000, 16 * 1024);
    const response = await handle(post(stream));
    expect(response.status).toBe(413);
    expect(((await response.json()) as RpcError).error.message).toMatch(
      /^This request is too large: a message to this server may be at most 100,000 bytes\./,
    );
    expect(pulled.bytes).toBeLessThanOrEqual(100_000 + 2 * 16 * 1024);
    await handle.close();
  });

  it("more values than the bound: 413 before the body is parsed (JSON.parse never sees it)", async () => {
    const handle = mcpHttp(app);
    const text = callText(MCP_MAX_MESSAGE_VALUES);
    const parse = vi.spyOn(JSON, "parse");
    const response = await handle(post(text));
    const parsedIt = parse.mock.calls.some(([parsed]) => parsed === text);
    parse.mockRestore();
    expect(response.status).toBe(413);
    expect(((await response.json()) as RpcError).error.message).toBe(
      "This request holds too many values: a message to this server may hold at most 4,096 (each list item and each field counts). Nothing was run; send less in one call.",
    );
    expect(parsedIt).toBe(false);
    await handle.close();
  });

  it("bounds that aren't whole numbers above 0 are misuse", async () => {
    expect(() => mcpHttp(app, { maxMessageValues: 0 })).toThrow(
      "mcpHttp: maxMessageValues must be a whole number above 0, not 0",
    );
    await expect(serveMcpStdio(app, { maxMessageBytes: 1.5 })).rejects.toThrow(
      "serveMcpStdio: maxMessageBytes must be a whole number above 0, not 1.5",
    );
  });
});

describe("serveMcpStdio: a line over the bounds is answered with an error, and the connection goes on", () => {
  const open = async (options: { maxMessageBytes?: number } = {}) => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const lines: Array<Record<string, unknown>> = [];
    let buffered = "";
    stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let at = buffered.indexOf("\n"); at >= 0; at = buffered.indexOf("\n")) {
        lines.push(JSON.parse(buffered.slice(0, at)) as Record<string, unknown>);
        buffered = buffered.slice(at + 1);
      }
    });
    const served = await serveMcpStdio(app, { stdin, stdout, ...options });
    const answerTo = async (id: number) => {
      await vi.waitFor(() => expect(lines.some((line) => line.id === id)).toBe(true));
      return lines.find((line) => line.id === id) as Record<string, unknown>;
    };
    const send = (text: string) => stdin.write(`${text}\n`);
    send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "s", version: "1" },
        },
      }),
    );
    await answerTo(1);
    send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    return { send, answerTo, served };
  };

  it("too many values: an error with the request's id, nothing run, and the next call answered", async () => {
    const { send, answerTo, served } = await open();
    send(callText(MCP_MAX_MESSAGE_VALUES, 7));
    const refused = (await answerTo(7)) as unknown as RpcError;
    expect(refused.error.code).toBe(-32600);
    expect(refused.error.message).toMatch(/^This request holds too many values/);
    send(callText(0, 8));
    expect(await answerTo(8)).toHaveProperty("result");
    expect(ran).toEqual([1]);
    await served.close();
  });

  it("a line over the byte bound: an error with its id, read from the line's end", async () => {
    const { send, answerTo, served } = await open({ maxMessageBytes: 1024 });
    send(
      `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"customers_show","arguments":{"id":"${"x".repeat(200_000)}"}},"id":"big"}`,
    );
    const refused = (await answerTo("big" as unknown as number)) as unknown as RpcError;
    expect(refused.error.message).toBe(
      "This request is too large: a message to this server may be at most 1 KiB. Nothing was run; send less in one call.",
    );
    send(callText(0, 9));
    expect(await answerTo(9)).toHaveProperty("result");
    await served.close();
  });
});

describe("the stall of one call with 820 KiB of bad arguments", () => {
  const net = loopback();
  afterEach(() => net.cleanup());

  /** The longest the event loop went without running a timer while `work` ran. */
  const longestStall = async (work: () => Promise<unknown>): Promise<number> => {
    let last = performance.now();
    let worst = 0;
    const tick = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
    }, 1);
    await work();
    clearInterval(tick);
    return Math.max(worst, performance.now() - last);
  };

  /** One POST of `body` in the session, on its own connection, the body written whole. */
  const send = (url: URL, session: Record<string, string>, body: Buffer) =>
    new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        url,
        {
          method: "POST",
          headers: { ...HEADERS, ...session, "content-length": String(body.length) },
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.on("error", reject);
      req.end(body);
    });

  it("is refused with the loop never held for long (it was held 670 ms and more)", async () => {
    const { url } = await net.serve(app);
    const { transport } = await net.connect(url);
    const session = {
      "mcp-session-id": transport.sessionId ?? "",
      "mcp-protocol-version": transport.protocolVersion ?? "",
    };
    const big = Buffer.from(callText(85_000));
    expect(big.length).toBeGreaterThan(820 * 1024);
    // Warm the path first, so the figure is the call's, not the first compile's.
    await send(url, session, big);
    let status = 0;
    const stall = await longestStall(async () => {
      status = await send(url, session, big);
    });
    // Generous, for a loaded 2-core machine: without the bounds this call took well over a second here.
    expect(stall).toBeLessThan(300);
    expect(status).toBe(413);
  });
});
