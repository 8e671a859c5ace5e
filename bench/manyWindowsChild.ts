/**
 * The far side of the wire for bench/manyWindows.bench.ts, in its own
 * process: the stand-in Messages API (every stream told at 1 piece per ms,
 * each piece's text the time it was written) and the N browser windows (an
 * SSE client each, then a prompt each, all at once). Both clocks are this
 * process's, so a piece's latency is its arrival at its window less the time
 * the stand-in wrote it, and what the server added beyond the gathering rule
 * is its arrival less the latest time the rule allows it to be told. Driven
 * by JSON lines on stdin; answers on stdout (a `prompted` line once every
 * prompt is answered, then the trial's figures).
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

/** What a trial saw: the pieces' latency and what the server added beyond the rule (ms), and how the stand-in kept pace. */
export interface TrialResult {
  /** Arrival at the window less the stand-in's write. */
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** Arrival at the window less the rule's due time. */
  readonly addedP50: number;
  readonly addedP99: number;
  /** Events that carried text, per window. */
  readonly deltasPerWindow: number;
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
const GATHER_MS = 50;

/**
 * The latest time the gathering rule allows a piece written at `written` to
 * reach its window, when the window read the delta before at `before`: at
 * once for a step's first piece, else 50 ms after the delta before, and never
 * more than 50 ms after the piece was written. The delta before is taken as
 * read, not as told (the server's clock is not this one): the server's own
 * delay in telling it is forgiven, its delay in telling this one is not.
 */
const dueAt = (written: number, before: number | undefined) =>
  before === undefined
    ? written
    : Math.min(Math.max(written, before + GATHER_MS), written + GATHER_MS);

interface Seen {
  readonly latencies: number[];
  readonly added: number[];
  deltas: number;
}

/** One window: its SSE client, reading stamps event by event from the raw bytes (both sides' text is verbatim in them). */
const openWindow = (trial: Trial, client: string, seen: Seen, onDone: () => void) => {
  const { hostname, port } = new URL(trial.url);
  const headers = { "x-elyra-token": trial.token, "x-elyra-client": client };
  let count = 0;
  let carry = "";
  let before: number | undefined;
  const req = request(
    { hostname, port, path: trial.eventsPath, method: "GET", headers, agent: false },
    (res) => {
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        const t = now();
        const text = carry + chunk;
        const end = text.lastIndexOf("\n\n");
        if (end < 0) {
          carry = text;
          return;
        }
        carry = text.slice(end + 2);
        if (count >= trial.pieces) return;
        for (const event of text.slice(0, end).split("\n\n")) {
          let stamps = 0;
          for (const m of event.matchAll(STAMP)) {
            const written = Number(m[1]);
            stamps++;
            seen.latencies.push(t - written);
            seen.added.push(t - dueAt(written, before));
            if (++count === trial.pieces) {
              onDone();
              break;
            }
          }
          if (stamps > 0) {
            seen.deltas++;
            before = t;
          }
          if (count >= trial.pieces) return;
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
  const seen: Seen = { latencies: [], added: [], deltas: 0 };
  let done = 0;
  let allDone = () => {};
  const finished = new Promise<void>((resolve) => {
    allDone = resolve;
  });
  const windows = Array.from({ length: trial.n }, (_, i) =>
    openWindow(trial, `${trial.prefix}-${i}`, seen, () => {
      if (++done === trial.n) allDone();
    }),
  );
  await Promise.all(windows.map((w) => w.ready));
  ticks = 0;
  tickGaps = 0;
  const cpu = cpuMs();
  const wall = now();
  await Promise.all(windows.map((w) => w.prompt()));
  process.stdout.write(`${JSON.stringify({ prompted: true })}\n`);
  const capMs = (trial.pieces * 3 + 15_000) | 0;
  await Promise.race([finished, new Promise((resolve) => setTimeout(resolve, capMs))]);
  const quantiles = (values: number[]) => {
    const sorted = Float64Array.from(values).sort();
    return (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  };
  const at = quantiles(seen.latencies);
  const added = quantiles(seen.added);
  const result = {
    p50: at(0.5),
    p99: at(0.99),
    max: at(1),
    addedP50: added(0.5),
    addedP99: added(0.99),
    deltasPerWindow: seen.deltas / trial.n,
    expected: trial.n * trial.pieces,
    received: seen.latencies.length,
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
