/**
 * One conversation of the tokens bench: a real host over the real
 * `anthropic()` adapter (the SDK, streamed) and the stand-in Messages API on
 * loopback with its prompt cache on, a fresh stand-in (so a fresh cache) per
 * conversation. The stand-in's script plays each turn's plan: a step per
 * planned call (with a tool search first when the request defers the tool
 * and nothing loaded it yet), then the answer; and a summary when the
 * library asks for one. Each request's tool definitions are counted as the
 * stand-in receives them; its usage is what the host's `StepFinished`
 * recorded.
 */
import { createHash } from "node:crypto";
import { type App, createHost } from "elyra-assistant";
import { anthropic } from "elyra-assistant/anthropic";
import type { LogEvent } from "elyra-assistant/log";
import {
  type ScriptedReply,
  type StandInRequest,
  says,
  standInMessagesApi,
  toolCall,
} from "elyra-assistant/testing";
import type { Usage } from "../src/runtime/log/events.ts";
import { inputOf } from "../src/runtime/log/stepUsage.ts";
import { SUMMARY_REQUEST } from "../src/runtime/prompt/compaction.ts";
import { estimateJsonTokens, estimateTokens } from "../src/runtime/prompt/tokens.ts";
import { TOOL_SEARCH_TYPE } from "../src/runtime/prompt/toolSearch.ts";
import { promptBlocks } from "../src/testing/promptCache.ts";
import { referencesIn } from "../src/testing/standInToolSearch.ts";
import { ADA } from "./tokensCommands.ts";

/** A call the model makes in a step of its own. */
export interface PlannedCall {
  readonly name: string;
  readonly input: unknown;
  /** What the model searches for it with, when it must search first. */
  readonly query: string;
}

/** One turn: the question, the calls the model makes (a step each), and its answer. */
export interface TurnPlan {
  readonly text: string;
  readonly calls: ReadonlyArray<PlannedCall>;
  readonly answer: string;
}

/**
 * How requests mark the prompt cache: the library's layout (four
 * breakpoints, `anthropic()`'s default), or the layout before it, written
 * here by hand: `anthropic({ promptCache: false })` (no breakpoint at all),
 * then one breakpoint put back on the system prompt's last block on the way
 * out, as `toParams` did before (2adac53^).
 */
export type Layout = "library" | "system prompt only (before)";

/** What one request sent and used. */
export interface RequestFigures {
  readonly turn: number;
  /** 0 for a summary request, else the step from 1. */
  readonly step: number;
  /** Tool definitions in the prompt: loaded tools' JSON; a deferred tool 0 until a tool_reference loads it. */
  readonly toolTokens: number;
  /** Of its input, the prefix an earlier request sent too: the most any cache could have read. */
  readonly repeated: number;
  readonly usage: Usage;
}

/** What a conversation gave. */
export interface Conversation {
  readonly requests: ReadonlyArray<RequestFigures>;
  /** How each turn ended, in order (`Answered`, or a `Failed` error's words). */
  readonly ends: ReadonlyArray<string>;
  /** The machine's count against the budget (`window.context().tokensUsed`). */
  readonly tokensUsed: number;
  readonly compactions: number;
  readonly clearings: number;
}

type Json = Record<string, unknown>;

const withoutMarks = (tool: Json): Json => {
  const { cache_control: _c, defer_loading: _d, ...rest } = tool;
  return rest;
};

/** Each content block of the request's messages. */
const blocksOf = (messages: ReadonlyArray<Json>): Json[] =>
  messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Json[]) : []));

/**
 * The tokens of the tool definitions a request puts in the prompt: each
 * loaded tool's JSON (its breakpoint left out); a deferred one counts 0
 * unless a `tool_reference` in the messages loads it, then its definition
 * once (the API expands a loaded tool where its reference is).
 */
export const toolDefinitionTokens = (body: Json): number => {
  const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  const loaded = new Set(blocksOf(messages).flatMap((b) => referencesIn(b)));
  let tokens = 0;
  for (const tool of tools) {
    if (tool.defer_loading !== true || loaded.has(String(tool.name)))
      tokens += estimateJsonTokens(withoutMarks(tool));
  }
  return tokens;
};

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? (content as Json[]).map((b) => (b.type === "text" ? String(b.text) : "")).join("")
      : "";

/** A summary of about 2 KB, as the model would write one (at most 400 words). */
const SUMMARY = `Summary: ${"Ada reviewed projects, timesheets and invoices; ids, amounts and dates noted; open: two follow-ups. ".repeat(22)}`;

/** What the script saw of a request: its tool definitions, and its prefix an earlier request sent too. */
interface Seen {
  readonly toolTokens: number;
  readonly repeated: number;
}

/**
 * The tokens of the longest prefix of `body`'s prompt (its blocks in the
 * API's order) that an earlier request of the conversation sent too: what
 * the best of caches could read, whatever its breakpoints, TTLs and minimum.
 * `prefixes` holds a digest of every prefix sent so far, and gains this request's.
 */
const repeatedPrefix = (body: Json, prefixes: Set<string>): number => {
  let digest = "";
  let tokens = 0;
  let repeated = 0;
  let still = true;
  for (const block of promptBlocks(body)) {
    digest = createHash("sha256").update(digest).update(block.key).digest("base64");
    tokens += block.tokens;
    if (still && prefixes.has(digest)) repeated = tokens;
    else still = false;
    prefixes.add(digest);
  }
  return repeated;
};

/** The stand-in's script over `plan()`, the turn now asked; each request's figures go to `seen`. */
const scriptOf = (plan: () => TurnPlan, seen: Seen[]) => {
  const prefixes = new Set<string>();
  return (request: StandInRequest): ScriptedReply => {
    const body = request.body as Json;
    const messages = (body.messages ?? []) as Json[];
    const tools = (Array.isArray(body.tools) ? body.tools : []) as Json[];
    seen.push({ toolTokens: toolDefinitionTokens(body), repeated: repeatedPrefix(body, prefixes) });
    if (textOf(messages.at(-1)?.content).includes(SUMMARY_REQUEST))
      return says(SUMMARY, { usage: { outputTokens: estimateTokens(SUMMARY) } });
    const turn = plan();
    const asked = messages.findLastIndex(
      (m) => m.role === "user" && textOf(m.content).includes(turn.text),
    );
    const step = messages.slice(asked + 1).filter((m) => m.role === "assistant").length;
    const call = turn.calls[step];
    if (call === undefined)
      return says(turn.answer, { usage: { outputTokens: estimateTokens(turn.answer) } });
    const loaded = new Set(blocksOf(messages).flatMap((b) => referencesIn(b)));
    const search =
      tools.some((t) => typeof t.type === "string" && TOOL_SEARCH_TYPE.test(t.type)) &&
      tools.some((t) => t.name === call.name && t.defer_loading === true) &&
      !loaded.has(call.name);
    const text = "Let me look that up.";
    const output =
      estimateTokens(text) +
      estimateJsonTokens({ name: call.name, input: call.input }) +
      (search ? estimateJsonTokens({ query: call.query }) + 8 : 0);
    return toolCall(call.name, call.input, {
      text,
      ...(search ? { searchTools: call.query } : {}),
      usage: { outputTokens: output },
    });
  };
};

/** The layout before: the system prompt's last block marked, nothing else (the library sends no mark with `promptCache: false`). */
const systemPromptOnly = async (input: string | URL | Request, init?: RequestInit) => {
  const body = JSON.parse(String(init?.body)) as Json;
  const system = body.system as Json[] | undefined;
  if (Array.isArray(system) && system.length > 0) {
    body.system = system.map((b, i) =>
      i === system.length - 1 ? { ...b, cache_control: { type: "ephemeral" } } : b,
    );
  }
  return fetch(input, { ...init, body: JSON.stringify(body) });
};

/**
 * Plays `plans` in one window of a fresh host over a fresh stand-in, and
 * gives what each request sent and used. Throws if a request the host sent
 * did not end in a `StepFinished` (the figures would not pair up).
 */
export const converse = async (
  app: App,
  plans: ReadonlyArray<TurnPlan>,
  layout: Layout = "library",
): Promise<Conversation> => {
  let at = 0;
  const seen: Seen[] = [];
  const api = await standInMessagesApi(
    scriptOf(() => plans[at] as TurnPlan, seen),
    { promptCache: true },
  );
  const host = createHost(app, {
    model: anthropic({
      baseURL: api.url,
      apiKey: "bench-key",
      maxRetries: 0,
      ...(layout === "library" ? {} : { promptCache: false, fetch: systemPromptOnly }),
    }),
  });
  const steps: Array<{ turn: number; step: number; usage: Usage }> = [];
  const ends: string[] = [];
  let compactions = 0;
  let clearings = 0;
  try {
    const w = host.window("tokens", { user: ADA });
    await w.ready;
    const subscription = w.events$().subscribe((e: LogEvent) => {
      if (e._tag === "StepFinished") steps.push({ turn: e.turn, step: e.step, usage: e.usage });
      else if (e._tag === "Compacted") compactions++;
      else if (e._tag === "ToolResultsCleared") clearings++;
    });
    for (at = 0; at < plans.length; at++) {
      const end = await w.prompt((plans[at] as TurnPlan).text);
      ends.push(end._tag === "Failed" ? `Failed: ${end.error}` : end._tag);
      // The stand-in keeps every request's body; the figures are taken, so let them go.
      (api.requests as StandInRequest[]).length = 0;
    }
    await w.settled();
    subscription.unsubscribe();
    const tokensUsed = w.context().tokensUsed;
    if (steps.length !== seen.length)
      throw new Error(`${seen.length} requests but ${steps.length} steps finished: ${ends.at(-1)}`);
    return {
      requests: steps.map((s, i) => ({
        ...s,
        toolTokens: (seen[i] as Seen).toolTokens,
        repeated: (seen[i] as Seen).repeated,
      })),
      ends,
      tokensUsed,
      compactions,
      clearings,
    };
  } finally {
    await host.close();
    await api.close();
  }
};

/** A request's whole input: what the stand-in counted uncached, read and written. */
export { inputOf };

/** The share of `requests`' input an ideal cache could read: each one's prefix sent before. */
export const repeatedShare = (requests: ReadonlyArray<RequestFigures>): number => {
  const repeated = requests.reduce((n, r) => n + r.repeated, 0);
  const all = requests.reduce((n, r) => n + inputOf(r.usage), 0);
  return all === 0 ? 0 : repeated / all;
};

/** The share of `requests`' input read from the cache. */
export const cacheShare = (requests: ReadonlyArray<RequestFigures>): number => {
  const read = requests.reduce((n, r) => n + (r.usage.cacheReadTokens ?? 0), 0);
  const all = requests.reduce((n, r) => n + inputOf(r.usage), 0);
  return all === 0 ? 0 : read / all;
};
