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
const STREAMS_PER_ROUND = 1_000;
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

/**
 * Requests per second for `count` requests, `CONCURRENCY` at a time: whole
 * JSON answers, or event streams each read to its end.
 */
const requestsPerSecond = async (base: string, count: number, stream = false): Promise<number> => {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const response = await post(base, stream);
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

/** The least and the most of per-round figures, as "a – b". */
const spread = (values: ReadonlyArray<number>, round: (value: number) => number): string =>
  `${round(Math.min(...values))} – ${round(Math.max(...values))}`;

interface Side {
  readonly base: string;
  /** Requests/s of each round: whole JSON answers, and streams read to their end. */
  readonly rps: number[];
  readonly streamRps: number[];
  /** Every first byte, and each round's own. */
  readonly ttfb: number[];
  readonly ttfbRounds: number[][];
}

const side = (base: string): Side => ({
  base,
  rps: [],
  streamRps: [],
  ttfb: [],
  ttfbRounds: [],
});

const run = async (): Promise<BenchResult> => {
  const standIn = await startStandIn(import.meta.url);
  const proxy = await startProxy(standIn.url);
  const direct = side(standIn.url);
  const proxied = side(proxy.url);
  try {
    // Warm both paths: connections, JIT.
    for (const { base } of [direct, proxied]) {
      await requestsPerSecond(base, 500);
      await requestsPerSecond(base, 200, true);
      await firstBytes(base, 30);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const one of round % 2 === 0 ? [direct, proxied] : [proxied, direct]) {
        one.rps.push(await requestsPerSecond(one.base, REQUESTS_PER_ROUND));
        one.streamRps.push(await requestsPerSecond(one.base, STREAMS_PER_ROUND, true));
        const firsts = await firstBytes(one.base, TTFB_SAMPLES / ROUNDS);
        one.ttfb.push(...firsts);
        one.ttfbRounds.push(firsts);
      }
    }
  } finally {
    proxy.child.stdin?.end();
    standIn.child.stdin?.end();
  }
  const rounds = Array.from({ length: ROUNDS }, (_, i) => i);
  /** Each round's proxied ÷ direct. */
  const ratios = (of: (one: Side) => number[]) =>
    rounds.map((i) => (of(proxied)[i] ?? Number.NaN) / (of(direct)[i] ?? Number.NaN));
  const rpsRatio = median(proxied.rps) / median(direct.rps);
  const streamRatio = median(proxied.streamRps) / median(direct.streamRps);
  const addedP50 = median(proxied.ttfb) - median(direct.ttfb);
  const addedP50Rounds = rounds.map(
    (i) => median(proxied.ttfbRounds[i] ?? []) - median(direct.ttfbRounds[i] ?? []),
  );
  const addedP99 = quantile(proxied.ttfb, 0.99) - quantile(direct.ttfb, 0.99);
  const rows = [
    {
      case: `requests/s, ${CONCURRENCY} at a time, small JSON`,
      direct: r2(median(direct.rps)),
      proxied: r2(median(proxied.rps)),
      ratio: r3(rpsRatio),
      rounds: spread(
        ratios((one) => one.rps),
        r3,
      ),
      target: `≥ ${TARGET_RPS_RATIO}×`,
      pass: rpsRatio >= TARGET_RPS_RATIO,
    },
    {
      case: `requests/s, ${CONCURRENCY} at a time, streamed`,
      direct: r2(median(direct.streamRps)),
      proxied: r2(median(proxied.streamRps)),
      ratio: r3(streamRatio),
      rounds: spread(
        ratios((one) => one.streamRps),
        r3,
      ),
      target: `≥ ${TARGET_RPS_RATIO}×`,
      pass: streamRatio >= TARGET_RPS_RATIO,
    },
    {
      case: "first byte of a stream, ms (p50)",
      direct: r3(median(direct.ttfb)),
      proxied: r3(median(proxied.ttfb)),
      ratio: r3(addedP50),
      rounds: spread(addedP50Rounds, r3),
      target: `≤ ${TARGET_TTFB_ADDED_MS} ms added`,
      pass: addedP50 <= TARGET_TTFB_ADDED_MS,
    },
    {
      case: "first byte of a stream, ms (p99)",
      direct: r3(quantile(direct.ttfb, 0.99)),
      proxied: r3(quantile(proxied.ttfb, 0.99)),
      ratio: r3(addedP99),
      rounds: "",
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
    columns: ["case", "direct", "proxied", "ratio", "rounds", "target", "pass"],
    rows,
    notes: [
      "The stand-in and the proxy each run in their own child process; the client (undici fetch) here.",
      "ratio: proxied ÷ direct for requests/s; proxied − direct (ms) for the first byte.",
      `${ROUNDS} rounds, alternating which side goes first; requests/s is the median round, first bytes are pooled.`,
      "rounds: the least and the most of the rounds' own ratios (first byte: of each round's p50 added).",
    ],
  };
};

export const benchmark: Benchmark = { name: "proxy", run };
