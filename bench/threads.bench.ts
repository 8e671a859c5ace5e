/**
 * Threads at a year's scale (issue 33): one user with 10 000 threads (and
 * another with 10 000, so the owner is a real filter), each with a prompt
 * and an answer in the index. Measured on SQLite through `host.threads`:
 * the first page of the list, the 50th page (by `next`), a search for a
 * rare word, a common one and two word starts; against the same queries
 * written by hand on a copy of the file (the engine's floor), side by side
 * in one run. Then opening a thread of 1 000 and of 10 000 turns (the log
 * read and folded), against reading the same log straight from the store.
 * Targets: a page and a search ≤ 20 ms (the slowest of the repeats) at
 * 10 000 threads; a 1 000-turn thread opens in ≤ 100 ms (the rebuild target),
 * a 10 000-turn one in ≤ 1 s.
 */
import { createHash } from "node:crypto";
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { createApp, createHost } from "elyra-assistant";
import { sqliteStore } from "elyra-assistant/sqlite";
import { fakeModel } from "elyra-assistant/testing";
import { defaultUserKey } from "../src/runtime/commands/userKey.ts";
import type { ThreadEntry } from "../src/runtime/threads/threadIndex.ts";
import { searchTerms, wordsOf } from "../src/runtime/threads/words.ts";
import { turnEvents } from "./rebuild.bench.ts";
import { type Benchmark, type BenchResult, median, round2 } from "./report.ts";

const THREADS = 10_000;
const REPEATS = 25;
const PAGE_MS = 20;
const ADA = { name: "Ada" };
const BOB = { name: "Bob" };
const COMMON = "invoice customer total paid overdue March amount account balance".split(" ");

const sentence = (i: number, words: number) =>
  Array.from({ length: words }, (_, k) => COMMON[(i * 7 + k * 3) % COMMON.length]).join(" ");

/** The times `body` takes, `REPEATS` times after one warm-up. */
const timed = async (body: () => unknown): Promise<number[]> => {
  await body();
  const times: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const started = performance.now();
    await body();
    times.push(performance.now() - started);
  }
  return times;
};

/** Writes `turns` turns of thread `id` to the store, owned by Ada. */
const writeThread = async (store: ReturnType<typeof sqliteStore>, id: string, turns: number) => {
  const stream = `conversation/${id}`;
  let seq = (
    await store.append(
      stream,
      [{ _tag: "WindowOwned", at: 0, turn: 0, owner: defaultUserKey(ADA) }],
      0,
    )
  ).length;
  for (let turn = 1; turn <= turns; turn++)
    seq = (await store.append(stream, turnEvents(turn, 1_700_000_000_000 + turn * 60_000), seq)).at(
      -1,
    )!.seq;
  return seq;
};

const run = async (): Promise<BenchResult> => {
  const dir = await mkdtemp(join(tmpdir(), "elyra-threads-"));
  const file = join(dir, "assistant.db");
  try {
    const store = sqliteStore(file);
    const index = store.threads!;
    const owners = [defaultUserKey(ADA), defaultUserKey(BOB)];
    const writing = performance.now();
    for (const [o, owner] of owners.entries())
      for (let i = 0; i < THREADS; i++) {
        const id = `t${o}-${i}`;
        const entry: ThreadEntry = {
          id,
          owner,
          title: `Question ${i} about ${sentence(i, 3)}`,
          createdAt: 1_700_000_000_000 + i * 1_000,
          lastAt: 1_700_000_000_000 + i * 1_000 + 500,
          preview: sentence(i + 1, 12),
          turns: 1,
          archived: i % 10 === 0,
          seq: 2,
        };
        await index.put(entry, {
          turn: 1,
          text: `${entry.title} rare${o}x${i}? ${sentence(i + 2, 40)}`,
        });
      }
    const writeMs = performance.now() - writing;
    const seqs = {
      thousand: await writeThread(store, "big1k", 1_000),
      tenThousand: await writeThread(store, "big10k", 10_000),
    };
    await store.close();
    // The floor: the same queries by hand, on a copy of the file (the store holds its own exclusively).
    const copy = join(dir, "copy.db");
    await copyFile(file, copy);
    const bare = new Database(copy, { readonly: true });
    const bareFirst = bare.prepare(
      "SELECT * FROM threads WHERE owner = ? AND archived = 0 ORDER BY last_at DESC, id DESC LIMIT 21",
    );
    const bareAfter = bare.prepare(
      "SELECT * FROM threads WHERE owner = ? AND archived = 0 AND (last_at < ? OR (last_at = ? AND id < ?)) ORDER BY last_at DESC, id DESC LIMIT 21",
    );
    const bareSearch = bare.prepare(
      `WITH recent AS (SELECT id, turn FROM thread_words WHERE thread_words MATCH ? ORDER BY rowid DESC LIMIT 5000),
       hits AS (SELECT id, max(turn) AS turn FROM recent GROUP BY id)
       SELECT t.*, x.text FROM hits h JOIN threads t ON t.id = h.id JOIN thread_texts x ON x.id = h.id AND x.turn = h.turn
       WHERE t.owner = ? ORDER BY t.last_at DESC, t.id DESC LIMIT 20`,
    );

    const opened = sqliteStore(file);
    const app = createApp({
      commands: [],
      userAbilities: () => [],
      assistant: { allow: [], compactHistoryAbove: false, maxTokensPerConversation: 1_000_000_000 },
    });
    const host = createHost(app, { model: fakeModel(), store: opened, maxWindows: 100_000 });
    try {
      const user = ADA;
      // The 50th page: the `next` of the 49th, found once.
      let after: string | undefined;
      for (let page = 1; page < 50; page++)
        after = (await host.threads.list({ user, ...(after === undefined ? {} : { after }) })).next;
      const deep = after!;
      const [lastAt, id] = JSON.parse(decodeURIComponent(atob(deep))) as [number, string];
      // The owner's word each text begins with (a hash of the key), then each term's start.
      const ownerWord = `o${createHash("sha256").update(owners[0]!).digest("hex").slice(0, 32)}`;
      const match = (text: string) =>
        [`"${ownerWord}"`, ...searchTerms(text).map((t) => `"${t}"*`)].join(" ");
      const ada = owners[0]!;
      const cases: Array<{
        name: string;
        lib: () => unknown;
        floor: () => unknown;
        found?: () => Promise<number>;
      }> = [
        {
          name: "list: the first page (20)",
          lib: () => host.threads.list({ user }),
          floor: () => bareFirst.all(ada),
        },
        {
          name: "list: the 50th page, by next",
          lib: () => host.threads.list({ user, after: deep }),
          floor: () => bareAfter.all(ada, lastAt, lastAt, id),
        },
        {
          name: "search: a rare word (1 thread)",
          lib: () => host.threads.search({ user, text: "rare0x4242" }),
          floor: () => bareSearch.all(match("rare0x4242"), ada),
          found: async () => (await host.threads.search({ user, text: "rare0x4242" })).length,
        },
        {
          name: "search: a common word (every thread; 20 kept)",
          lib: () => host.threads.search({ user, text: "invoice" }),
          floor: () => bareSearch.all(match("invoice"), ada),
          found: async () => (await host.threads.search({ user, text: "invoice" })).length,
        },
        {
          name: "search: two word starts",
          lib: () => host.threads.search({ user, text: "overd bal" }),
          floor: () => bareSearch.all(match("overd bal"), ada),
          found: async () => (await host.threads.search({ user, text: "overd bal" })).length,
        },
      ];
      const rows = [];
      for (const c of cases) {
        const lib = await timed(c.lib);
        const floor = await timed(c.floor);
        const worst = Math.max(...lib);
        rows.push({
          case: c.name,
          medianMs: round2(median(lib)),
          maxMs: round2(worst),
          floorMs: round2(median(floor)),
          ratio: round2(median(lib) / median(floor)),
          found: c.found === undefined ? "—" : String(await c.found()),
          target: `≤ ${PAGE_MS} ms`,
          pass: worst <= PAGE_MS,
        });
      }
      // Opening a long thread: a fresh window reads and folds its whole log.
      let opens = 0;
      const openCase = async (name: string, threadId: string, events: number, targetMs: number) => {
        const open = await timed(async () => {
          const w = host.window(threadId, { user });
          await w.owned();
          await w.close();
          opens++;
        });
        const floor = await timed(() => opened.read(`conversation/${threadId}`, 0));
        const worst = Math.max(...open);
        return {
          case: name,
          medianMs: round2(median(open)),
          maxMs: round2(worst),
          floorMs: round2(median(floor)),
          ratio: round2(median(open) / median(floor)),
          found: `${events} events`,
          target: `≤ ${targetMs} ms`,
          pass: worst <= targetMs,
        };
      };
      rows.push(await openCase("open a thread of 1 000 turns", "big1k", seqs.thousand, 100));
      rows.push(await openCase("open a thread of 10 000 turns", "big10k", seqs.tenThousand, 1_000));
      const words = wordsOf(sentence(0, 40)).length;
      return {
        title: "threads: list and search at 10 000 threads, open a long thread",
        baseline:
          "the same SQL by hand with better-sqlite3 on a copy of the file; for opening, sqliteStore.read of the log",
        target: `a page and a search ≤ ${PAGE_MS} ms at 10 000 threads; a 1 000-turn thread opens in ≤ 100 ms, a 10 000-turn one in ≤ 1 s`,
        pass: rows.every((r) => r.pass),
        headline: "medianMs",
        columns: ["case", "medianMs", "maxMs", "floorMs", "ratio", "found", "target", "pass"],
        rows,
        notes: [
          `${THREADS} threads for each of 2 users (a tenth archived), each with one turn's text of about ${words + 8} words in the index; written through the index in ${Math.round(writeMs)} ms (${round2((1000 * writeMs) / (2 * THREADS))} µs a thread).`,
          `Each case ${REPEATS} times after a warm-up; median and max. ${opens} opens in all.`,
          "Re-attaching to a streaming turn is `npm run bench -- reattach`.",
        ],
      };
    } finally {
      await host.close();
      await opened.close();
      bare.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

export const benchmark: Benchmark = { name: "threads", run };
