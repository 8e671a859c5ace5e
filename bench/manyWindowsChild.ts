/**
 * The far side of the wire for bench/manyWindows.bench.ts, in its own
 * process: the stand-in Messages API (every stream told at 1 piece per ms,
 * each piece's text the time it was written) and the N browser windows (an
 * SSE client each, then a prompt each, all at once). Both clocks are this
 * process's, so a piece's added latency is its arrival at its window less the
 * time the stand-in wrote it. Driven by JSON lines on stdin; answers on stdout.
 */
import { createServer, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { countingIds, encodeEvent, says, toStreamEvents } from "elyra-assistant/testing";

/** A trial: N windows on `url` (the measured server), each told `pieces` pieces. */
export interface Trial {
  readonly url: string;
  readonly n: number;
  readonly pieces: number;
  readonly prefix: string;
  readonly token: string;
  readonly promptPath: string;
  readonly eventsPath: string;
}

/** What a trial saw: the pieces' added latency (ms), and how the stand-in kept pace. */
export interface TrialResult {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly expected: number;
  readonly received: number;
  readonly wallMs: number;
  /** The mean of the stand-in's ticks' gaps, ms (1 when it keeps pace). */
  readonly tickGapMs: number;
  readonly childCpuMs: number;
}

const now = () => performance.now();

/** Streams being told: a response, when it started, how many pieces are out of how many. */
interface Telling {
  readonly res: ServerResponse;
  readonly start: number;
  readonly total: number;
  sent: number;
}

const ids = countingIds();
const [head, tail] = (() => {
  const events = toStreamEvents(says("x", { pieces: 1 }), ids);
  const at = events.findIndex((e) => e.type === "content_block_delta");
  return [
    events.slice(0, at).map(encodeEvent).join(""),
    events
      .slice(at + 1)
      .map(encodeEvent)
      .join(""),
  ];
})();

const telling = new Set<Telling>();
let piecesPerStream = 1_000;
let ticks = 0;
let tickGaps = 0;
let lastTick = 0;
let ticking = false;

/** Once a ms (as near as the timers go): every stream's due pieces, stamped with the time now. */
const tick = () => {
  const t = now();
  if (lastTick > 0) {
    ticks++;
    tickGaps += t - lastTick;
  }
  lastTick = t;
  const stamp = JSON.stringify(`${t.toFixed(1)};`);
  for (const s of telling) {
    const due = Math.min(s.total, Math.floor(t - s.start) + 1);
    let out = "";
    for (; s.sent < due; s.sent++) {
      out += `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${stamp}}}\n\n`;
    }
    if (s.sent === s.total) {
      out += tail;
      telling.delete(s);
      s.res.end(out);
    } else if (out !== "") s.res.write(out);
  }
  if (telling.size > 0) setTimeout(tick, 1);
  else ticking = false;
};

const api = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.on("error", () => {});
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
    res.write(head);
    telling.add({ res, start: now(), total: piecesPerStream, sent: 0 });
    if (!ticking) {
      ticking = true;
      lastTick = 0;
      setTimeout(tick, 1);
    }
  });
});

const STAMP = /(\d+\.\d);/g;

/** One window: its SSE client, reading stamps from the raw bytes (both sides' text is verbatim in them). */
const openWindow = (trial: Trial, client: string, latencies: number[], onDone: () => void) => {
  const { hostname, port } = new URL(trial.url);
  const headers = { "x-elyra-token": trial.token, "x-elyra-client": client };
  let seen = 0;
  let carry = "";
  const req = request(
    { hostname, port, path: trial.eventsPath, method: "GET", headers, agent: false },
    (res) => {
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        const t = now();
        const text = carry + chunk;
        const last = text.lastIndexOf(";");
        carry = text.slice(Math.max(last + 1, text.length - 24));
        if (seen >= trial.pieces) return;
        for (const m of text.slice(0, last + 1).matchAll(STAMP)) {
          latencies.push(t - Number(m[1]));
          if (++seen === trial.pieces) {
            onDone();
            return;
          }
        }
      });
      res.on("error", () => {});
    },
  );
  req.on("error", () => {});
  req.end();
  const ready = new Promise<void>((resolve) => req.on("response", () => resolve()));
  const prompt = () =>
    new Promise<void>((resolve, reject) => {
      const body = JSON.stringify({ text: "Tell me everything.", route: "/" });
      const p = request(
        {
          hostname,
          port,
          path: trial.promptPath,
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
        },
        (res) => {
          res.resume();
          if (res.statusCode !== 202 && res.statusCode !== 200) {
            reject(new Error(`prompt ${client}: HTTP ${res.statusCode}`));
          } else res.on("end", resolve);
        },
      );
      p.on("error", reject);
      p.end(body);
    });
  return { ready, prompt, close: () => req.destroy() };
};

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

const runTrial = async (trial: Trial): Promise<TrialResult> => {
  piecesPerStream = trial.pieces;
  const latencies: number[] = [];
  let done = 0;
  let allDone = () => {};
  const finished = new Promise<void>((resolve) => {
    allDone = resolve;
  });
  const windows = Array.from({ length: trial.n }, (_, i) =>
    openWindow(trial, `${trial.prefix}-${i}`, latencies, () => {
      if (++done === trial.n) allDone();
    }),
  );
  await Promise.all(windows.map((w) => w.ready));
  ticks = 0;
  tickGaps = 0;
  const cpu = cpuMs();
  const wall = now();
  await Promise.all(windows.map((w) => w.prompt()));
  const capMs = (trial.pieces * 3 + 15_000) | 0;
  await Promise.race([finished, new Promise((resolve) => setTimeout(resolve, capMs))]);
  const sorted = Float64Array.from(latencies).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const result = {
    p50: at(0.5),
    p99: at(0.99),
    max: at(1),
    expected: trial.n * trial.pieces,
    received: latencies.length,
    wallMs: now() - wall,
    tickGapMs: ticks === 0 ? 0 : tickGaps / ticks,
    childCpuMs: cpuMs() - cpu,
  };
  for (const w of windows) w.close();
  return result;
};

/** In the child: serve, print the stand-in's URL, then run each trial asked on stdin. */
export const serveChild = async (): Promise<void> => {
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  const { port } = api.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    const result = await runTrial(JSON.parse(line) as Trial);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }
  api.closeAllConnections();
  api.close();
  process.exit(0);
};

if (process.argv.includes("--many-windows-child")) await serveChild();
