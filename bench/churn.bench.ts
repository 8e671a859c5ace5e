/**
 * Window churn (a soak): 20 000 windows opened and done with over real HTTP,
 * 32 at a time, through `assistantHttp` on `toNodeListener` on 127.0.0.1.
 * Each window: a fresh client id, its event stream opened, one prompt, the
 * stream read until the turn's `Answered`; then every other one says goodbye
 * (`POST /close`, its stream still open) and the rest just go away (the
 * stream aborted), left to the idle sweep (`idleWindowMs` 200 on the real
 * clock). At the end, past the idle time and after forced collections, the
 * heap must be back where it was and no window left in memory.
 *
 * The clients run in a child process (node:http), so the server's heap and CPU
 * are its own, and each side has a core of its own.
 *
 * Baseline: the server process's heap after a warm-up churn of 2 000 windows
 * through the same server (every module loaded, the code compiled), swept.
 * Target: heap at the end ≤ 1.2× the baseline and at most 4 MB above it, no
 * window left in memory, no error on either side.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import {
  Agent,
  type ClientRequest,
  createServer,
  request as httpRequest,
  type IncomingMessage,
} from "node:http";
import type { AddressInfo } from "node:net";
import { performance as perfHooks } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import v8 from "node:v8";
import vm from "node:vm";
import { createApp, createHost, type Model } from "elyra-assistant";
import {
  assistantHttp,
  BASE_PATH,
  CLIENT_HEADER,
  TOKEN_HEADER,
  toNodeListener,
} from "elyra-assistant/http";
import type { LogEvent } from "elyra-assistant/log";
import { memoryStore, responseOf, wordsOf } from "elyra-assistant/testing";
import { createParser } from "eventsource-parser";
import { SOURCE_NODE_ARGS } from "../spec/fixtures/sourceNode.ts";
import { spyCommands, type TestUser } from "../spec/fixtures/spyCommands.ts";
import type { Benchmark, BenchResult } from "./report.ts";

const WINDOWS = 20_000;
const WARMUP_WINDOWS = 2_000;
const CONCURRENCY = 32;
/** One window in CLOSE_EVERY says goodbye with POST /close; the others are left to the sweep. */
const CLOSE_EVERY = 2;
const IDLE_WINDOW_MS = 200;
/** How long the sweep may take, past the last window, to close every window left. */
const DRAIN_DEADLINE_MS = 10_000;
/** How long a closed window's event stream may stay open before it counts as a problem. */
const STREAM_END_DEADLINE_MS = 5_000;
const TARGET_HEAP_RATIO = 1.2;
/** What the heap may keep at the end, past the baseline: a few MB, whatever the window count. */
const TARGET_HEAP_ABOVE_MB = 4;
const TOKEN = "bench-token-0123456789";
const ANSWER_TEXT = "Hi.";
const CHILD_FLAG = "--churn-clients";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What one churn measured: latencies in ms, and what went wrong. */
interface Figures {
  readonly prompt: number[];
  readonly close: number[];
  /** From sending the prompt to reading its `Answered` on the event stream. */
  readonly turn: number[];
  readonly problems: string[];
  wallMs: number;
}

/** What the parent asks of the clients' process. */
interface ChurnRequest {
  readonly base: string;
  readonly prefix: string;
  readonly count: number;
}

// ---- The clients, in the child process ----

/** Keeps connections open between requests, as a browser does; as many as are asked for. */
const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });

/** A request to a route; resolves with its response once its headers are in. */
const send = (
  url: string,
  method: "GET" | "POST",
  headers: Readonly<Record<string, string>>,
  body?: string,
) =>
  new Promise<{ readonly request: ClientRequest; readonly response: IncomingMessage }>(
    (resolve, reject) => {
      // A length, not chunks: the body goes in the same write as the head, as a browser sends it.
      const length =
        method === "POST" ? { "content-length": String(Buffer.byteLength(body ?? "")) } : {};
      const request = httpRequest(
        url,
        { method, headers: { ...headers, ...length }, agent },
        (response) => resolve({ request, response }),
      );
      request.on("error", reject);
      request.end(body);
    },
  );

/** A whole response: its status and body. */
const call = async (
  url: string,
  method: "GET" | "POST",
  headers: Readonly<Record<string, string>>,
  body?: string,
) => {
  const { response } = await send(url, method, headers, body);
  let text = "";
  response.setEncoding("utf8");
  for await (const piece of response) text += piece;
  return { status: response.statusCode ?? 0, text };
};

/** Reads an event stream; `answer` settles at the turn's end, `done` when the server ends it. */
const readEvents = (response: IncomingMessage) => {
  let ended: () => void = () => {};
  const answer = new Promise<void>((resolve) => {
    ended = resolve;
  });
  const tags: string[] = [];
  const parser = createParser({
    onEvent: (message) => {
      const event = JSON.parse(message.data) as LogEvent;
      tags.push(event._tag);
      if (event._tag === "Answered" || event._tag === "Failed" || event._tag === "Stopped") ended();
    },
  });
  response.setEncoding("utf8");
  response.on("data", (piece: string) => parser.feed(piece));
  const done = new Promise<"ended" | "failed">((resolve) => {
    response.on("end", () => resolve("ended"));
    response.on("error", () => resolve("failed"));
    response.on("aborted", () => resolve("failed"));
  });
  return { answer, done, tags };
};

/** One window's life over HTTP; its figures go into `figures`. */
const oneWindow = async (base: string, clientId: string, closes: boolean, figures: Figures) => {
  const headers = { [TOKEN_HEADER]: TOKEN, [CLIENT_HEADER]: clientId };
  const events = await send(`${base}/events`, "GET", headers);
  try {
    if (events.response.statusCode !== 200) {
      figures.problems.push(`${clientId}: GET events ${events.response.statusCode}`);
      return;
    }
    const stream = readEvents(events.response);
    const sent = performance.now();
    const prompt = await call(
      `${base}/prompt`,
      "POST",
      { ...headers, "content-type": "application/json" },
      JSON.stringify({ text: "Hello", route: "/customers/42" }),
    );
    figures.prompt.push(performance.now() - sent);
    if (prompt.status !== 202) {
      figures.problems.push(`${clientId}: POST prompt ${prompt.status} ${prompt.text}`);
      return;
    }
    await stream.answer;
    figures.turn.push(performance.now() - sent);
    if (stream.tags.at(-1) !== "Answered")
      figures.problems.push(`${clientId}: the turn ended ${stream.tags.at(-1)}`);
    if (!closes) return; // The page goes away without a word: its connection drops (finally).
    const start = performance.now();
    const closed = await call(`${base}/close`, "POST", headers);
    figures.close.push(performance.now() - start);
    if (closed.status !== 204) figures.problems.push(`${clientId}: POST close ${closed.status}`);
    // Closing a window ends its event streams: the server ends this one.
    const end = await Promise.race([
      stream.done,
      sleep(STREAM_END_DEADLINE_MS).then(() => "open" as const),
    ]);
    if (end !== "ended") figures.problems.push(`${clientId}: the event stream ${end} after close`);
  } finally {
    // A stream still open is cut, as a page going away cuts it; one the server ended is kept.
    if (!events.response.complete) events.request.destroy();
  }
};

/** `count` windows, `CONCURRENCY` at a time. */
const churn = async ({ base, prefix, count }: ChurnRequest): Promise<Figures> => {
  const figures: Figures = { prompt: [], close: [], turn: [], problems: [], wallMs: 0 };
  let next = 0;
  const start = performance.now();
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      try {
        await oneWindow(base, `${prefix}-${i}`, i % CLOSE_EVERY === 0, figures);
      } catch (error) {
        const cause =
          error instanceof Error && error.cause !== undefined ? ` (${error.cause})` : "";
        figures.problems.push(`${prefix}-${i}: ${String(error)}${cause}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  figures.wallMs = performance.now() - start;
  return figures;
};

/** In the child: churns what the parent asks, answers with the figures, ends with the channel. */
const serveClientsIfChild = () => {
  const entry = process.argv[1];
  if (entry === undefined || pathToFileURL(entry).href !== import.meta.url) return;
  if (!process.argv.includes(CHILD_FLAG)) return;
  process.on("message", (request: ChurnRequest) => {
    void churn(request).then((figures) => process.send?.(figures));
  });
  process.on("disconnect", () => process.exit(0));
};
serveClientsIfChild();

// ---- The server, in the bench's process ----

/** A host of the spec's spy commands, its HTTP routes on a loopback port. */
const serve = async () => {
  const user: TestUser = { name: "Ada", abilities: ["customers.*", "invoices.view"] };
  const app = createApp({
    commands: spyCommands().commands,
    userAbilities: (u) => (u as TestUser).abilities,
    assistant: { allow: ["customers.*", "invoices.view"], confirm: ["customers.delete"] },
  });
  // A model that answers every prompt at once and keeps nothing (a fake model records every
  // request and plays a finite script: it would be the leak, and run out).
  const answer = responseOf({ text: ANSWER_TEXT });
  const words = wordsOf(ANSWER_TEXT);
  const model: Model = {
    step: async (_request, { onText }) => {
      if (onText !== undefined) for (const word of words) onText(word);
      return answer;
    },
  };
  const errors: string[] = [];
  const told = (where: string) => (error: unknown) => {
    errors.push(`${where}: ${String(error)}`);
  };
  const host = createHost(app, {
    model,
    store: memoryStore(),
    idleWindowMs: IDLE_WINDOW_MS,
    onError: told("host"),
  });
  const handle = assistantHttp(host, {
    token: TOKEN,
    authenticate: () => user,
    heartbeatMs: 60_000,
    onError: told("http"),
  });
  const listener = toNodeListener(handle, { onError: told("node") });
  /** Each request to prompt and close, timed in the server: from its head read to its end written. */
  const timed = { prompt: [] as number[], close: [] as number[] };
  const server = createServer((message, out) => {
    const route = message.url?.slice(BASE_PATH.length + 1);
    if (route === "prompt" || route === "close") {
      const start = performance.now();
      out.on("finish", () => timed[route].push(performance.now() - start));
    }
    return listener(message, out);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await host.close();
  };
  return { host, base: `http://127.0.0.1:${port}${BASE_PATH}`, errors, timed, close };
};

/** The clients' process, and a churn run in it. */
const startClients = async () => {
  const child: ChildProcess = spawn(
    process.execPath,
    [...SOURCE_NODE_ARGS, fileURLToPath(import.meta.url), CHILD_FLAG],
    {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    },
  );
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(`the clients' process exited (${String(code)})`);
  });
  exited.catch(() => undefined);
  const run = async (request: ChurnRequest): Promise<Figures> => {
    child.send(request);
    const [figures] = (await Promise.race([once(child, "message"), exited])) as [Figures];
    return figures;
  };
  const stop = async () => {
    if (child.exitCode !== null) return;
    const gone = once(child, "exit");
    child.disconnect();
    await gone;
  };
  return { run, stop };
};

const heapAfterGc = (gc: () => void) => {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
};

/** Waits until the host has no window in memory, or the deadline; the ms it took. */
const drain = async (host: { readonly openWindows: () => number }) => {
  const start = performance.now();
  while (host.openWindows() > 0 && performance.now() - start < DRAIN_DEADLINE_MS) await sleep(20);
  return performance.now() - start;
};

const percentile = (values: ReadonlyArray<number>, p: number): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return (
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
  );
};

const r2 = (value: number) => Math.round(value * 100) / 100;
const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

const run = async (): Promise<BenchResult> => {
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc") as () => void;
  const server = await serve();
  const clients = await startClients();
  const { host, base } = server;
  try {
    const warm = await clients.run({ base, prefix: "warm", count: WARMUP_WINDOWS });
    await drain(host);
    await sleep(IDLE_WINDOW_MS * 2);
    const baseline = heapAfterGc(gc);

    let peakOpen = 0;
    let peakHeap = 0;
    const sampler = setInterval(() => {
      peakOpen = Math.max(peakOpen, host.openWindows());
      peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    }, 50);
    const cpuBefore = cpuMs();
    const loopBefore = perfHooks.eventLoopUtilization();
    server.timed.prompt.length = 0;
    server.timed.close.length = 0;
    const figures = await clients.run({ base, prefix: "churn", count: WINDOWS });
    const serverCpuMs = cpuMs() - cpuBefore;
    const loopBusy = perfHooks.eventLoopUtilization(loopBefore).utilization;
    clearInterval(sampler);
    const openAfterChurn = host.openWindows();
    const drainMs = await drain(host);
    // Past the idle time once more, so anything the sweep closes late is gone too.
    await sleep(IDLE_WINDOW_MS * 2);
    const liveAtEnd = host.openWindows();
    const end = heapAfterGc(gc);

    const heapRatio = end / baseline;
    const problems = [...warm.problems, ...figures.problems, ...server.errors];
    const row = {
      case: `${WINDOWS.toLocaleString("en-US")} windows, ${CONCURRENCY} in flight, 1 in ${CLOSE_EVERY} closed`,
      windowsPerSec: Math.round(WINDOWS / (figures.wallMs / 1000)),
      wallS: r2(figures.wallMs / 1000),
      serverCpuMsPerWindow: r2(serverCpuMs / WINDOWS),
      promptP50Ms: r2(percentile(figures.prompt, 50)),
      promptP99Ms: r2(percentile(figures.prompt, 99)),
      promptMaxMs: r2(Math.max(...figures.prompt)),
      closeP50Ms: r2(percentile(figures.close, 50)),
      closeP99Ms: r2(percentile(figures.close, 99)),
      serverPromptP50Ms: r2(percentile(server.timed.prompt, 50)),
      serverPromptP99Ms: r2(percentile(server.timed.prompt, 99)),
      serverPromptMaxMs: r2(Math.max(...server.timed.prompt)),
      serverCloseP50Ms: r2(percentile(server.timed.close, 50)),
      serverCloseP99Ms: r2(percentile(server.timed.close, 99)),
      serverCloseMaxMs: r2(Math.max(...server.timed.close)),
      closeMaxMs: r2(Math.max(...figures.close)),
      turnP50Ms: r2(percentile(figures.turn, 50)),
      turnP99Ms: r2(percentile(figures.turn, 99)),
      peakOpenWindows: peakOpen,
      openAfterChurn,
      drainMs: Math.round(drainMs),
      liveWindowsAtEnd: liveAtEnd,
      baselineHeapMb: mb(baseline),
      peakHeapMb: mb(peakHeap),
      endHeapMb: mb(end),
      heapRatio: Math.round(heapRatio * 1000) / 1000,
      heapAboveMb: mb(end - baseline),
      retainedBytesPerWindow: Math.round((end - baseline) / WINDOWS),
      problems: problems.length,
      serverLoopBusyPct: Math.round(loopBusy * 1000) / 10,
      pass:
        heapRatio <= TARGET_HEAP_RATIO &&
        end - baseline <= TARGET_HEAP_ABOVE_MB * 2 ** 20 &&
        liveAtEnd === 0 &&
        problems.length === 0,
    };
    return {
      title: `window churn: ${WINDOWS.toLocaleString("en-US")} windows over HTTP, closed or swept`,
      baseline: `the server's heap after a warm-up churn of ${WARMUP_WINDOWS} windows, swept`,
      target:
        `heap at the end ≤ ${TARGET_HEAP_RATIO}× the baseline and ≤ ${TARGET_HEAP_ABOVE_MB} MB above it, ` +
        "no window left in memory, no error",
      pass: row.pass,
      headline: "heapRatio",
      columns: [
        "case",
        "windowsPerSec",
        "serverCpuMsPerWindow",
        "promptP50Ms",
        "promptP99Ms",
        "closeP50Ms",
        "closeP99Ms",
        "serverPromptP99Ms",
        "serverCloseP99Ms",
        "liveWindowsAtEnd",
        "baselineHeapMb",
        "endHeapMb",
        "heapRatio",
        "heapAboveMb",
        "retainedBytesPerWindow",
        "problems",
        "pass",
      ],
      rows: [row],
      notes: [
        "A window: a fresh client id; GET events (its stream read as it comes); POST prompt; " +
          `the stream read until Answered; then 1 in ${CLOSE_EVERY} POST close with the stream ` +
          "still open (the server must end it), and the others abort the stream and are left to " +
          `the sweep. ${CONCURRENCY} windows in flight, node:http keep-alive clients in a child process (node --import ` +
          "tsx): its CPU is the runner's 'other processes' figure.",
        `The server: the spec's spy commands, a memory store, idleWindowMs ${IDLE_WINDOW_MS} on ` +
          `the real clock; a model that answers "${ANSWER_TEXT}" to every prompt at once (told ` +
          "word by word) and keeps nothing; assistantHttp on toNodeListener on 127.0.0.1.",
        "Latencies, as the client sees them: prompt is POST prompt to its 202 body (the turn " +
          "started, not ended); close is POST close to its 204; turn is POST prompt sent to " +
          `Answered read on the stream (p50 ${row.turnP50Ms} ms, p99 ${row.turnP99Ms} ms). ` +
          `Max: prompt ${row.promptMaxMs} ms, close ${row.closeMaxMs} ms. ` +
          `${r2(figures.wallMs / 1000)} s for the ${WINDOWS.toLocaleString("en-US")} windows. ` +
          "serverPrompt/serverClose: the same requests timed in the server, from the request's " +
          "head read to its response's end written (p50 " +
          `${row.serverPromptP50Ms} / ${row.serverCloseP50Ms} ms, max ${row.serverPromptMaxMs} / ` +
          `${row.serverCloseMaxMs} ms).`,
        `The clients keep ${CONCURRENCY} windows in flight whatever the server's pace (a closed ` +
          `loop): the server's event loop was busy ${row.serverLoopBusyPct}% of the churn, so the ` +
          "clients' latencies are mostly waiting in line, not handling; a prompt sent on a new " +
          "connection (the one after a dropped event stream) waits longest, for the server to " +
          "accept the connection.",
        "Heap: the server process's heapUsed after three forced collections; the baseline after " +
          "the warm-up and its sweep; the end once no window is open (drained " +
          `${row.drainMs} ms after the last window, ${openAfterChurn} open then) and ` +
          `${IDLE_WINDOW_MS * 2} ms more. Peak while churning (sampled every 50 ms): ` +
          `${peakOpen} windows open, ${row.peakHeapMb} MB heap. retainedBytesPerWindow: ` +
          "(end − baseline) / windows.",
        ...(problems.length === 0
          ? []
          : [`${problems.length} problems; the first: ${problems.slice(0, 5).join(" | ")}`]),
      ],
    };
  } finally {
    await clients.stop();
    await server.close();
  }
};

export const benchmark: Benchmark = { name: "churn", run };
