/**
 * The proxy against a direct connection to the stand-in Messages API:
 * requests per second for concurrent small JSON requests, and the time to
 * the first byte of a stream. The stand-in and the proxy each run in a child
 * process of their own, so the client here measures both sides alike.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { toNodeListener } from "elyra-assistant/http";
import { createProxy } from "elyra-assistant/proxy";
import { says } from "elyra-assistant/testing";
import { SOURCE_NODE_ARGS } from "../spec/fixtures/sourceNode.ts";
import type { Benchmark, BenchResult } from "./report.ts";
import { serveStandInIfChild, startStandIn } from "./standInChild.ts";

const TARGET_RPS_RATIO = 0.9;
const TARGET_TTFB_ADDED_MS = 2;
const MODEL = "claude-bench";
const TOKEN = "bench-user";
const ROUNDS = 6;
const REQUESTS_PER_ROUND = 2_000;
const CONCURRENCY = 32;
const TTFB_SAMPLES = 200;

// In the stand-in's child: a short answer, streamed or whole.
await serveStandInIfChild(import.meta.url, () => says("The bench's answer.", { pieces: 4 }));

/** In the proxy's child: the proxy in front of the stand-in at the URL after `--proxy`. */
const serveProxyIfChild = async (): Promise<void> => {
  const entry = process.argv[1];
  const at = process.argv.indexOf("--proxy");
  if (entry === undefined || pathToFileURL(entry).href !== import.meta.url || at < 0) return;
  const proxy = createProxy({
    apiKey: "bench-server-key",
    authenticate: (request) =>
      request.headers.get("authorization") === `Bearer ${TOKEN}` ? "bench" : undefined,
    models: [MODEL],
    maxTokens: 1024,
    upstream: process.argv[at + 1] ?? "",
    rateLimit: { calls: 1_000_000, perSeconds: 60 },
  });
  const server = createServer(toNodeListener(proxy));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
  process.stdin.resume();
  process.stdin.on("end", () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
};
await serveProxyIfChild();

const startProxy = async (upstream: string): Promise<{ url: string; child: ChildProcess }> => {
  const child = spawn(
    process.execPath,
    [...SOURCE_NODE_ARGS, fileURLToPath(import.meta.url), "--proxy", upstream],
    { cwd: fileURLToPath(new URL("..", import.meta.url)), stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> });
  const [url] = (await Promise.race([
    once(lines, "line"),
    once(child, "exit").then(([code]) => {
      throw new Error(`the proxy exited (${String(code)}) before it listened`);
    }),
  ])) as [string];
  return { url, child };
};

const body = (stream: boolean) =>
  JSON.stringify({
    model: MODEL,
    max_tokens: 256,
    messages: [{ role: "user", content: "Hello" }],
    stream,
  });

const post = (base: string, stream: boolean) =>
  fetch(`${base}/v1/messages`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "anthropic-version": "2023-06-01",
      "content-type": "application/json",
    },
    body: body(stream),
  });

/** Requests per second for `count` whole requests, `CONCURRENCY` at a time. */
const requestsPerSecond = async (base: string, count: number): Promise<number> => {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const response = await post(base, false);
      if (response.status !== 200) throw new Error(`status ${response.status}`);
      await response.arrayBuffer();
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return (count * 1000) / (performance.now() - start);
};

/** Milliseconds from sending a stream request to its first body byte, one at a time. */
const firstBytes = async (base: string, samples: number): Promise<number[]> => {
  const out: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    const response = await post(base, true);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    out.push(performance.now() - start);
    if (first.done) throw new Error("an empty stream");
    while (!(await reader.read()).done) {}
  }
  return out;
};

const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
const median = (values: ReadonlyArray<number>) => quantile(values, 0.5);
const r2 = (value: number) => Math.round(value * 100) / 100;
const r3 = (value: number) => Math.round(value * 1000) / 1000;

const run = async (): Promise<BenchResult> => {
  const standIn = await startStandIn(import.meta.url);
  const proxy = await startProxy(standIn.url);
  const direct = { rps: [] as number[], ttfb: [] as number[] };
  const proxied = { rps: [] as number[], ttfb: [] as number[] };
  try {
    // Warm both paths: connections, JIT.
    await requestsPerSecond(standIn.url, 500);
    await requestsPerSecond(proxy.url, 500);
    await firstBytes(standIn.url, 30);
    await firstBytes(proxy.url, 30);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [direct, proxied] : [proxied, direct];
      for (const side of order) {
        const base = side === direct ? standIn.url : proxy.url;
        side.rps.push(await requestsPerSecond(base, REQUESTS_PER_ROUND));
        side.ttfb.push(...(await firstBytes(base, TTFB_SAMPLES / ROUNDS)));
      }
    }
  } finally {
    proxy.child.stdin?.end();
    standIn.child.stdin?.end();
  }
  const rpsRatio = median(proxied.rps) / median(direct.rps);
  const addedP50 = median(proxied.ttfb) - median(direct.ttfb);
  const addedP99 = quantile(proxied.ttfb, 0.99) - quantile(direct.ttfb, 0.99);
  const rows = [
    {
      case: `requests/s, ${CONCURRENCY} at a time, small JSON`,
      direct: r2(median(direct.rps)),
      proxied: r2(median(proxied.rps)),
      ratio: r3(rpsRatio),
      target: `≥ ${TARGET_RPS_RATIO}×`,
      pass: rpsRatio >= TARGET_RPS_RATIO,
    },
    {
      case: "first byte of a stream, ms (p50)",
      direct: r3(median(direct.ttfb)),
      proxied: r3(median(proxied.ttfb)),
      ratio: r3(addedP50),
      target: `≤ ${TARGET_TTFB_ADDED_MS} ms added`,
      pass: addedP50 <= TARGET_TTFB_ADDED_MS,
    },
    {
      case: "first byte of a stream, ms (p99)",
      direct: r3(quantile(direct.ttfb, 0.99)),
      proxied: r3(quantile(proxied.ttfb, 0.99)),
      ratio: r3(addedP99),
      target: "(shown, not a target)",
      pass: true,
    },
  ];
  return {
    title: "proxy",
    baseline: "a direct connection to the stand-in",
    target: `≥ ${TARGET_RPS_RATIO}× the requests/s; ≤ ${TARGET_TTFB_ADDED_MS} ms added to the first byte`,
    pass: rows.every((row) => row.pass),
    headline: "ratio",
    columns: ["case", "direct", "proxied", "ratio", "target", "pass"],
    rows,
    notes: [
      "The stand-in and the proxy each run in their own child process; the client (undici fetch) here.",
      "ratio: proxied ÷ direct for requests/s; proxied − direct (ms) for the first byte.",
      `${ROUNDS} rounds, alternating which side goes first; requests/s is the median round, first bytes are pooled.`,
    ],
  };
};

export const benchmark: Benchmark = { name: "proxy", run };
