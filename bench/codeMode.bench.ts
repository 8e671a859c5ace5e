import { once } from "node:events";
import { createHost } from "elyra-assistant";
import { anthropic } from "elyra-assistant/anthropic";
import {
  codeCalls,
  codeFinished,
  codeRuns,
  type ScriptedResponse,
  type StandInRequest,
  says,
  toolCall,
} from "elyra-assistant/testing";
import {
  ADA,
  INVOICES,
  invoiceBook,
  missingTotal,
  TASK_CODE,
  WITHOUT_PROJECT,
} from "../spec/fixtures/invoiceBook.ts";
import type { Benchmark, BenchResult } from "./report.ts";
import { serveStandInIfChild, startStandIn } from "./standInChild.ts";

const TARGET_BYTES_RATIO = 10;
const ROUNDS = 9;
const WARMUP_TASKS = 3;
/** Parallel invoices_update calls the direct way makes a step. */
const BATCH = 10;
/** Enough steps for the direct way: index, 4 batches, the answer. */
const MAX_STEPS = 16;
const PROJECT = "P-unassigned";
const PROMPT = "Put every invoice without a project on P-unassigned, and tell me their total.";

/* ---------------------------------------------------------------------------------------------
 * The stand-in's script: a function of the request, so one stand-in serves every task of both
 * ways. It plays the model, and in code mode the sandbox too: the code's calls follow from the
 * invoices the container received, as TASK_CODE's loop would make them.
 * ------------------------------------------------------------------------------------------- */

type WireBlock = {
  readonly type: string;
  readonly id?: string;
  readonly name?: string;
  readonly text?: string;
  readonly tool_use_id?: string;
  readonly content?: unknown;
  readonly caller?: { readonly type?: string };
};
type WireMessage = { readonly role: string; readonly content: string | ReadonlyArray<WireBlock> };
type Body = {
  readonly messages: ReadonlyArray<WireMessage>;
  readonly tools?: ReadonlyArray<{ readonly type?: string; readonly name?: string }>;
};
type Invoice = { readonly id: number; readonly amount: number; readonly project: string | null };

const blocksOf = (m: WireMessage | undefined): ReadonlyArray<WireBlock> =>
  m === undefined || typeof m.content === "string" ? [] : m.content;

/** The messages of the current turn: those after the last user message that is not tool results. */
const turnOf = (messages: ReadonlyArray<WireMessage>): ReadonlyArray<WireMessage> => {
  const start = messages.findLastIndex(
    (m) => m.role === "user" && !blocksOf(m).some((b) => b.type === "tool_result"),
  );
  return messages.slice(start + 1);
};

/** The invoices invoices_index answered in this turn, when it has. */
const indexed = (turn: ReadonlyArray<WireMessage>): ReadonlyArray<Invoice> | undefined => {
  const blocks = turn.flatMap(blocksOf);
  const call = blocks.find((b) => b.type === "tool_use" && b.name === "invoices_index");
  const result = blocks.find((b) => b.type === "tool_result" && b.tool_use_id === call?.id);
  return typeof result?.content === "string"
    ? (JSON.parse(result.content) as ReadonlyArray<Invoice>)
    : undefined;
};

const updateCalls = (turn: ReadonlyArray<WireMessage>): number =>
  turn.flatMap(blocksOf).filter((b) => b.type === "tool_use" && b.name === "invoices_update")
    .length;

const update = (invoice: Invoice) => ({
  name: "invoices_update",
  input: { id: invoice.id, project: PROJECT },
});

const answer = (count: number, total: number) =>
  `Done: the ${count} invoices that had no project are now on ${PROJECT}; together they come to ${total}.`;

const scripted = (request: StandInRequest): ScriptedResponse => {
  const body = request.body as Body;
  const codeMode = (body.tools ?? []).some((t) => t.type?.startsWith("code_execution") === true);
  const turn = turnOf(body.messages);
  if (!turn.some((m) => m.role === "assistant")) {
    return codeMode
      ? codeRuns(TASK_CODE, [{ name: "invoices_index", input: {} }])
      : toolCall("invoices_index", {});
  }
  const invoices = indexed(turn);
  if (invoices === undefined) throw new Error("no invoices_index result in the turn");
  const missing = invoices.filter((i) => i.project === null);
  const total = missing.reduce((sum, i) => sum + i.amount, 0);
  const done = updateCalls(turn);
  if (codeMode) {
    const next = missing[done];
    return next === undefined
      ? codeFinished(
          {
            stdout: `${invoices.length} invoices read, ${missing.length} updated, total ${total}\n`,
          },
          answer(missing.length, total),
        )
      : codeCalls([update(next)]);
  }
  const batch = missing.slice(done, done + BATCH);
  return batch.length === 0
    ? says(answer(missing.length, total))
    : { toolCalls: batch.map(update), stopReason: "tool_use" };
};

// In the child: the stand-in, with ids of one width, so the request bytes are the same every task.
let n = 0;
await serveStandInIfChild(import.meta.url, scripted, {
  ids: { next: () => `${++n}`.padStart(8, "0") },
});

/* ---------------------------------------------------------------------------------------------
 * Counting, on the client: every request the SDK sends, as it sends it.
 * ------------------------------------------------------------------------------------------- */

interface Tally {
  /** HTTP requests to the stand-in. */
  requests: number;
  /** Requests that are a model run: not the answer to a pause of the code. */
  modelRuns: number;
  /** Request body bytes, summed. */
  requestBytes: number;
  /** Bytes of new tool_result content answering the model's own calls: into its context. */
  resultBytesToModel: number;
  /** Bytes of new tool_result content answering calls from code: to the container. */
  resultBytesToCode: number;
  /** tool_result blocks, new in a request, answering the model's own calls / the code's. */
  resultsToModel: number;
  resultsToCode: number;
}

const emptyTally = (): Tally => ({
  requests: 0,
  modelRuns: 0,
  requestBytes: 0,
  resultBytesToModel: 0,
  resultBytesToCode: 0,
  resultsToModel: 0,
  resultsToCode: 0,
});

/**
 * Tallies one request body. Its new tool results are those of its last
 * message, answering the tool_use blocks of the assistant message before
 * it; a request whose every new result answers a call from code is the
 * answer to a pause, not a model run.
 */
const tallyRequest = (tally: Tally, text: string): void => {
  tally.requests++;
  tally.requestBytes += Buffer.byteLength(text);
  const { messages } = JSON.parse(text) as Body;
  const last = messages.at(-1);
  const callers = new Map(
    blocksOf(messages.at(-2))
      .filter((b) => b.type === "tool_use")
      .map((b) => [b.id, b.caller?.type ?? "direct"]),
  );
  const results =
    last?.role === "user" ? blocksOf(last).filter((b) => b.type === "tool_result") : [];
  let fromCode = 0;
  for (const r of results) {
    const bytes = Buffer.byteLength(
      typeof r.content === "string" ? r.content : JSON.stringify(r.content ?? ""),
    );
    if ((callers.get(r.tool_use_id) ?? "direct") === "direct") {
      tally.resultBytesToModel += bytes;
      tally.resultsToModel++;
    } else {
      tally.resultBytesToCode += bytes;
      tally.resultsToCode++;
      fromCode++;
    }
  }
  const pauseAnswer = results.length > 0 && fromCode === results.length;
  if (!pauseAnswer) tally.modelRuns++;
};

/** The SDK's fetch, tallying each request's body into `current()`. */
const countingFetch =
  (current: () => Tally | undefined): typeof fetch =>
  async (input, init) => {
    const tally = current();
    if (tally !== undefined && typeof init?.body === "string") tallyRequest(tally, init.body);
    return fetch(input, init);
  };

/* ---------------------------------------------------------------------------------------------
 * One task: a fresh invoice book, host and window (made before the clock), the prompt timed.
 * ------------------------------------------------------------------------------------------- */

interface Task {
  readonly tally: Tally;
  readonly wallMs: number;
  /** What the code printed (code mode), which the model reads. */
  readonly codeOutput: string;
  readonly answer: string;
}

const runTask = async (url: string, codeMode: boolean): Promise<Task> => {
  const book = invoiceBook({ codeMode, maxSteps: MAX_STEPS });
  let tally: Tally | undefined;
  const host = createHost(book.app, {
    model: anthropic({
      baseURL: url,
      apiKey: "k",
      maxRetries: 0,
      fetch: countingFetch(() => tally),
    }),
  });
  try {
    const w = host.window("task", { user: ADA });
    await w.ready;
    tally = emptyTally();
    const started = performance.now();
    const end = await w.prompt(PROMPT);
    await w.settled();
    const wallMs = performance.now() - started;
    const counted = tally;
    tally = undefined;
    if (end._tag !== "Answered") {
      throw new Error(
        `${codeMode ? "code mode" : "direct"}: the task ended ${JSON.stringify(end)}`,
      );
    }
    const updated = book.runs.get("invoices_update") ?? 0;
    const still = [...book.invoices.values()].filter((i) => i.project === null).length;
    if (book.runs.get("invoices_index") !== 1 || updated !== WITHOUT_PROJECT.length || still > 0) {
      throw new Error(
        `${codeMode ? "code mode" : "direct"}: index ran ${book.runs.get("invoices_index")}, ` +
          `update ${updated}, ${still} still without a project`,
      );
    }
    if (!end.text.includes(String(missingTotal()))) {
      throw new Error(`the answer lacks the total ${missingTotal()}: ${end.text}`);
    }
    const script = w.panel().items.find((i) => i.kind === "script") as
      | { readonly output?: string }
      | undefined;
    const codeOutput = script?.output ?? "";
    if (codeMode && !codeOutput.includes(`total ${missingTotal()}`)) {
      throw new Error(`the code's output lacks the total: ${JSON.stringify(codeOutput)}`);
    }
    await w.close();
    return { tally: counted, wallMs, codeOutput, answer: end.text };
  } finally {
    await host.close();
  }
};

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const r2 = (value: number) => Math.round(value * 100) / 100;
const r1 = (value: number) => Math.round(value * 10) / 10;

const sameTally = (a: Tally, b: Tally) => JSON.stringify(a) === JSON.stringify(b);

/** What a way's tasks measured: the tally (the same every task, checked) and the wall times. */
interface Way {
  readonly tally: Tally;
  readonly codeOutput: string;
  readonly answer: string;
  readonly wallMs: ReadonlyArray<number>;
}

const run = async (): Promise<BenchResult> => {
  const { url, child } = await startStandIn(import.meta.url);
  const seen: Record<"code" | "direct", Task[]> = { code: [], direct: [] };
  try {
    for (let i = 0; i < WARMUP_TASKS; i++) {
      await runTask(url, true);
      await runTask(url, false);
    }
    for (let round = 0; round < ROUNDS; round++) {
      // The order alternated each round.
      if (round % 2 === 0) {
        seen.code.push(await runTask(url, true));
        seen.direct.push(await runTask(url, false));
      } else {
        seen.direct.push(await runTask(url, false));
        seen.code.push(await runTask(url, true));
      }
    }
  } finally {
    child.stdin?.end();
    await once(child, "exit");
  }
  const way = (tasks: ReadonlyArray<Task>, name: string): Way => {
    const first = tasks[0]!;
    if (!tasks.every((t) => sameTally(t.tally, first.tally))) {
      throw new Error(
        `${name}: the tasks' counts differ: ${tasks.map((t) => JSON.stringify(t.tally)).join("\n")}`,
      );
    }
    return { ...first, wallMs: tasks.map((t) => t.wallMs) };
  };
  const code = way(seen.code, "code mode");
  const direct = way(seen.direct, "direct");
  /** Bytes entering the model's context: results of its own calls, and what the code printed. */
  const intoContext = (w: Way) => w.tally.resultBytesToModel + Buffer.byteLength(w.codeOutput);
  const codeContext = intoContext(code);
  const directContext = intoContext(direct);
  const bytesRatio = directContext / codeContext;
  const fewerRuns = code.tally.modelRuns < direct.tally.modelRuns;
  const pass = bytesRatio >= TARGET_BYTES_RATIO && fewerRuns;
  const row = (name: string, w: Way, isBaseline: boolean) => ({
    case: name,
    requests: w.tally.requests,
    modelRuns: w.tally.modelRuns,
    requestBytes: w.tally.requestBytes,
    contextBytes: intoContext(w),
    resultBytesToModel: w.tally.resultBytesToModel,
    codeOutputBytes: Buffer.byteLength(w.codeOutput),
    resultBytesToCode: w.tally.resultBytesToCode,
    resultsToModel: w.tally.resultsToModel,
    resultsToCode: w.tally.resultsToCode,
    wallMs: r2(median(w.wallMs)),
    wallMsMin: r2(Math.min(...w.wallMs)),
    wallMsMax: r2(Math.max(...w.wallMs)),
    contextBytesRatio: r1(directContext / intoContext(w)),
    requestsRatio: r2(w.tally.requests / direct.tally.requests),
    requestBytesRatio: r2(w.tally.requestBytes / direct.tally.requestBytes),
    wallRatio: r2(median(w.wallMs) / median(direct.wallMs)),
    pass: isBaseline ? "baseline" : pass,
  });
  const rows = [
    row("code mode: 1 run, 1 index + 37 updates from code", code, false),
    row(`direct: index, updates ${BATCH} a step, answer`, direct, true),
  ];
  const directSteps = Math.ceil(WITHOUT_PROJECT.length / BATCH);
  return {
    title: `code mode: the ${INVOICES}-invoice task (${WITHOUT_PROJECT.length} without a project)`,
    baseline: `direct tool calling: invoices_index into the model's context, then invoices_update ${BATCH} parallel calls a step`,
    target: `≥ ${TARGET_BYTES_RATIO}× fewer bytes entering the model's context than direct, and fewer model runs`,
    pass,
    headline: "contextBytes",
    columns: [
      "case",
      "requests",
      "modelRuns",
      "requestBytes",
      "contextBytes",
      "resultBytesToCode",
      "wallMs",
      "contextBytesRatio",
      "requestsRatio",
      "requestBytesRatio",
      "wallRatio",
      "pass",
    ],
    rows,
    notes: [
      `Both ways over HTTP: createHost(invoiceBook({codeMode, maxSteps: ${MAX_STEPS}}).app, ` +
        `{model: anthropic({baseURL, apiKey: "k", maxRetries: 0})}), the real SDK streaming, a ` +
        "fresh book, host and window per task (made before the clock, closed after); the stand-in " +
        "Messages API in a child process, its script a function of the request.",
      `code mode: codeRuns(TASK_CODE) with invoices_index as the code's first call; the stand-in, ` +
        "as the sandbox, reads the index result the container got and pauses once per invoice " +
        `without a project (codeCalls, ${WITHOUT_PROJECT.length} of them), then codeFinished ` +
        `printing ${JSON.stringify(code.codeOutput.trim())} and the answer: ` +
        `${code.tally.requests} requests, of which ${code.tally.modelRuns} a model run.`,
      `direct (the scripting choice): the model calls invoices_index, then invoices_update in ` +
        `batches of ${BATCH} parallel tool calls a step (${directSteps} steps: ` +
        `${Array.from({ length: directSteps }, (_, i) => Math.min(BATCH, WITHOUT_PROJECT.length - i * BATCH)).join("+")}), ` +
        "then answers; every request is a model run. One call a step would take " +
        `${WITHOUT_PROJECT.length + 2} runs, so this baseline is the kind one.`,
      "Counted on the client through the SDK's fetch: requests; modelRuns (requests not answering " +
        "a pause of the code, i.e. whose last message is not all tool_result for calls from code); " +
        "requestBytes (request bodies, the whole history each time); contextBytes (what enters the " +
        "model's context: tool_result content for the model's own calls, each counted once, plus " +
        "the code's printed output); resultBytesToCode (tool_result content for calls from code: " +
        "to the container, not the model).",
      "Ratios are this way ÷ direct, but contextBytesRatio is direct ÷ this way (how many times " +
        "fewer). Code mode sends more requests and more request bytes: each pause is a round trip " +
        "that resends the history, the 214-invoice result included; those bytes go to the " +
        "container. With the stand-in answering at once, the round trips are all of wall time; " +
        "against the real API each of the direct way's runs generates tokens, while a pause " +
        "answer only resumes the code (codeCalls reports 0 tokens in and out).",
      `wallMs: one whole task (prompt() to settled()), median of ${ROUNDS} rounds, the order ` +
        `alternated each round, after ${WARMUP_TASKS} warm-up tasks a way; min/max in results.json. ` +
        "The stand-in's CPU counts among the runner's 'other processes'.",
    ],
  };
};

export const benchmark: Benchmark = { name: "codeMode", run };
