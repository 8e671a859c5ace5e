/**
 * The figures the docs quote are the constants in code: the body limits,
 * the bounds, the timeouts, the caps and the defaults. Each constant is
 * imported from the module that uses it; each place a doc quotes it is a
 * fragment of that doc's text with `{N}` where the figure stands. Every
 * fragment must be found (a reworded sentence fails, and is written here
 * again), and every figure found must equal the constant: changing either
 * the constant or the doc fails this spec.
 *
 * A figure is read as people write it: `4 096`, `200,000`, `300000`,
 * `60 s`, `5 minutes`, `3 min 30 s`, `64 KB` (KB and KiB both 1 024 bytes,
 * as MB and MiB are 1 024 KB), `4 Mi` (characters).
 */
import { describe, expect, it } from "vitest";
import {
  IDLE_WINDOW_MS,
  MAX_RESTARTS,
  MAX_TOKENS_PER_STEP,
  MAX_WINDOWS,
  RESTART_WINDOW_MS,
} from "../../src/actors/host/host.ts";
import { FEED_PAGE, FEED_PAGE_BYTES } from "../../src/actors/log/feed.ts";
import { MAX_BEHIND } from "../../src/actors/log/follow.ts";
import { USAGE_PAGE } from "../../src/actors/log/userUsage.ts";
import { MAX_LIVE_QUERIES } from "../../src/actors/support/liveQueries.ts";
import { MAX_NAME } from "../../src/actors/turn/toolRunner.ts";
import { MAX_ARGS_TEXT } from "../../src/adapters/mcp/elicitationConfirmer.ts";
import {
  MCP_MAX_MESSAGE_BYTES,
  MCP_MAX_MESSAGE_VALUES,
  MCP_SESSION_IDLE_MS,
  MCP_SESSIONS_MAX,
  MCP_SESSIONS_PER_USER,
} from "../../src/adapters/mcp/limits.ts";
import { IDLE_TIMEOUT_MS } from "../../src/adapters/model/anthropic.ts";
import { DRAIN_MS, MAX_STREAMED_INPUT_CHARS } from "../../src/adapters/model/anthropicStream.ts";
import { BUDGET_FLOOR_TOKENS } from "../../src/adapters/proxy/budget.ts";
import { PROXY_MAX_BODY_BYTES, PROXY_TIMEOUT_MS } from "../../src/adapters/proxy/createProxy.ts";
import { DEFAULT_PROXY_RATE_LIMIT } from "../../src/adapters/proxy/limit.ts";
import {
  FIRST_RETRY_MS,
  LAST_RETRY_MS,
  MAX_PAYLOAD_BYTES,
} from "../../src/adapters/store/postgres/changes.ts";
import { HEARTBEAT_MS, LEASE_MS, MESSAGE_TTL } from "../../src/adapters/store/postgres/leases.ts";
import { CONNECT_TIMEOUT_MS } from "../../src/adapters/store/postgres/options.ts";
import { MAX_TABLE } from "../../src/adapters/store/postgres/schema.ts";
import { BUSY_TIMEOUT_MS } from "../../src/adapters/store/sqlite/store.ts";
import { DEFAULT_BACKOFF } from "../../src/adapters/ui/eventStream.ts";
import { DEFAULT_MAX_LABEL } from "../../src/adapters/ui/palette.ts";
import { MAX_BUFFERED_BYTES } from "../../src/adapters/web/sse.ts";
import { MAX_BODY_BYTES } from "../../src/adapters/web/wire.ts";
import { SHOWN } from "../../src/cli/scanKeys.ts";
import { COALESCE_MS } from "../../src/machines/coalescerMachine.ts";
import { CONFIRM_TIMEOUT_MS } from "../../src/runtime/calls/confirmer.ts";
import {
  DEFAULT_MAX_STEPS,
  DEFAULT_TOKEN_BUDGET,
  DEFAULT_TOOL_SEARCH_ABOVE_TOKENS,
  DEFAULT_TOOL_SEARCH_ABOVE_TOOLS,
} from "../../src/runtime/commands/app.ts";
import {
  CONFIRM_LABEL_TIMEOUT_MS,
  MAX_ACTION,
  MAX_CONFIRM_LABEL,
} from "../../src/runtime/commands/confirmation.ts";
import { MAX_EXAMPLE_BYTES, MAX_EXAMPLES } from "../../src/runtime/commands/examples.ts";
import { MAX_ISSUES, MAX_LINE } from "../../src/runtime/commands/issues.ts";
import {
  STRICT_OPTIONAL_PARAMETERS,
  STRICT_TOOLS_PER_REQUEST,
  STRICT_UNION_PARAMETERS,
} from "../../src/runtime/commands/strictSchema.ts";
import { MAX_JSON_DEPTH } from "../../src/runtime/json.ts";
import {
  HEARTBEAT_MS as MEMORY_HEARTBEAT_MS,
  LEASE_MS as MEMORY_LEASE_MS,
} from "../../src/runtime/log/memoryLeases.ts";
import { CODE_CALL_DEADLINE_MS, MAX_CODE_CALLS } from "../../src/runtime/prompt/limits.ts";
import { MAX_EXPLANATION } from "../../src/runtime/prompt/model.ts";
import { NOTE_BOUNDS } from "../../src/runtime/prompt/windowNote.ts";
import { SPENDING_TURNS_KEPT } from "../../src/runtime/usage/spending.ts";
import {
  CHECK_MAX_BURST,
  CHECK_MAX_STEPS,
  CHECK_NUM_RUNS,
} from "../../src/testing/checkCallPath.ts";
import { STAND_IN_CONTEXT_WINDOW } from "../../src/testing/standInMessagesApi.ts";
import { MAX_PATTERN_CHARS } from "../../src/testing/standInToolSearch.ts";
import { docFiles, readDoc } from "./markdown.ts";

/** A figure and its unit, as the docs write them. */
const FIGURE = String.raw`(\d+ min \d+ s|(?:\d{1,3}(?:[ \u00a0\u202f,_]\d{3})+|\d+)(?:\.\d+)?(?:[\s-]?(?:ms|seconds?|s|minutes?|min|hours?|KiB|KB|MiB|MB|Mi)\b)?)`;
/** A bare figure, its unit written after other words (`30 idle minutes`). */
const BARE = String.raw`(\d{1,3}(?:[ \u00a0\u202f,_]\d{3})+|\d+)`;

const UNITS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  second: 1_000,
  seconds: 1_000,
  min: 60_000,
  minute: 60_000,
  minutes: 60_000,
  hour: 3_600_000,
  hours: 3_600_000,
  KB: 1024,
  KiB: 1024,
  MB: 1024 ** 2,
  MiB: 1024 ** 2,
  Mi: 1024 ** 2,
};

/** A figure's value: ms for a time, bytes for a size, else the number (times 1 Mi for `Mi`). */
const figureValue = (figure: string): number => {
  const minSec = /^(\d+) min (\d+) s$/.exec(figure);
  if (minSec !== null) return Number(minSec[1]) * 60_000 + Number(minSec[2]) * 1_000;
  const m = /^([\d \u00a0\u202f,_.]+?)[\s-]?([A-Za-z]+)?$/.exec(figure);
  if (m === null) throw new Error(`not a figure: ${figure}`);
  const number = Number((m[1] as string).replace(/[ \u00a0\u202f,_]/g, ""));
  const unit = m[2];
  if (unit === undefined) return number;
  const scale = UNITS[unit];
  if (scale === undefined) throw new Error(`no such unit: ${unit} in ${figure}`);
  return number * scale;
};

/**
 * A doc's fragment as a pattern: `{N}` where the figure stands (`{N:minutes}`
 * for a bare figure whose unit comes after other words), white space
 * matching any white space (a line break included).
 */
const patternOf = (fragment: string): { readonly pattern: RegExp; readonly unit?: string } => {
  const m = /^([\s\S]*?)\{N(?::(\w+))?\}([\s\S]*)$/.exec(fragment);
  if (m === null) throw new Error(`no {N} in ${fragment}`);
  const [, before, unit, after] = m as unknown as [string, string, string | undefined, string];
  const literal = (text: string) =>
    text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\s+/g, String.raw`\s+`);
  const figure = unit === undefined ? FIGURE : BARE;
  const pattern = new RegExp(`${literal(before)}${figure}${literal(after)}`, "g");
  return unit === undefined ? { pattern } : { pattern, unit };
};

interface Quote {
  readonly file: string;
  readonly fragment: string;
}

interface Claim {
  /** The constant, as the code names it. */
  readonly constant: string;
  /** Its value in the figure's unit: ms for a time, bytes for a size. */
  readonly value: number;
  readonly quotes: ReadonlyArray<Quote>;
}

const at =
  (file: string) =>
  (...fragments: ReadonlyArray<string>): ReadonlyArray<Quote> =>
    fragments.map((fragment) => ({ file, fragment }));
const architecture = at("docs/architecture.md");
/** A decision record by its letter: the docs/decisions/ file whose heading is `# (letter) …`. */
const decision = (letter: string) => {
  const file = docFiles().find(
    (f) => f.startsWith("docs/decisions/") && readDoc(f).startsWith(`# (${letter}) `),
  );
  if (file === undefined) throw new Error(`no decision record (${letter}) in docs/decisions/`);
  return at(file);
};
const assistant = at("docs/assistant.md");
const backend = at("docs/backend.md");
const codeMode = at("docs/code-mode.md");
const commands = at("docs/commands.md");
const crm = at("examples/crm/README.md");
const mcp = at("docs/mcp.md");
const privacy = at("docs/privacy.md");
const scaling = at("docs/scaling.md");
const streaming = at("docs/streaming.md");
const testing = at("docs/testing.md");
const tooling = at("docs/tooling.md");
const ui = at("docs/ui.md");
const tokens = at("docs/tokens.md");
const changelog = at("CHANGELOG.md");
const windowContext = at("docs/window-context.md");

const claims: ReadonlyArray<Claim> = [
  {
    constant: "MAX_BODY_BYTES",
    value: MAX_BODY_BYTES,
    quotes: [
      ...ui(
        "at most {N} (`MAX_BODY_BYTES`",
        "| a request body | {N} (`MAX_BODY_BYTES`",
        "(a body over {N})",
      ),
      ...architecture("A route's body is at most {N}"),
      ...decision("aj")("a body may be {N}, NOTIFY"),
      ...backend("reads the JSON body itself (at most {N},", "the handler's {N}"),
    ],
  },
  {
    constant: "PROXY_MAX_BODY_BYTES (createProxy's maxBodyBytes)",
    value: PROXY_MAX_BODY_BYTES,
    quotes: [
      ...backend("| `maxBodyBytes` | {N} |", "bodies {N} (`maxBodyBytes`)"),
      ...architecture("the proxy's {N} (`maxBodyBytes`)"),
    ],
  },
  {
    constant: "PROXY_TIMEOUT_MS (createProxy's timeoutMs)",
    value: PROXY_TIMEOUT_MS,
    quotes: [...backend("| `timeoutMs` | `{N}` |", "`clock.increment({N})` cuts a stalled stream")],
  },
  {
    constant: "MAX_JSON_DEPTH",
    value: MAX_JSON_DEPTH,
    quotes: [
      ...ui("JSON nested at most {N} levels"),
      ...backend("JSON {N} levels deep"),
      ...architecture("JSON nests at most {N}"),
      ...decision("aa")("JSON nests at most {N}"),
      ...at("docs/decisions/README.md")("JSON nests at most {N}"),
    ],
  },
  {
    constant: "MAX_BUFFERED_BYTES (a live query's unread frames)",
    value: MAX_BUFFERED_BYTES,
    quotes: [
      ...ui(
        "more than {N} of its frames wait unread",
        "| a live query stream | {N} of unread frames",
      ),
      ...decision("ag")("a buffer cut at {N} of unread frames"),
    ],
  },
  {
    constant: "MAX_LIVE_QUERIES",
    value: MAX_LIVE_QUERIES,
    quotes: [...ui("| live queries | {N} per window")],
  },
  {
    constant: "MAX_BEHIND (maxEventsBehind)",
    value: MAX_BEHIND,
    quotes: [
      ...ui("`maxEventsBehind` ({N},", "`maxEventsBehind` ({N}) new events"),
      ...backend("`maxEventsBehind` ({N}) new events"),
      ...decision("ag")("up to `maxEventsBehind` ({N});"),
    ],
  },
  {
    constant: "FEED_PAGE (a page of the stored log, at most)",
    value: FEED_PAGE,
    quotes: [...ui("{N} at most), only as"), ...decision("ag")("first, at most {N} events,")],
  },
  {
    constant: "FEED_PAGE_BYTES (a page of the stored log, in KB)",
    value: FEED_PAGE_BYTES / 1024,
    quotes: [
      ...ui("a page of\nabout {N} KB at a time", "one page of the stored log (about {N} KB)"),
      ...decision("ag")("log (about {N} KB:"),
    ],
  },
  {
    constant: "IDLE_WINDOW_MS (idleWindowMs)",
    value: IDLE_WINDOW_MS,
    quotes: [...ui("`idleWindowMs` ({N})"), ...backend("`idleWindowMs` ({N})")],
  },
  {
    constant: "MAX_WINDOWS (maxWindows)",
    value: MAX_WINDOWS,
    quotes: [...ui("`maxWindows` ({N})"), ...backend("`maxWindows` ({N})")],
  },
  {
    constant: "MAX_RESTARTS (maxRestarts)",
    value: MAX_RESTARTS,
    quotes: [
      ...architecture("`maxRestarts` ({N}) crashes"),
      ...ui("crashes more than {N} times in"),
      ...assistant("| `maxRestarts` | `{N}`"),
    ],
  },
  {
    constant: "RESTART_WINDOW_MS (restartWindowMs)",
    value: RESTART_WINDOW_MS,
    quotes: [
      ...architecture("`restartWindowMs` ({N})"),
      ...assistant(
        "`restartWindowMs` ({N}) and the window gives up",
        "| `restartWindowMs` | `{N}`",
      ),
      ...ui("more than 3 times in {N} is"),
    ],
  },
  {
    constant: "MAX_TOKENS_PER_STEP (maxTokensPerStep)",
    value: MAX_TOKENS_PER_STEP,
    quotes: [
      ...decision("al")("(`maxTokensPerStep`, {N} by default"),
      ...assistant(
        "| `maxTokensPerStep` | `{N}`",
        "the host's `maxTokensPerStep` ({N})",
        "toBe({N})",
      ),
      ...streaming("`maxTokensPerStep` ({N})"),
    ],
  },
  {
    constant: "DEFAULT_MAX_STEPS (assistant.maxSteps)",
    value: DEFAULT_MAX_STEPS,
    quotes: [
      ...assistant("| `maxSteps` | `{N}`", "**`maxSteps`** ({N})"),
      ...commands("| `maxSteps` | `{N}`"),
      ...codeMode("against `maxSteps` ({N})"),
    ],
  },
  {
    constant: "DEFAULT_TOKEN_BUDGET (assistant.maxTokensPerConversation)",
    value: DEFAULT_TOKEN_BUDGET,
    quotes: [
      ...assistant("**`maxTokensPerConversation`** ({N})", "its budget of {N} tokens"),
      ...commands("| `maxTokensPerConversation` | `{N}`"),
    ],
  },
  {
    constant: "DEFAULT_TOOL_SEARCH_ABOVE_TOOLS (assistant.toolSearchAboveTools)",
    value: DEFAULT_TOOL_SEARCH_ABOVE_TOOLS,
    quotes: [
      ...assistant("| `toolSearchAboveTools` | `{N}`", "than `toolSearchAboveTools` ({N}) tools"),
      ...commands("| `toolSearchAboveTools` | `{N}`"),
    ],
  },
  {
    constant: "DEFAULT_TOOL_SEARCH_ABOVE_TOKENS (assistant.toolSearchAboveTokens)",
    value: DEFAULT_TOOL_SEARCH_ABOVE_TOKENS,
    quotes: [
      ...assistant("| `toolSearchAboveTokens` | `{N}`", "over `toolSearchAboveTokens` ({N})"),
      ...commands("| `toolSearchAboveTokens` | `{N}`"),
    ],
  },
  {
    constant: "MAX_PATTERN_CHARS (the stand-in's regex tool search)",
    value: MAX_PATTERN_CHARS,
    quotes: [...assistant("a case-insensitive pattern of at most {N} characters")],
  },
  {
    constant: "USAGE_PAGE (host.usage reads a log a page at a time)",
    value: USAGE_PAGE,
    quotes: [...tokens("logs, a page of {N} events at a time")],
  },
  {
    constant: "SPENDING_TURNS_KEPT (the spending fold's last turns)",
    value: SPENDING_TURNS_KEPT,
    quotes: [...tokens("way, its last {N} turns one by one too")],
  },
  {
    constant: "STAND_IN_CONTEXT_WINDOW (the stand-in's context window)",
    value: STAND_IN_CONTEXT_WINDOW,
    quotes: [...changelog("(`contextWindow`, {N} unless given)")],
  },
  {
    constant: "CONFIRM_TIMEOUT_MS (confirmTimeoutMs)",
    value: CONFIRM_TIMEOUT_MS,
    quotes: [
      ...commands(
        "| `confirmTimeoutMs` | `{N}` (`CONFIRM_TIMEOUT_MS`",
        "(`CONFIRM_TIMEOUT_MS`, {N})",
        "at most `confirmTimeoutMs` ({N})",
        "call waits up to {N}.",
      ),
      ...mcp("| `confirmTimeoutMs` | {N} |", "`confirmTimeoutMs` ({N}) is a no"),
      ...assistant("times out after {N} on", "the {N} confirmation", "The {N} confirmation runs"),
      ...architecture(
        "wait up to {N} -> NotConfirmed",
        "the delay `timeout` ({N})",
        "holding the {N}",
      ),
      ...decision("j")("machine decides at {N};"),
      ...decision("am")("a question may wait {N},"),
      ...ui("`no answer in {N}`"),
    ],
  },
  {
    constant: "CONFIRM_LABEL_TIMEOUT_MS",
    value: CONFIRM_LABEL_TIMEOUT_MS,
    quotes: [
      ...commands("takes more than {N} (`CONFIRM_LABEL_TIMEOUT_MS`"),
      ...decision("am")("bounded by {N} on the call path's clock"),
    ],
  },
  {
    constant: "MAX_CONFIRM_LABEL",
    value: MAX_CONFIRM_LABEL,
    quotes: [...commands("it is cut to {N} characters with `…`")],
  },
  {
    constant: "MAX_ACTION (confirmAction)",
    value: MAX_ACTION,
    quotes: [...commands("The accept button's word, 1 to {N} characters")],
  },
  {
    constant: "MAX_EXAMPLES",
    value: MAX_EXAMPLES,
    quotes: [
      ...commands(
        "written as JSON: at most {N}, each checked",
        "| more than {N} examples, or one over",
        "A command has at most {N} examples",
      ),
    ],
  },
  {
    constant: "MAX_EXAMPLE_BYTES",
    value: MAX_EXAMPLE_BYTES,
    quotes: [
      ...commands("or one over {N} bytes of JSON", "each at most {N} bytes of JSON: they are"),
    ],
  },
  {
    constant: "STRICT_TOOLS_PER_REQUEST",
    value: STRICT_TOOLS_PER_REQUEST,
    quotes: [...commands("at most {N} strict tools,")],
  },
  {
    constant: "STRICT_OPTIONAL_PARAMETERS",
    value: STRICT_OPTIONAL_PARAMETERS,
    quotes: [...commands("{N} optional parameters (properties not in `required`)")],
  },
  {
    constant: "STRICT_UNION_PARAMETERS",
    value: STRICT_UNION_PARAMETERS,
    quotes: [...commands("and {N} parameters with a union type")],
  },
  {
    constant: "MAX_ISSUES",
    value: MAX_ISSUES,
    quotes: [
      ...commands("At most {N} lines, then", "message as lines, at most {N}, each"),
      ...ui("one linear pass that stops after {N} issues"),
      ...privacy("(up to {N} lines of"),
    ],
  },
  {
    constant: "MAX_LINE (an issue's line)",
    value: MAX_LINE,
    quotes: [
      ...commands("each line at most {N} characters", "at most 20, each at most {N} characters"),
      ...privacy("up to 20 lines of {N} characters"),
    ],
  },
  {
    constant: "MAX_ARGS_TEXT (MCP's elicitation message)",
    value: MAX_ARGS_TEXT,
    quotes: [
      ...mcp("decoded arguments (cut at {N} characters)"),
      ...privacy("decoded arguments (up to {N} characters)"),
    ],
  },
  {
    constant: "MAX_NAME (a tool name in the log)",
    value: MAX_NAME,
    quotes: [...decision("i")("reaches the log (cut at {N} characters)")],
  },
  {
    constant: "MAX_EXPLANATION (a model error's explanation)",
    value: MAX_EXPLANATION,
    quotes: [...streaming("the explanation cut at {N} characters")],
  },
  {
    constant: "COALESCE_MS",
    value: COALESCE_MS,
    quotes: [
      ...streaming(
        "At most one delta per {N} of gathering",
        "`TextDelta` per {N}, about 20",
        "at most once per {N}, each run of them",
      ),
      ...architecture("the delay `coalesce` ({N})", "coalescer ({N}) -----+"),
      ...codeMode("at most one delta per {N} |"),
      ...ui("(at most one per {N}), until"),
      ...assistant("the {N} gathering of text"),
    ],
  },
  {
    constant: "MAX_CODE_CALLS",
    value: MAX_CODE_CALLS,
    quotes: [
      ...codeMode(
        "**At most {N} calls from code a prompt** (`MAX_CODE_CALLS`)",
        "made more than {N} calls from code",
      ),
      ...architecture("`overCap` past {N} calls from code"),
    ],
  },
  {
    constant: "CODE_CALL_DEADLINE_MS (codeCallDeadlineMs)",
    value: CODE_CALL_DEADLINE_MS,
    quotes: [
      ...codeMode(
        "`CODE_CALL_DEADLINE_MS`, {N} (",
        "did not finish within {N}; it may still complete, so check before trying it again ```",
      ),
      ...architecture("`deadline` delay ({N}, under"),
    ],
  },
  {
    constant: "MAX_STREAMED_INPUT_CHARS",
    value: MAX_STREAMED_INPUT_CHARS,
    quotes: [
      ...decision("al")("`MAX_STREAMED_INPUT_CHARS` ({N} characters"),
      ...architecture("at most {N} chars"),
      ...codeMode("an input past {N} characters"),
      ...streaming("past {N} characters, or a block"),
    ],
  },
  {
    constant: "IDLE_TIMEOUT_MS (anthropic()'s idleTimeoutMs)",
    value: IDLE_TIMEOUT_MS,
    quotes: [
      ...streaming(
        "| `idleTimeoutMs` | `{N}` |",
        "no event for `idleTimeoutMs` ({N})",
        "no event from the stream for {N} ms`",
      ),
    ],
  },
  {
    constant: "DRAIN_MS (a body's end after message_stop)",
    value: DRAIN_MS,
    quotes: [...streaming("cut off after {N}.", "leaving after {N}.")],
  },
  {
    constant: "BUSY_TIMEOUT_MS (sqliteStore's busyTimeoutMs)",
    value: BUSY_TIMEOUT_MS,
    quotes: [
      ...architecture("waits `busyTimeoutMs` ({N}, time"),
      ...decision("ad")("waits up to `busyTimeoutMs` ({N})"),
      ...backend("waiting `busyTimeoutMs` ({N}, time", "waits `busyTimeoutMs` ({N}, for"),
    ],
  },
  {
    constant: "CONNECT_TIMEOUT_MS (postgresStore's connectTimeoutMs)",
    value: CONNECT_TIMEOUT_MS,
    quotes: [...assistant("`connectTimeoutMs`, default {N},")],
  },
  {
    constant: "LEASE_MS (postgresStore's leaseMs)",
    value: LEASE_MS,
    quotes: [
      ...architecture("`leaseMs` ({N}) and `heartbeatMs`"),
      ...decision("aj")("`clock_timestamp() + leaseMs`, {N}:"),
      ...scaling("and `leaseMs` ({N})", "With the default {N}, expect"),
      ...backend("a lease (`leaseMs`, {N})"),
      ...crm("once its lease lapses ({N})"),
    ],
  },
  {
    constant: "HEARTBEAT_MS (postgresStore's heartbeatMs)",
    value: HEARTBEAT_MS,
    quotes: [
      ...architecture("and `heartbeatMs` ({N}) set"),
      ...decision("aj")("(every `heartbeatMs`, {N}, it sets"),
    ],
  },
  {
    constant: "MESSAGE_TTL (messages between hosts)",
    value: figureValue(MESSAGE_TTL),
    quotes: [...decision("aj")("rows older than {N} are")],
  },
  {
    constant: "FIRST_RETRY_MS (the LISTEN connection made again)",
    value: FIRST_RETRY_MS,
    quotes: [...decision("ai")("made again after {N},", "and back to {N} once it listens")],
  },
  {
    constant: "LAST_RETRY_MS",
    value: LAST_RETRY_MS,
    quotes: [...decision("ai")("doubling to {N} and back")],
  },
  {
    constant: "MAX_PAYLOAD_BYTES (a NOTIFY payload)",
    value: MAX_PAYLOAD_BYTES,
    quotes: [...decision("ai")("at most {N} bytes of UTF-8")],
  },
  {
    constant: "MAX_TABLE (postgresStore's table name)",
    value: MAX_TABLE,
    quotes: [
      ...architecture("a table name has at most {N} characters"),
      ...scaling("may then have at most {N} characters"),
    ],
  },
  {
    constant: "MCP_SESSION_IDLE_MS (idleTimeoutMs)",
    value: MCP_SESSION_IDLE_MS,
    quotes: [
      ...mcp("| `idleTimeoutMs` | {N} |", "old sessions expire, {N} later"),
      ...backend("each ended after {N} idle"),
      ...decision("ac")("for up to {N:minutes} idle minutes"),
    ],
  },
  {
    constant: "MCP_SESSIONS_PER_USER (maxSessionsPerUser)",
    value: MCP_SESSIONS_PER_USER,
    quotes: [
      ...mcp("| `maxSessionsPerUser` | {N} |"),
      ...backend("| MCP over HTTP | {N} sessions per user"),
    ],
  },
  {
    constant: "MCP_MAX_MESSAGE_BYTES (maxMessageBytes)",
    value: MCP_MAX_MESSAGE_BYTES,
    quotes: [
      ...mcp(
        "| `maxMessageBytes` | {N} |",
        "at most `maxMessageBytes` bytes ({N} unless given)",
        "may be at most {N}.",
      ),
    ],
  },
  {
    constant: "MCP_MAX_MESSAGE_VALUES (maxMessageValues)",
    value: MCP_MAX_MESSAGE_VALUES,
    quotes: [
      ...mcp(
        "| `maxMessageValues` | {N} |",
        "at most `maxMessageValues` values ({N} unless given)",
        "may hold at most {N} (each list item",
      ),
    ],
  },
  {
    constant: "MCP_SESSIONS_MAX (maxSessions)",
    value: MCP_SESSIONS_MAX,
    quotes: [
      ...mcp("| `maxSessions` | {N} |", "`maxSessions` ({N}) in all"),
      ...backend("16 sessions per user and {N} in all"),
    ],
  },
  {
    constant: "DEFAULT_PROXY_RATE_LIMIT.calls",
    value: DEFAULT_PROXY_RATE_LIMIT.calls,
    quotes: [
      ...backend(
        "| `rateLimit` | `{ calls: {N}, perSeconds: 60 }`",
        "each user may send {N} requests in any",
        "`rateLimit`: {N} requests per user",
        "`rateLimit` ({N} per 60 s unless set)",
      ),
      ...decision("ab")("`rateLimit` defaults to {N} requests per user"),
    ],
  },
  {
    constant: "DEFAULT_PROXY_RATE_LIMIT.perSeconds (in ms)",
    value: DEFAULT_PROXY_RATE_LIMIT.perSeconds * 1000,
    quotes: [
      ...backend(
        "| `rateLimit` | `{ calls: 60, perSeconds: {N:s} }`",
        "60 requests in any {N} (a turn",
        "60 requests per user per {N} unless set",
        "(60 per {N} unless set)",
      ),
      ...decision("ab")("60 requests per user in any {N} (a"),
    ],
  },
  {
    constant: "BUDGET_FLOOR_TOKENS",
    value: BUDGET_FLOOR_TOKENS,
    quotes: [...backend("A short answer is {N} tokens (`BUDGET_FLOOR_TOKENS`)")],
  },
  {
    constant: "DEFAULT_BACKOFF.firstMs",
    value: DEFAULT_BACKOFF.firstMs,
    quotes: [...ui("`{ firstMs: {N}, maxMs", "a dropped stream again: {N}, 1 s")],
  },
  {
    constant: "DEFAULT_BACKOFF.maxMs",
    value: DEFAULT_BACKOFF.maxMs,
    quotes: [...ui("maxMs: {N} }`", "2 s, 4 s, {N}, 5 s, …")],
  },
  {
    constant: "DEFAULT_MAX_LABEL (the palette entry's label)",
    value: DEFAULT_MAX_LABEL,
    quotes: [...ui("clipped to {N} characters with `…`")],
  },
  {
    constant: "NOTE_BOUNDS.bytes",
    value: NOTE_BOUNDS.bytes,
    quotes: [
      ...windowContext(
        "`</window>` included | {N} UTF-8 bytes",
        "Past {N} bytes the oldest",
        "≤ {N} bytes a note",
      ),
      ...decision("p")("≤ {N} bytes. The first version"),
    ],
  },
  {
    constant: "NOTE_BOUNDS.route",
    value: NOTE_BOUNDS.route,
    quotes: [
      ...windowContext("| route | {N} characters"),
      ...privacy("`route`), up to {N} characters"),
    ],
  },
  {
    constant: "NOTE_BOUNDS.argumentString",
    value: NOTE_BOUNDS.argumentString,
    quotes: [
      ...windowContext(
        "| each string in a query's arguments | {N} characters",
        "(a string id cut at {N} characters)",
      ),
    ],
  },
  {
    constant: "NOTE_BOUNDS.queries",
    value: NOTE_BOUNDS.queries,
    quotes: [...architecture("the window note at its bounds ({N} queries")],
  },
  {
    constant: "NOTE_BOUNDS.kinds",
    value: NOTE_BOUNDS.kinds,
    quotes: [
      ...windowContext("| selection kinds | {N}, the most"),
      ...architecture("16 queries, {N} full selections"),
    ],
  },
  {
    constant: "NOTE_BOUNDS.kindName",
    value: NOTE_BOUNDS.kindName,
    quotes: [...windowContext("a kind's name {N} characters")],
  },
  {
    constant: "NOTE_BOUNDS.idsPerKind",
    value: NOTE_BOUNDS.idsPerKind,
    quotes: [...windowContext("| ids of a kind | {N} (a string id", "its first {N} ids")],
  },
  {
    constant: "SHOWN (scan-keys: a key's first characters)",
    value: SHOWN,
    quotes: [...tooling("only the key's first {N} characters", "first {N} characters) and")],
  },
  {
    constant: "CHECK_MAX_STEPS (checkCallPath's maxSteps)",
    value: CHECK_MAX_STEPS,
    quotes: [...testing("and up to {N} steps.", "`maxSteps` ({N})")],
  },
  {
    constant: "CHECK_MAX_BURST (checkCallPath's maxBurst)",
    value: CHECK_MAX_BURST,
    quotes: [...testing("`maxBurst` ({N}:")],
  },
  {
    constant: "CHECK_NUM_RUNS (checkCallPath's numRuns)",
    value: CHECK_NUM_RUNS,
    quotes: [...testing("`numRuns` ({N})")],
  },
];

const docs = new Map(docFiles().map((file) => [file, readDoc(file)]));

describe("figures are read as the docs write them", () => {
  it.each([
    ["4 096", 4096],
    ["200,000", 200_000],
    ["`300000`".slice(1, -1), 300_000],
    ["60 s", 60_000],
    ["5 minutes", 300_000],
    ["5-minute", 300_000],
    ["30 min", 1_800_000],
    ["3 min 30 s", 210_000],
    ["64 KB", 65_536],
    ["64 KiB", 65_536],
    ["32 MB", 33_554_432],
    ["4 Mi", 4_194_304],
    ["0.5 s", 500],
  ] as const)("%s is %d", (figure, value) => {
    expect(figureValue(figure)).toBe(value);
  });
});

describe("the figures the docs quote are the constants in code", () => {
  it("memoryStore's lease and heartbeat are postgresStore's (the docs quote one pair)", () => {
    expect([MEMORY_LEASE_MS, MEMORY_HEARTBEAT_MS]).toEqual([LEASE_MS, HEARTBEAT_MS]);
  });

  it.each(claims.filter((claim) => claim.quotes.length > 0))(
    "$constant",
    ({ constant, value, quotes }) => {
      const wrong: string[] = [];
      for (const { file, fragment } of quotes) {
        const text = docs.get(file);
        if (text === undefined) throw new Error(`${file} is not a doc`);
        const { pattern, unit } = patternOf(fragment);
        const found = [...text.matchAll(pattern)];
        if (found.length === 0) wrong.push(`${file}: "${fragment}" not found`);
        for (const match of found) {
          const figure = unit === undefined ? (match[1] as string) : `${match[1]} ${unit}`;
          if (figureValue(figure) !== value) {
            const line = text.slice(0, match.index).split("\n").length;
            wrong.push(`${file}:${line}: "${figure}" where ${constant} is ${value}`);
          }
        }
      }
      expect(wrong).toEqual([]);
    },
  );
});
