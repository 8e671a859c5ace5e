/**
 * Rebuild a 1 000-turn conversation from SQLite (the targets in
 * docs/architecture.md): open the store on its file and read the whole
 * stream, against a bare better-sqlite3 query that only parses each row's
 * JSON, side by side in one run.
 * Target: ≤ 100 ms (mean).
 *
 * Each turn is 13 events: TurnStarted (with a window note), StepStarted,
 * 3 TextDelta, StepFinished, ToolStarted, ToolFinished, StepStarted,
 * 2 TextDelta, StepFinished, Answered.
 */

import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { type SqliteStore, sqliteStore } from "elyra-assistant/sqlite";
import { Bench, hrtimeNowTimestampProvider } from "tinybench";
import type { LogEvent, NewEvent } from "../src/runtime/log/events.ts";
import { panelItems } from "../src/runtime/log/panelItems.ts";
import { history, status, usage } from "../src/runtime/log/projections.ts";
import { type Benchmark, type BenchResult, perCall, round2 } from "./report.ts";

const TARGET_MS = 100;
const TURNS = 1_000;
const STREAM = "window-1";

/** The fold a rebuild runs over the whole log: the hook the projections' folds are to be wired into. */
export type FoldAll = (events: ReadonlyArray<LogEvent>) => unknown;

/** The default fold: counts the events (no fold cost), so that the read is not optimised away. */
const countEvents: FoldAll = (events) => events.length;

/** Words to make text of a realistic length that is not one repeated character. */
const WORDS =
  "the invoice customer total paid overdue March amount account balance record shows three".split(
    " ",
  );
const prose = (chars: number, seed: number): string => {
  let text = "";
  for (let i = seed; text.length < chars; i += 7) text += `${WORDS[i % WORDS.length]} `;
  return text.slice(0, chars);
};

const NOTE = `<window route="/customers/42">${prose(600, 3)}</window>`;

/** One turn's events, at realistic sizes: a coalesced piece is 50 ms of text, about 120 characters. */
export const turnEvents = (turn: number, start: number): NewEvent[] => {
  const at = (ms: number) => start + ms;
  const usage = { inputTokens: 2_400 + turn, outputTokens: 180, cacheReadTokens: 2_000 };
  const pieces = [0, 1, 2, 3, 4].map((i) => prose(120, turn + i));
  return [
    {
      _tag: "TurnStarted",
      at: at(0),
      turn,
      text: prose(90, turn),
      route: "/customers/42",
      note: NOTE,
    },
    { _tag: "StepStarted", at: at(400), turn, step: 1 },
    { _tag: "TextDelta", at: at(450), turn, step: 1, text: pieces[0]! },
    { _tag: "TextDelta", at: at(500), turn, step: 1, text: pieces[1]! },
    { _tag: "TextDelta", at: at(550), turn, step: 1, text: pieces[2]! },
    { _tag: "StepFinished", at: at(600), turn, step: 1, stopReason: "tool_use", usage },
    {
      _tag: "ToolStarted",
      at: at(610),
      turn,
      callId: `toolu_01${turn.toString(36).padStart(20, "x")}`,
      tool: "invoices_list",
      caller: { type: "direct" },
    },
    {
      _tag: "ToolFinished",
      at: at(640),
      turn,
      callId: `toolu_01${turn.toString(36).padStart(20, "x")}`,
      ok: true,
      outcome: "ok",
      link: "/invoices?customer=42&status=overdue",
    },
    { _tag: "StepStarted", at: at(1_000), turn, step: 2 },
    { _tag: "TextDelta", at: at(1_050), turn, step: 2, text: pieces[3]! },
    { _tag: "TextDelta", at: at(1_100), turn, step: 2, text: pieces[4]! },
    { _tag: "StepFinished", at: at(1_150), turn, step: 2, stopReason: "end_turn", usage },
    { _tag: "Answered", at: at(1_160), turn, text: pieces.join("") },
  ];
};

/** Writes the conversation as it would have been written: one append per event. */
const writeConversation = async (file: string) => {
  const store = sqliteStore(file);
  const started = performance.now();
  let seq = 0;
  for (let turn = 1; turn <= TURNS; turn++) {
    for (const event of turnEvents(turn, 1_700_000_000_000 + turn * 60_000)) {
      seq = (await store.append(STREAM, [event], seq)).at(-1)!.seq;
    }
  }
  const ms = performance.now() - started;
  await store.close();
  return { events: seq, writeUsPerEvent: (1000 * ms) / seq };
};

/**
 * The benchmark, with the fold a rebuild runs after the read; `foldAll`
 * defaults to counting the events, until the projections' folds are wired in.
 */
export const rebuild = async (foldAll: FoldAll = countEvents): Promise<BenchResult> => {
  const dir = await mkdtemp(join(tmpdir(), "elyra-rebuild-"));
  try {
    const file = join(dir, "events.db");
    const { events, writeUsPerEvent } = await writeConversation(file);
    const bytes = (await stat(file)).size;

    let seen = 0;
    const check = (n: number) => {
      if (n !== events) throw new Error(`read ${n} events, wrote ${events}`);
      seen++;
    };
    const bare = () => {
      const db = new Database(file, { readonly: true });
      const rows = db
        .prepare<[string], string>("SELECT data FROM events WHERE stream = ? ORDER BY seq")
        .pluck()
        .all(STREAM);
      const parsed = rows.map((data) => JSON.parse(data) as unknown);
      db.close();
      check(parsed.length);
    };
    const reopen = async () => {
      const store = sqliteStore(file);
      const log = await store.read(STREAM);
      foldAll(log);
      await store.close();
      check(log.length);
    };
    // Open for its own task only: a store holds the file, so no other task could read it.
    let open: SqliteStore | undefined;
    const warm = async () => {
      if (open === undefined) throw new Error("the warm store is not open");
      const log = await open.read(STREAM);
      foldAll(log);
      check(log.length);
    };

    const bench = new Bench({
      name: "rebuild",
      time: 3_000,
      warmupTime: 500,
      timestampProvider: hrtimeNowTimestampProvider,
      throws: true,
    });
    bench.add("bare SELECT + JSON.parse", bare);
    bench.add("sqliteStore: open + read + fold", reopen);
    bench.add("sqliteStore: read + fold, already open", warm, {
      beforeAll: () => {
        open = sqliteStore(file);
      },
      afterAll: async () => {
        await open?.close();
        open = undefined;
      },
    });
    await bench.run();
    if (seen === 0) throw new Error("nothing was read");

    const [baseline, ...stores] = bench.tasks.map(perCall);
    const rows = [baseline!, ...stores].map((figures, i) => {
      const task = bench.tasks[i]!;
      const meanMs = figures.meanUs / 1000;
      return {
        case: task.name,
        meanMs: round2(meanMs),
        p99Ms: round2(figures.p99Us / 1000),
        ratio: round2(figures.meanUs / baseline!.meanUs),
        usPerEvent: round2(figures.meanUs / events),
        samples: figures.samples,
        pass: i === 0 || meanMs <= TARGET_MS,
      };
    });
    return {
      title: "rebuild a 1 000-turn conversation from SQLite",
      baseline: "bare better-sqlite3: SELECT data … ORDER BY seq, JSON.parse per row",
      target: `≤ ${TARGET_MS} ms (mean)`,
      pass: rows.every((r) => r.pass),
      headline: "meanMs",
      columns: ["case", "meanMs", "p99Ms", "ratio", "usPerEvent", "samples", "pass"],
      rows,
      notes: [
        `${events} events (${TURNS} turns × 13), a ${(bytes / 1e6).toFixed(1)} MB file, WAL; ` +
          `written one append per event at ${round2(writeUsPerEvent)} µs each.`,
        "The store decodes every row with Schema.decodeUnknownSync(LogEvent), made once; " +
          "ratio is the cost of that decoding over the bare parse.",
        `The fold is rebuild()'s foldAll hook: ${
          foldAll === countEvents
            ? "here a count of the events (no fold cost); the projections' folds are not wired in yet"
            : "history, usage, status and panelItems, as a window's rebuild folds them"
        }.`,
        "The file is in the OS page cache after the first read, as after a process restart.",
      ],
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

/** What a window's rebuild folds: every projection it keeps (src/actors/log/windowLog.ts reload). */
const foldProjections: FoldAll = (log) => {
  history.fold(log);
  usage.fold(log);
  status.fold(log);
  panelItems.fold(log);
};

export const benchmark: Benchmark = { name: "rebuild", run: () => rebuild(foldProjections) };
