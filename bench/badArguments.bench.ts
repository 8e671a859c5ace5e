/**
 * Refusing bad arguments (issue 16; the targets in docs/architecture.md): the
 * CPU the call path takes to refuse a `tools/call` whose arguments are an
 * array of structs with optional fields, every element wrong, against
 * `JSON.parse` of the same body in the same run: the cost any host pays to
 * read it at all. Target: ≤ 100 ms of CPU to refuse a 4 MiB body.
 *
 * Cases: the 656 KiB (32 000 elements) and 4 MiB (about 200 000); and
 * what the depth cap adds to reading a valid 4 MiB body: the scan of its text
 * for nesting, before it is parsed.
 */
import { createApp, createCallPath, formatOutcome } from "elyra-assistant";
import { textNestedDeeper } from "../src/runtime/json.ts";
import { bulkImport as bulk } from "./bulkImport.ts";
import { type Benchmark, type BenchResult, median } from "./report.ts";

const TARGET_MS = 100;
const ROUNDS = 7;
const WARMUP = 2;

const KiB = 1024;
const MiB = 1024 * KiB;

const app = createApp({ commands: [bulk], userAbilities: () => [], mcp: { allow: ["*"] } });
const path = createCallPath(app);
const ctx = { user: {}, origin: { kind: "agent", client: "bench" }, scope: "bench" } as const;

/** A body of about `bytes`: `{"items":[…]}`, every element with a wrong optional field and a wrong qty. */
const badBody = (bytes: number): { readonly text: string; readonly elements: number } => {
  const element = '{"note":1,"qty":"1"}';
  const elements = Math.floor((bytes - 12) / (element.length + 1));
  return { text: `{"items":[${Array(elements).fill(element).join(",")}]}`, elements };
};

/** A valid body of about `bytes`, shaped as a Messages API request: text and some nesting. */
const validBody = (bytes: number): string => {
  const message = JSON.stringify({
    role: "user",
    content: [{ type: "text", text: 'Which invoices [of March] are overdue? "Ada" asks.' }],
  });
  const count = Math.floor((bytes - 64) / (message.length + 1));
  return `{"model":"claude-sonnet-5-5","max_tokens":1024,"messages":[${Array(count).fill(message).join(",")}]}`;
};

/** CPU (user + system) of one run of `work`, in ms. */
const cpuMs = async (work: () => unknown): Promise<number> => {
  const start = process.cpuUsage();
  await work();
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
};

/** Where results go, so no work is optimised away. */
let sink: unknown;

/** The median CPU of `work` and of the baseline, each run `ROUNDS` times after `WARMUP`, alternating. */
const compare = async (work: () => unknown, baseline: () => unknown) => {
  const worked: number[] = [];
  const based: number[] = [];
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    const w = await cpuMs(work);
    const b = await cpuMs(baseline);
    if (round < WARMUP) continue;
    worked.push(w);
    based.push(b);
  }
  return { ms: median(worked), baselineMs: median(based) };
};

const refusal = async (bytes: number, label: string) => {
  const { text, elements } = badBody(bytes);
  const input: unknown = JSON.parse(text);
  const refuse = async () => {
    const outcome = await path.call({ tool: bulk.name, input }, ctx);
    if (outcome._tag !== "InvalidArguments") throw new Error(`${label}: ${outcome._tag}`);
    sink = formatOutcome(outcome).text;
  };
  const { ms, baselineMs } = await compare(refuse, () => {
    sink = JSON.parse(text);
  });
  return {
    case: `${label}: refuse ${elements.toLocaleString("en-US")} bad elements`,
    bodyKiB: Math.round(text.length / KiB),
    cpuMs: round(ms),
    parseMs: round(baselineMs),
    ratio: round(ms / baselineMs),
    pass: ms <= TARGET_MS,
  };
};

const depthScan = async (bytes: number, label: string) => {
  const text = validBody(bytes);
  const { ms, baselineMs } = await compare(
    () => {
      if (textNestedDeeper(text)) throw new Error(`${label}: found too deep`);
    },
    () => {
      sink = JSON.parse(text);
    },
  );
  return {
    case: `${label}: the depth scan of a valid body`,
    bodyKiB: Math.round(text.length / KiB),
    cpuMs: round(ms),
    parseMs: round(baselineMs),
    ratio: round(ms / baselineMs),
    pass: ms <= TARGET_MS,
  };
};

const round = (value: number): number => Math.round(value * 100) / 100;

const run = async (): Promise<BenchResult> => {
  const rows = [
    await refusal(656 * KiB, "656 KiB"),
    await refusal(4 * MiB, "4 MiB"),
    await depthScan(4 * MiB, "4 MiB"),
  ];
  if (sink === undefined) throw new Error("nothing was measured");
  return {
    title: "refusing bad arguments: the call path, per refusal, CPU",
    baseline: "JSON.parse of the same body, in the same run",
    target: `≤ ${TARGET_MS} ms of CPU to refuse a 4 MiB body`,
    pass: rows.every((r) => r.pass),
    headline: "cpuMs",
    columns: ["case", "bodyKiB", "cpuMs", "parseMs", "ratio"],
    rows,
    notes: [
      `process.cpuUsage() user+system around one call (the body parsed beforehand) and around one JSON.parse of its text, alternating; medians of ${ROUNDS} rounds after ${WARMUP} warmups. ratio: cpuMs / parseMs.`,
      "A refusal is createCallPath(app).call of an MCP-origin tools/call whose every element has a wrong optional field and a wrong qty, then formatOutcome of its InvalidArguments.",
      "The depth scan is textNestedDeeper over a valid Messages-shaped body: what readJson adds before JSON.parse.",
    ],
  };
};

export const benchmark: Benchmark = { name: "badArguments", run };
