/**
 * What a conversation costs in tokens, before the library's token work
 * (issue 32) and with its defaults, side by side in one run, through a real
 * host, the real `anthropic()` adapter (the SDK, streamed) and the stand-in
 * Messages API on loopback with its prompt cache on (bench/tokensConversation.ts):
 *
 * 1. tool-definition tokens a request, for the CRM's commands and generated
 *    ones (bench/tokensCommands.ts) to 10, 100 and 300 tools: all sent
 *    (`toolSearch: false`) against the defaults (`"auto"`);
 * 2. the share of input read from the prompt cache over a 20-turn
 *    conversation: the layout before (a breakpoint on the system prompt
 *    only, by hand) against the library's four breakpoints;
 * 3. input tokens a turn over 200 turns, each calling a command that returns
 *    ~2 KB, with 150 tools: before (all sent, no summary, no clearing, the
 *    old cache layout) against the defaults; what the budget counts;
 * 4. that conversation's cost at list prices (`costOf`, DEFAULT_PRICES).
 *
 * Every count is the library's estimate (`estimateTokens`: UTF-8 bytes / 4),
 * as the stand-in counts too: the variants compare like with like.
 */
import { DEFAULT_TOKEN_BUDGET } from "../src/runtime/commands/app.ts";
import { tokensOf, type Usage } from "../src/runtime/log/events.ts";
import { costOf, DEFAULT_PRICES, priceOf } from "../src/runtime/usage/prices.ts";
import { type Benchmark, type BenchResult, median, type Row } from "./report.ts";
import { type BenchCommand, benchApp, benchCommands } from "./tokensCommands.ts";
import {
  type Conversation,
  cacheShare,
  converse,
  inputOf,
  type Layout,
  type RequestFigures,
  repeatedShare,
  type TurnPlan,
} from "./tokensConversation.ts";

const OLD: Layout = "system prompt only (before)";
/** A budget no measured conversation reaches, so each runs to its end. */
const NO_BUDGET = 1_000_000_000;
/** The context window a request must fit (Sonnet's standard 200 000 tokens). */
const CONTEXT_WINDOW = 200_000;
const MODEL = "claude-sonnet-5-5";
const TOOL_COUNTS = [10, 100, 300] as const;
const TOOL_TURNS = 10;
const CACHE_TURNS = 20;
const LONG_TURNS = 200;
const LONG_TOOLS = 150;
/** The answers' length, bytes: a few sentences about what a call found. */
const ANSWER_BYTES = 800;

const answerTo = (calls: ReadonlyArray<BenchCommand>): string => {
  const head = `Here is what I found with ${calls.map((c) => c.command.name).join(" and ")}: `;
  const body =
    "the records are listed newest first, two changed this week, one is waiting for a reply from the customer. ";
  return (head + body.repeat(Math.ceil(ANSWER_BYTES / body.length))).slice(0, ANSWER_BYTES);
};

/** `turns` turns over `commands`, turn i making `callsIn(i)` calls of commands spread over the catalog. */
const plansOf = (
  commands: ReadonlyArray<BenchCommand>,
  turns: number,
  callsIn: (turn: number) => number,
): TurnPlan[] => {
  const usable = commands.filter((c) => !c.command.name.endsWith("_delete"));
  return Array.from({ length: turns }, (_, i) => {
    const picked = Array.from(
      { length: callsIn(i) },
      (_, k) => usable[(i * 37 + k * 53 + 7) % usable.length] as BenchCommand,
    );
    return {
      text: `(${i + 1}) Please ${picked.map((c) => c.query).join(", then ")}.`,
      calls: picked.map((c) => ({ name: c.command.name, input: c.input, query: c.query })),
      answer: answerTo(picked),
    };
  });
};

const oneToThree = (turn: number) => 1 + (turn % 3);
const mean = (values: ReadonlyArray<number>) =>
  values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
const r1 = (value: number) => Math.round(value * 10) / 10;
const r3 = (value: number) => Math.round(value * 1000) / 1000;
const ratioOf = (after: number, before: number): number | string =>
  before === 0 ? "—" : r3(after / before);

type Case = Row & { readonly case: string };
const row = (
  label: string,
  before: number | string,
  after: number | string,
  target: string,
  pass: boolean,
  ratio = typeof before === "number" && typeof after === "number" ? ratioOf(after, before) : "—",
): Case => ({ case: label, before, after, ratio, target, pass });

/** 1. Tool definitions a request, all sent against the defaults. */
const toolDefinitions = async (): Promise<Case[]> => {
  const rows: Case[] = [];
  for (const count of TOOL_COUNTS) {
    const commands = benchCommands(count);
    const plans = plansOf(commands, TOOL_TURNS, oneToThree);
    const all = await converse(benchApp(commands, { toolSearch: false }), plans);
    const auto = await converse(benchApp(commands), plans);
    const defs = (c: Conversation) => r1(mean(c.requests.map((r) => r.toolTokens)));
    const input = (c: Conversation) => r1(mean(c.requests.map((r) => inputOf(r.usage))));
    const most = count === 10 ? 1 : 0.15;
    const ratio = defs(auto) / defs(all);
    rows.push(
      row(
        `${count} tools: tool-definition tokens a request`,
        defs(all),
        defs(auto),
        count === 10 ? "no more (≤ 1.00×)" : "≥ 85 % fewer (≤ 0.15×)",
        ratio <= most,
      ),
      row(`${count} tools: whole input a request`, input(all), input(auto), "—", true),
    );
  }
  return rows;
};

/** 2. The share of input read from the cache, requests 2… of a 20-turn conversation. */
const cacheShares = async (): Promise<Case[]> => {
  const rows: Case[] = [];
  const later = (c: Conversation) => c.requests.slice(1);
  const turns2on = (c: Conversation) => c.requests.filter((r) => r.turn >= 2);
  /** What a request paid the full price or more for: input and cache writes. */
  const unread = (c: Conversation) =>
    r1(mean(later(c).map((r) => r.usage.inputTokens + (r.usage.cacheWriteTokens ?? 0))));
  const variants = [
    [10, "10 tools (all loaded)", [["", {}]]],
    [
      LONG_TOOLS,
      `${LONG_TOOLS} tools (searched)`,
      [
        ["", {}],
        [", before all sent", { toolSearch: false }],
      ],
    ],
  ] as const;
  for (const [count, label, befores] of variants) {
    const commands = benchCommands(count);
    const plans = plansOf(commands, CACHE_TURNS, oneToThree);
    const after = await converse(benchApp(commands), plans);
    for (const [suffix, settings] of befores) {
      const before = await converse(benchApp(commands, settings), plans, OLD);
      const first = suffix === "";
      rows.push(
        // With tools searched, each request adds its search, the tool it loads and the result
        // (~1 200 tokens) to a prefix of ~3 000: no cache can read 90 % of it (the row below says
        // how much could be read). The target stays here, failed; the next row holds the
        // one that can be met: the share of what could be read (the prefix an earlier request sent).
        row(
          `cache: ${label}${suffix}, share read, steps 2+ and turns 2–${CACHE_TURNS}`,
          r3(cacheShare(later(before))),
          r3(cacheShare(later(after))),
          first ? (count === 10 ? "after ≥ 0.90" : "after ≥ 0.90 (out of reach)") : "—",
          !first || cacheShare(later(after)) >= 0.9,
        ),
        row(
          `cache: ${label}${suffix}, share read of what could be read`,
          r3(cacheShare(later(before)) / repeatedShare(later(before))),
          r3(cacheShare(later(after)) / repeatedShare(later(after))),
          first ? "after ≥ 0.95" : "—",
          !first || cacheShare(later(after)) >= 0.95 * repeatedShare(later(after)),
        ),
        row(
          `cache: ${label}${suffix}, share read, turns 2–${CACHE_TURNS} only`,
          r3(cacheShare(turns2on(before))),
          r3(cacheShare(turns2on(after))),
          "—",
          true,
        ),
        row(
          `cache: ${label}${suffix}, share an ideal cache could read (each request's prefix sent before)`,
          r3(repeatedShare(later(before))),
          r3(repeatedShare(later(after))),
          "—",
          true,
        ),
        row(
          `cache: ${label}${suffix}, tokens not read (input + writes) a request`,
          unread(before),
          unread(after),
          "—",
          true,
        ),
      );
    }
  }
  return rows;
};

/** Input tokens of each turn (all its requests, a summary's included). */
const perTurn = (requests: ReadonlyArray<RequestFigures>): number[] => {
  const turns: number[] = [];
  for (const r of requests) turns[r.turn - 1] = (turns[r.turn - 1] ?? 0) + inputOf(r.usage);
  return turns.map((t) => t ?? 0);
};

/** The turn at which a budget would have been spent (the count at cost), or "never". */
const budgetSpentAt = (
  requests: ReadonlyArray<RequestFigures>,
  budget: number,
): number | string => {
  let used = 0;
  for (const r of requests) {
    used += tokensOf(r.usage);
    if (used >= budget) return r.turn;
  }
  return "never";
};

const price = priceOf(MODEL, DEFAULT_PRICES);
if (price === undefined) throw new Error(`no list price for ${MODEL}`);
const dollars = (requests: ReadonlyArray<RequestFigures>) =>
  requests.reduce((sum, r) => sum + costOf(r.usage as Usage, price), 0);

/** 3 and 4. The 200-turn conversation: input a turn, the budget's count, the cost. */
const longConversation = async (): Promise<{ rows: Case[]; notes: string[] }> => {
  const commands = benchCommands(LONG_TOOLS);
  const plans = plansOf(commands, LONG_TURNS, () => 1);
  const start = performance.now();
  const baseline = {
    toolSearch: false,
    compactHistoryAbove: false,
    clearToolResultsAbove: false,
    maxTokensPerConversation: NO_BUDGET,
  } as const;
  const before = await converse(benchApp(commands, baseline), plans, OLD);
  // The baseline with the library's cache layout alone: what the breakpoints give by themselves.
  const layoutOnly = await converse(benchApp(commands, baseline), plans);
  const after = await converse(benchApp(commands, { maxTokensPerConversation: NO_BUDGET }), plans);
  const seconds = (performance.now() - start) / 1000;
  const series = (c: Conversation) => perTurn(c.requests);
  const figure = (
    label: string,
    f: (c: Conversation) => number | string,
    target = "—",
    pass = true,
  ) => row(`${LONG_TURNS} turns: ${label}`, f(before), f(after), target, pass);
  const oversize = (c: Conversation) =>
    c.requests.filter((r) => inputOf(r.usage) > CONTEXT_WINDOW).length;
  const failed = (c: Conversation) => c.ends.filter((e) => e !== "Answered").length;
  const rows = [
    figure("input tokens a turn, first", (c) => series(c)[0] ?? 0),
    figure("input tokens a turn, median", (c) => median(series(c))),
    figure("input tokens a turn, max", (c) => Math.max(...series(c))),
    figure("input tokens a turn, last", (c) => series(c).at(-1) ?? 0),
    figure("largest request, input tokens", (c) =>
      Math.max(...c.requests.map((r) => inputOf(r.usage))),
    ),
    figure("requests", (c) => c.requests.length),
    figure(
      `requests over the ${CONTEXT_WINDOW.toLocaleString("en-US")}-token window`,
      oversize,
      "after 0",
      oversize(after) === 0,
    ),
    figure("turns not answered (budget, errors)", failed, "after 0", failed(after) === 0),
    figure("summaries (Compacted)", (c) => c.compactions),
    figure("tool results cleared (ToolResultsCleared)", (c) => c.clearings),
    figure("cache share, requests 2…", (c) => r3(cacheShare(c.requests.slice(1)))),
    figure("budget count (context().tokensUsed)", (c) => c.tokensUsed),
    figure(`budget count per ${LONG_TURNS} turns, usage fold`, (c) =>
      c.requests.reduce((n, r) => n + tokensOf(r.usage), 0),
    ),
    figure(
      `turn the default budget (${DEFAULT_TOKEN_BUDGET.toLocaleString("en-US")}) runs out`,
      (c) => budgetSpentAt(c.requests, DEFAULT_TOKEN_BUDGET),
    ),
    figure(`cost at list prices, US$ (${MODEL})`, (c) => r3(dollars(c.requests))),
    row(
      `${LONG_TURNS} turns: cost, US$, before → the cache layout alone (all sent, no summary)`,
      r3(dollars(before.requests)),
      r3(dollars(layoutOnly.requests)),
      "—",
      true,
    ),
    row(
      `${LONG_TURNS} turns: budget count, before → the cache layout alone`,
      before.tokensUsed,
      layoutOnly.tokensUsed,
      "—",
      true,
    ),
    figure("summary requests: input tokens", (c) =>
      c.requests.filter((r) => r.step === 0).reduce((n, r) => n + inputOf(r.usage), 0),
    ),
    figure("summary requests: share read from cache", (c) => {
      const asked = c.requests.filter((r) => r.step === 0);
      return asked.length === 0 ? "—" : r3(cacheShare(asked));
    }),
  ];
  const firstFail = [before, after].map((c) => c.ends.find((e) => e !== "Answered")).find(Boolean);
  return {
    rows,
    notes: [
      "Share an ideal cache could read: each request's longest prefix (its blocks in the API's order) " +
        "that an earlier request of the conversation sent too, whatever the breakpoints, TTLs and " +
        "minimum: nothing can be read from a cache that was not sent before. With 150 tools searched " +
        "it is 74 %, so the issue's 90 % is out of reach for that conversation; the library reads 97 % of it.",
      `${LONG_TURNS} turns took ${seconds.toFixed(1)} s for the three variants.`,
      ...(firstFail === undefined ? [] : [`a turn ended: ${firstFail}`]),
    ],
  };
};

const run = async (): Promise<BenchResult> => {
  const tools = await toolDefinitions();
  const cache = await cacheShares();
  const long = await longConversation();
  const rows = [...tools, ...cache, ...long.rows];
  return {
    title:
      "tokens a conversation sends: tool definitions, the prompt cache's share, input over 200 turns, cost",
    baseline:
      "the same conversations in the same run as the library sent them before issue 32: all tools " +
      "loaded (toolSearch: false), no summary nor clearing (compactHistoryAbove and " +
      "clearToolResultsAbove false), one cache breakpoint on the system prompt (by hand)",
    target:
      "tool definitions ≥ 85 % fewer at 100 and 300 tools, no more at 10; ≥ 90 % of input read " +
      "from the cache on steps and turns 2–20 (out of reach with tools searched, where any cache " +
      "could read at most 74 %: there ≥ 95 % of what could be read, each request's prefix an earlier one sent); " +
      "no request over the context window nor refused in 200 turns",
    pass: rows.every((r) => r.pass),
    headline: "after",
    columns: ["case", "before", "after", "ratio", "target", "pass"],
    rows,
    notes: [
      "Tokens are the library's estimate (estimateTokens: UTF-8 bytes / 4), as the stand-in counts " +
        "them: its prompt cache (src/testing/promptCache.ts) reports input, cache reads and writes " +
        "from each request's blocks and breakpoints, the API's rules (20-position lookback, " +
        "1 024-token minimum for Sonnet, deferred tools outside the prompt).",
      "Tool-definition tokens: each request's `tools` as the stand-in received them, each loaded " +
        "tool's JSON without its cache_control; a deferred tool 0 until a tool_reference in the " +
        "messages loads it, then its definition once. The whole input (input + cache read + " +
        "cache write) includes the search's own blocks.",
      `Turns: tool definitions ${TOOL_TURNS}, cache ${CACHE_TURNS}, each calling 1–3 commands ` +
        "(a step each; with tool search, each step searches for its tool first), answers of " +
        `${ANSWER_BYTES} bytes; ${LONG_TURNS} turns of one call each with ${LONG_TOOLS} tools. ` +
        "Generated commands return ~2 KB of JSON; a fresh stand-in (a cold cache) per conversation; " +
        "the turns follow each other at once (no 5-minute expiry between them).",
      "Before in the cache rows: the same app settings, anthropic({ promptCache: false }) and a " +
        "fetch that marks the system prompt's last block, as toParams did before 2adac53 " +
        '("before all sent" also sends every tool). Before in the 200-turn rows: all of the baseline.',
      "Cost: the sum of costOf(StepFinished usage, DEFAULT_PRICES) for the model " +
        `(${MODEL}: input $${price.input}, output $${price.output}, cache read $${price.cacheRead}, ` +
        `write $${price.cacheWrite5m} a million). The budget count is tokensOf (reads a tenth, writes 1.25).`,
      ...long.notes,
    ],
  };
};

export const benchmark: Benchmark = { name: "tokens", run };
