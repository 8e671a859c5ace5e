/**
 * The first words at once (issue 31, target 2): in a streamed tool turn
 * (three tool steps, then a 4 KB answer in 1 000 pieces) and in a direct
 * answer (the same answer, no tool step), the time from the prompt to the
 * answer's first text in the window, against the bare SDK loop reading the
 * same stream to its first text piece. The window's side
 * is what a transport sees: the first `TextDelta` on `events$()`.
 */
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHost } from "elyra-assistant";
import { anthropic } from "elyra-assistant/anthropic";
import type { EventStore } from "elyra-assistant/log";
import { sqliteStore } from "elyra-assistant/sqlite";
import { type StandInRequest, says } from "elyra-assistant/testing";
import { type Benchmark, type BenchResult, median, round2 } from "./report.ts";
import { serveStandInIfChild, startStandIn } from "./standInChild.ts";
import {
  ANSWER,
  API_KEY,
  bareLoop,
  makeApp,
  PIECES,
  PROMPT,
  scripted,
  user,
} from "./streamedTurnBare.ts";

/** What the window may add to the time to the answer's first words. */
const TARGET_ADDED_MS = 5;
const ROUNDS = 9;
const TURNS_PER_BATCH = 12;
const WARMUP_TURNS = 12;

/** A question the stand-in answers at once, with no tool step: the first words alone. */
const DIRECT = "Say what the overdue invoices are, from what you know.";

await serveStandInIfChild(import.meta.url, (request: StandInRequest) => {
  const [first] = (request.body as { messages: Array<{ content: unknown }> }).messages;
  // The window sends the question among blocks of its own (the screen's note): found by its text.
  return JSON.stringify(first?.content ?? "").includes(DIRECT)
    ? says(ANSWER, { pieces: PIECES, paceMs: 0 })
    : scripted(request);
});

/** `turns` bare turns: ms from each turn's start to its answer's first piece. */
const bareBatch = async (url: string, prompt: string, turns: number): Promise<number[]> => {
  let first = 0;
  const turn = bareLoop(
    url,
    () => {
      first = performance.now();
    },
    prompt,
  );
  const times: number[] = [];
  for (let i = 0; i < turns; i++) {
    const start = performance.now();
    const { text } = await turn();
    if (text !== ANSWER) throw new Error("the bare loop got another answer");
    times.push(first - start);
  }
  return times;
};

/** The host's side: windows opened and subscribed before the clock, the prompt inside it. */
const hostSide = (url: string, store?: EventStore) => {
  const host = createHost(makeApp(), {
    model: anthropic({ baseURL: url, apiKey: API_KEY, maxRetries: 0 }),
    ...(store === undefined ? {} : { store }),
  });
  let opened = 0;
  const batch = async (prompt: string, turns: number): Promise<number[]> => {
    const times: number[] = [];
    for (let i = 0; i < turns; i++) {
      const w = host.window(`first-${++opened}`, { user });
      await w.ready;
      let first = 0;
      let text = "";
      const subscription = w.events$().subscribe((event) => {
        if (event._tag !== "TextDelta") return;
        if (text === "") first = performance.now();
        text += event.text;
      });
      const start = performance.now();
      const end = await w.prompt({ text: prompt, route: "/invoices" });
      await w.settled();
      subscription.unsubscribe();
      await w.close();
      if (end._tag !== "Answered" || text !== ANSWER) throw new Error(`the turn ended ${end._tag}`);
      times.push(first - start);
    }
    return times;
  };
  return { batch, close: host.close };
};

const run = async (): Promise<BenchResult> => {
  const { url, child } = await startStandIn(import.meta.url);
  const dir = mkdtempSync(join(tmpdir(), "elyra-bench-first-"));
  const sqlite = sqliteStore(join(dir, "assistant.db"));
  const memory = hostSide(url);
  const onSqlite = hostSide(url, sqlite);
  const turns = [
    { name: "a streamed tool turn", prompt: PROMPT },
    { name: "a direct answer", prompt: DIRECT },
  ];
  const sides = turns.flatMap(({ name, prompt }) => [
    { name: `${name}, memory store`, prompt, side: memory, rounds: [] as number[][] },
    { name: `${name}, SQLite store`, prompt, side: onSqlite, rounds: [] as number[][] },
  ]);
  const bare = new Map(turns.map(({ prompt }) => [prompt, [] as number[][]]));
  try {
    for (const { prompt } of turns) await bareBatch(url, prompt, WARMUP_TURNS);
    for (const s of sides) await s.side.batch(s.prompt, WARMUP_TURNS);
    for (let round = 0; round < ROUNDS; round++) {
      // Each question's bare loop, then each store, or the reverse: the order alternates.
      const order = [-2, -1, ...sides.keys()];
      if (round % 2 === 1) order.reverse();
      for (const at of order) {
        if (at < 0) {
          const { prompt } = turns[at + 2]!;
          bare.get(prompt)!.push(await bareBatch(url, prompt, TURNS_PER_BATCH));
        } else
          sides[at]!.rounds.push(await sides[at]!.side.batch(sides[at]!.prompt, TURNS_PER_BATCH));
      }
    }
  } finally {
    await memory.close();
    await onSqlite.close();
    await sqlite.close();
    rmSync(dir, { recursive: true, force: true });
    child.stdin?.end();
    await once(child, "exit");
  }
  const rows = sides.map(({ name, prompt, rounds }) => {
    // Each round's median against the bare loop's of the same question and round.
    const bareRounds = bare.get(prompt)!;
    const bareMs = median(bareRounds.map(median));
    const added = rounds.map((times, i) => median(times) - median(bareRounds[i]!));
    const addedMs = median(added);
    const all = rounds.flat().sort((a, b) => a - b);
    return {
      case: `first words of ${name}`,
      bareMs: round2(bareMs),
      windowMs: round2(median(rounds.map(median))),
      addedMs: round2(addedMs),
      addedMin: round2(Math.min(...added)),
      addedMax: round2(Math.max(...added)),
      windowP90Ms: round2(all[Math.floor(all.length * 0.9)]!),
      target: TARGET_ADDED_MS,
      pass: addedMs <= TARGET_ADDED_MS,
    };
  });
  return {
    title: "first words: prompt to the answer's first text in the window",
    baseline: "the bare SDK stream loop reading the same stream to its first text piece",
    target: `≤ ${TARGET_ADDED_MS} ms added`,
    pass: rows.every((r) => r.pass),
    headline: "addedMs",
    columns: [
      "case",
      "bareMs",
      "windowMs",
      "addedMs",
      "addedMin",
      "addedMax",
      "windowP90Ms",
      "target",
      "pass",
    ],
    rows,
    notes: [
      "The turn of the streamedTurn bench: the stand-in Messages API in a child process on " +
        "127.0.0.1, three tool steps (invoices_index, customers_show ×2, each run for real), then " +
        "4 096 characters in 1 000 text_delta pieces; each SSE event its own write. A direct " +
        "answer: the same 1 000 pieces as the first step's answer, no tool step.",
      "bare: from the turn's start (its first messages.create) to the answer's first text_delta " +
        "read by for await. window: a window opened, loaded and subscribed before the clock; from " +
        "prompt() to the first TextDelta its events$() subscriber sees, the turn then run to its end " +
        "and the window closed outside the clock.",
      `${ROUNDS} rounds of ${TURNS_PER_BATCH} turns a side, the order reversed each round, ` +
        `${WARMUP_TURNS} warm-up turns a side first; addedMs: the median over rounds of (the ` +
        "window's median − the bare loop's median in the same round), min/max beside it; " +
        "windowP90Ms over every window turn.",
    ],
  };
};

export const benchmark: Benchmark = { name: "firstWords", run };
