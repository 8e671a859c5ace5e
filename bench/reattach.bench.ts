/**
 * Re-attach to a streaming turn (issue 33, item 5): a page reloaded, or a
 * second tab on the same window, opens `GET /events` on loopback while a
 * turn streams, and gets the log replayed, then the turn's text as it comes.
 * Measured on SQLite with 1 000 turns already in the log (13 000 events),
 * the time from the request to the first replayed event and to the first
 * event written after it connected, against reading the same log straight
 * from the store (the replay's floor), side by side in one run.
 * Target: < 1 s from reconnect to the first replayed event.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp, createHost, type Model } from "elyra-assistant";
import { assistantHttp, toNodeListener } from "elyra-assistant/http";
import { sqliteStore } from "elyra-assistant/sqlite";
import { defaultUserKey } from "../src/runtime/commands/userKey.ts";
import { turnEvents } from "./rebuild.bench.ts";
import { type Benchmark, type BenchResult, median, round2 } from "./report.ts";

const TARGET_MS = 1_000;
const TURNS = 1_000;
const TOKEN = "bench-token-0123456789";
const ADA = { name: "Ada" };
const REPEATS = 15;

/** A model that streams a long answer a piece every 20 ms, so a turn is streaming while the bench reconnects. */
const streamingModel: Model = {
  step: async (_request, { signal, onText }) => {
    const pieces = Array.from({ length: 2_000 }, (_, i) => `piece ${i} `);
    for (const piece of pieces) {
      if (signal.aborted) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
      onText?.(piece);
    }
    return {
      content: [{ type: "text", text: pieces.join("") }],
      stopReason: "end_turn",
      usage: { inputTokens: 100, outputTokens: 4_000 },
    };
  },
};

/** Opens the window's event stream; resolves the time to its first event, and to the first with a seq over `liveAfter`. */
const reconnect = async (url: string, liveAfter: number, lastEventId?: string) => {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 10_000);
  const started = performance.now();
  const response = await fetch(`${url}/__assistant/events`, {
    headers: {
      "x-elyra-token": TOKEN,
      "x-elyra-client": "w1",
      ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
    },
    signal: controller.signal,
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  let first: number | undefined;
  let live: number | undefined;
  let events = 0;
  try {
    while (live === undefined) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the event stream ended before the turn's live text");
      buffered += decoder.decode(value, { stream: true });
      let end = buffered.indexOf("\n\n");
      while (end >= 0) {
        const message = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const id = /^id: (\d+)/m.exec(message);
        if (id !== null) {
          events++;
          first ??= performance.now() - started;
          if (Number(id[1]) > liveAfter) {
            live = performance.now() - started;
            break;
          }
        }
        end = buffered.indexOf("\n\n");
      }
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return { firstMs: first ?? Number.NaN, liveMs: live, events };
};

const run = async (): Promise<BenchResult> => {
  const dir = await mkdtemp(join(tmpdir(), "elyra-reattach-"));
  const file = join(dir, "assistant.db");
  const writer = sqliteStore(file);
  const stream = "conversation/w1";
  let seq = (
    await writer.append(
      stream,
      [{ _tag: "WindowOwned", at: 0, turn: 0, owner: defaultUserKey(ADA) }],
      0,
    )
  ).length;
  for (let turn = 1; turn <= TURNS; turn++)
    seq = (
      await writer.append(stream, turnEvents(turn, 1_700_000_000_000 + turn * 60_000), seq)
    ).at(-1)!.seq;
  await writer.close();

  const store = sqliteStore(file);
  // No summary and room in the budget: the 1 000 turns before are there to be replayed.
  const app = createApp({
    commands: [],
    userAbilities: () => [],
    assistant: { allow: [], compactHistoryAbove: false, maxTokensPerConversation: 1_000_000_000 },
  });
  const host = createHost(app, { model: streamingModel, store, maxStreamsPerWindow: 64 });
  const handle = assistantHttp(host, {
    token: TOKEN,
    authenticate: () => ADA,
    heartbeatMs: 60_000,
  });
  const server = createServer(toNodeListener(handle));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const w = host.window("w1", { user: ADA });
    await w.ready;
    const turn = w.prompt("Tell me everything.");
    turn.catch((error: unknown) => console.error("the turn failed:", error));
    // The turn is streaming: its TextDelta events are being written.
    const deadline = performance.now() + 10_000;
    while (w.lastSeq() < seq + 4) {
      if (performance.now() > deadline)
        throw new Error(`the turn did not stream: the log is at ${w.lastSeq()}, wrote ${seq}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }

    const floor: number[] = [];
    const whole: Array<{ firstMs: number; liveMs: number }> = [];
    const tail: Array<{ firstMs: number; liveMs: number }> = [];
    let replayed = 0;
    for (let i = 0; i < REPEATS; i++) {
      const at = w.lastSeq();
      const started = performance.now();
      const read = await store.read(stream, 0);
      floor.push(performance.now() - started);
      if (read.length < seq) throw new Error(`read ${read.length} events, wrote ${seq}`);
      const all = await reconnect(url, at);
      replayed = all.events;
      whole.push({ firstMs: all.firstMs, liveMs: all.liveMs ?? Number.NaN });
      const behind = await reconnect(url, w.lastSeq(), String(w.lastSeq() - 50));
      tail.push({ firstMs: behind.firstMs, liveMs: behind.liveMs ?? Number.NaN });
    }
    w.stop();
    await w.settled();
    const floorMs = median(floor);
    const row = (name: string, values: ReadonlyArray<number>, target: boolean) => {
      const ms = median(values);
      return {
        case: name,
        medianMs: round2(ms),
        maxMs: round2(Math.max(...values)),
        ratio: round2(ms / floorMs),
        target: target ? `< ${TARGET_MS} ms` : "—",
        pass: !target || Math.max(...values) < TARGET_MS,
      };
    };
    const rows = [
      row("floor: sqliteStore.read of the whole log", floor, false),
      row(
        "reload (no Last-Event-ID): reconnect → first replayed event",
        whole.map((r) => r.firstMs),
        true,
      ),
      row(
        "reload: reconnect → first event written after it connected",
        whole.map((r) => r.liveMs),
        false,
      ),
      row(
        "reconnect 50 events behind: → first replayed event",
        tail.map((r) => r.firstMs),
        true,
      ),
      row(
        "reconnect 50 events behind: → first live event",
        tail.map((r) => r.liveMs),
        false,
      ),
    ];
    return {
      title: "re-attach to a streaming turn: reconnect to the first replayed event",
      baseline: "sqliteStore.read of the same log (the replay's floor), in the same run",
      target: `< ${TARGET_MS} ms from reconnect to the first replayed event, on loopback, the log's replay included`,
      pass: rows.every((r) => r.pass),
      headline: "medianMs",
      columns: ["case", "medianMs", "maxMs", "ratio", "target", "pass"],
      rows,
      notes: [
        `${seq} events before the turn (${TURNS} turns × 13 and the owner); a reload replays ${replayed} events a page at a time, then follows the live turn.`,
        "The live turn streams a piece every 20 ms, so the first live event comes at most about 50 ms (the coalescer's window) after the replay.",
        `${REPEATS} reconnects each over node:http on 127.0.0.1 (assistantHttp with toNodeListener); median and max.`,
      ],
    };
  } finally {
    await host.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
};

export const benchmark: Benchmark = { name: "reattach", run };
