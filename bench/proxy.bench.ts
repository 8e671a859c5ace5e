/**
 * The proxy (issue 31, target 4) against a minimal pass-through (node:http
 * and undici, no checks) and a direct connection to the stand-in Messages
 * API, in the same run: the CPU of the proxy's process per request against
 * the pass-through's, the time to a stream's first byte, and requests per
 * second for the record; and a second floor, the pass-through with the
 * checks a proxy exists to make written by hand (bench/proxyByHand.ts), to
 * tell what the checks cost from what the library adds. The stand-in, the
 * proxy (the compiled package) and the two floors each run in a child
 * process of their own (bench/proxyChild.ts), so each server's CPU is its
 * own and the client here measures all sides alike.
 */
import { says } from "elyra-assistant/testing";
import { buildIfStale } from "./dist.ts";
import { MODEL, type ServerChild, startServer, TOKEN } from "./proxyChild.ts";
import { type Benchmark, type BenchResult, median } from "./report.ts";
import { serveStandInIfChild, startStandIn } from "./standInChild.ts";

const TARGET_CPU_RATIO = 1.1;
const TARGET_TTFB_ADDED_MS = 1;
const ROUNDS = 6;
const REQUESTS_PER_ROUND = 1_500;
const STREAMS_PER_ROUND = 1_000;
const CONCURRENCY = 32;
const TTFB_SAMPLES = 240;

// In the stand-in's child: a short answer, streamed or whole.
await serveStandInIfChild(import.meta.url, () => says("The bench's answer.", { pieces: 4 }));

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
const r2 = (value: number) => Math.round(value * 100) / 100;
const r3 = (value: number) => Math.round(value * 1000) / 1000;

/** The least and the most of per-round figures, as "a – b". */
const spread = (values: ReadonlyArray<number>, round: (value: number) => number): string =>
  `${round(Math.min(...values))} – ${round(Math.max(...values))}`;

interface Side {
  readonly name: string;
  readonly base: string;
  /** The server's process, when the side has one of its own (not the direct connection). */
  readonly server: ServerChild | undefined;
  /** Requests/s of each round: whole JSON answers, and streams read to their end. */
  readonly rps: number[];
  readonly streamRps: number[];
  /** The server process's CPU per request of each round, µs. */
  readonly cpuUs: number[];
  readonly streamCpuUs: number[];
  /** Every first byte, and each round's own. */
  readonly ttfb: number[];
  readonly ttfbRounds: number[][];
}

const side = (name: string, base: string, server?: ServerChild): Side => ({
  name,
  base,
  server,
  rps: [],
  streamRps: [],
  cpuUs: [],
  streamCpuUs: [],
  ttfb: [],
  ttfbRounds: [],
});

/** Requests/s of `count` requests, and the side's server CPU per request (µs) meanwhile. */
const measured = async (one: Side, count: number, stream: boolean) => {
  const before = (await one.server?.cpuUs()) ?? 0;
  const rps = await requestsPerSecond(one.base, count, stream);
  const after = (await one.server?.cpuUs()) ?? 0;
  return { rps, cpuUs: (after - before) / count };
};

const run = async (): Promise<BenchResult> => {
  buildIfStale();
  const standIn = await startStandIn(import.meta.url);
  const proxyServer = await startServer("proxy", standIn.url);
  const passServer = await startServer("pass", standIn.url);
  const byHandServer = await startServer("byHand", standIn.url);
  const direct = side("direct", standIn.url);
  const pass = side("pass", passServer.url, passServer);
  const byHand = side("byHand", byHandServer.url, byHandServer);
  const proxied = side("proxied", proxyServer.url, proxyServer);
  const sides = [direct, pass, byHand, proxied];
  try {
    // Warm every path: connections, JIT.
    for (const { base } of sides) {
      await requestsPerSecond(base, 500);
      await requestsPerSecond(base, 300, true);
      await firstBytes(base, 30);
    }
    for (let round = 0; round < ROUNDS; round++) {
      // Each side goes first, second and third in turn.
      const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
      for (const one of order) {
        const whole = await measured(one, REQUESTS_PER_ROUND, false);
        one.rps.push(whole.rps);
        one.cpuUs.push(whole.cpuUs);
        const streamed = await measured(one, STREAMS_PER_ROUND, true);
        one.streamRps.push(streamed.rps);
        one.streamCpuUs.push(streamed.cpuUs);
        const firsts = await firstBytes(one.base, TTFB_SAMPLES / ROUNDS);
        one.ttfb.push(...firsts);
        one.ttfbRounds.push(firsts);
      }
    }
  } finally {
    proxyServer.stop();
    passServer.stop();
    byHandServer.stop();
    standIn.child.stdin?.end();
  }
  const rounds = Array.from({ length: ROUNDS }, (_, i) => i);
  /** Each round's `a` ÷ `b`. */
  const ratios = (a: Side, b: Side, of: (one: Side) => number[]) =>
    rounds.map((i) => (of(a)[i] ?? Number.NaN) / (of(b)[i] ?? Number.NaN));
  const cpuRatio = median(ratios(proxied, pass, (one) => one.streamCpuUs));
  const wholeCpuRatio = median(ratios(proxied, pass, (one) => one.cpuUs));
  const addedP50 = median(proxied.ttfb) - median(pass.ttfb);
  const addedP50Rounds = rounds.map(
    (i) => median(proxied.ttfbRounds[i] ?? []) - median(pass.ttfbRounds[i] ?? []),
  );
  const rpsRow = (what: string, of: (one: Side) => number[]) => {
    const ratio = median(ratios(proxied, direct, of));
    return {
      case: `requests/s, ${CONCURRENCY} at a time, ${what}`,
      direct: r2(median(of(direct))),
      passThrough: r2(median(of(pass))),
      proxied: r2(median(of(proxied))),
      ratio: r3(ratio),
      rounds: spread(ratios(proxied, direct, of), r3),
      target: `(for the record; pass ÷ direct ${r3(median(ratios(pass, direct, of)))})`,
      pass: true,
    };
  };
  /** A row of streamed CPU, `a` ÷ `b`, with the sides `shown` in their columns. */
  const floorRow = (
    what: string,
    shown: Partial<Record<"passThrough" | "byHand" | "proxied", Side>>,
    a: Side,
    b: Side,
    target: string,
  ) => ({
    case: what,
    direct: "",
    passThrough: shown.passThrough === undefined ? "" : r2(median(shown.passThrough.streamCpuUs)),
    byHand: shown.byHand === undefined ? "" : r2(median(shown.byHand.streamCpuUs)),
    proxied: shown.proxied === undefined ? "" : r2(median(shown.proxied.streamCpuUs)),
    ratio: r3(median(ratios(a, b, (one) => one.streamCpuUs))),
    rounds: spread(
      ratios(a, b, (one) => one.streamCpuUs),
      r3,
    ),
    target,
    pass: true,
  });
  const rows = [
    {
      case: "CPU µs of the server per streamed request",
      direct: "",
      passThrough: r2(median(pass.streamCpuUs)),
      proxied: r2(median(proxied.streamCpuUs)),
      ratio: r3(cpuRatio),
      rounds: spread(
        ratios(proxied, pass, (one) => one.streamCpuUs),
        r3,
      ),
      target: `≤ ${TARGET_CPU_RATIO}× the pass-through`,
      pass: cpuRatio <= TARGET_CPU_RATIO,
    },
    floorRow(
      "  the pass-through with a proxy's checks by hand (the floor's own cost)",
      { passThrough: pass, byHand },
      byHand,
      pass,
      "(shown: byHand ÷ passThrough)",
    ),
    floorRow(
      "  the proxy against the checks by hand",
      { byHand, proxied },
      proxied,
      byHand,
      "(shown: proxied ÷ byHand)",
    ),
    {
      case: "CPU µs of the server per small JSON request",
      direct: "",
      passThrough: r2(median(pass.cpuUs)),
      proxied: r2(median(proxied.cpuUs)),
      ratio: r3(wholeCpuRatio),
      rounds: spread(
        ratios(proxied, pass, (one) => one.cpuUs),
        r3,
      ),
      target: "(shown)",
      pass: true,
    },
    {
      case: "first byte of a stream, ms (p50)",
      direct: r3(median(direct.ttfb)),
      passThrough: r3(median(pass.ttfb)),
      proxied: r3(median(proxied.ttfb)),
      ratio: r3(addedP50),
      rounds: spread(addedP50Rounds, r3),
      target: `≤ ${TARGET_TTFB_ADDED_MS} ms added to the pass-through's`,
      pass: addedP50 <= TARGET_TTFB_ADDED_MS,
    },
    {
      case: "first byte of a stream, ms (p99)",
      direct: r3(quantile(direct.ttfb, 0.99)),
      passThrough: r3(quantile(pass.ttfb, 0.99)),
      proxied: r3(quantile(proxied.ttfb, 0.99)),
      ratio: r3(quantile(proxied.ttfb, 0.99) - quantile(pass.ttfb, 0.99)),
      rounds: "",
      target: "(shown)",
      pass: true,
    },
    rpsRow("streamed", (one) => one.streamRps),
    rpsRow("small JSON", (one) => one.rps),
  ];
  const list = (values: ReadonlyArray<number>) => values.map((v) => Math.round(v)).join(", ");
  return {
    title: "proxy",
    baseline:
      "a minimal pass-through (node:http server, undici request() over a kept-alive agent, no " +
      "checks, the body piped through) in its own process; for requests/s, a direct connection " +
      "to the stand-in",
    target:
      `the proxy's CPU per streamed request ≤ ${TARGET_CPU_RATIO}× the pass-through's; ` +
      `≤ ${TARGET_TTFB_ADDED_MS} ms added to its first byte; requests/s for the record`,
    pass: rows.every((row) => row.pass),
    headline: "ratio",
    columns: [
      "case",
      "direct",
      "passThrough",
      "byHand",
      "proxied",
      "ratio",
      "rounds",
      "target",
      "pass",
    ],
    rows,
    notes: [
      "The stand-in, the proxy, the pass-through and the pass-through with checks by hand each " +
        "run in their own child process; the client (undici fetch) here, the same for every side.",
      "CPU: process.cpuUsage of the server's own process (user + system), read by it before and " +
        `after each batch (${STREAMS_PER_ROUND} streams or ${REQUESTS_PER_ROUND} small JSON ` +
        `requests, ${CONCURRENCY} at a time), divided by the batch's requests.`,
      "ratio: proxied ÷ pass-through for CPU; proxied − pass-through (ms) for the first byte; " +
        "proxied ÷ direct for requests/s.",
      `${ROUNDS} rounds, each side first, second, third and fourth in turn; CPU and requests/s are the ` +
        "median of the rounds' ratios, first bytes are pooled (one at a time). rounds: the least " +
        "and the most of the rounds' own ratios (first byte: of each round's p50 added).",
      "byHand (bench/proxyByHand.ts): the pass-through with the checks a proxy exists to make, " +
        "written by hand the short way: the token compared, the body parsed and held to the " +
        "proxy's fields and settings, a counter a user a minute, the user id by HMAC, the body " +
        "sent as parsed with it, each stream's usage read from its events.",
      `CPU µs per streamed request by round: pass ${list(pass.streamCpuUs)}; byHand ${list(byHand.streamCpuUs)}; proxied ${list(proxied.streamCpuUs)}. Per small JSON request: pass ${list(pass.cpuUs)}; proxied ${list(proxied.cpuUs)}.`,
    ],
  };
};

export const benchmark: Benchmark = { name: "proxy", run };
