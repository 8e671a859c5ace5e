/**
 * Scripts of code mode's model responses: a step that runs Claude's code in
 * the code execution sandbox, the calls it makes back to the app's tools,
 * and its end, built as the other scripted replies (script.ts).
 */
import type { ScriptedReply, ScriptedToolCall } from "./script.ts";
/**
 * The code execution tool the scripts name, as code mode sends it by default.
 *
 * @example
 * ```ts
 * const codeOffered = turn.requests[0]?.tools?.some((tool) => tool.type === CODE_TOOL);
 * ```
 */
export const CODE_TOOL = "code_execution_20260120";

/** Where a scripted code execution runs: its `srvtoolu_…` id and its container. */
export interface CodeRunScript {
  /** The `server_tool_use` id; `srvtoolu_1` unless given. */
  readonly toolId?: string;
  /** The container, sent on the message (and in `message_delta`); `container_1` unless given. */
  readonly container?: string;
  /** The code execution tool's type in each call's `caller`; `code_execution_20260120` unless given. */
  readonly codeTool?: string;
}

const containerOf = (run: CodeRunScript) => ({
  id: run.container ?? "container_1",
  expiresAt: "2026-12-29T00:00:00Z",
});

const fromCode = (
  calls: ReadonlyArray<Pick<ScriptedToolCall, "name" | "input" | "id">>,
  run: CodeRunScript,
): ReadonlyArray<ScriptedToolCall> =>
  calls.map((call) => ({
    ...call,
    caller: { type: run.codeTool ?? CODE_TOOL, tool_id: run.toolId ?? "srvtoolu_1" },
  }));

/**
 * Claude starts code in the sandbox and it pauses at its first calls for the
 * app: a `server_tool_use` with the code, `tool_use` blocks whose caller is
 * the code, the container on the message; stop reason `tool_use`.
 *
 * @example
 * ```ts
 * const script = [
 *   codeRuns("for (const id of ids) await invoices_show({ id })", [{ name: "invoices_show", input: { id: 1 } }]),
 *   codeCalls([{ name: "invoices_show", input: { id: 2 } }]),
 *   codeFinished({ stdout: "2 invoices" }, "Both are paid."),
 * ];
 * ```
 */
export const codeRuns = (
  code: string,
  calls: ReadonlyArray<Pick<ScriptedToolCall, "name" | "input" | "id">>,
  run: CodeRunScript & {
    readonly text?: string;
    /** Streamed: where `JSON.stringify({ code })` is cut as the code is written (see `blockSplitAt`). */
    readonly splitAt?: ReadonlyArray<number>;
  } = {},
): ScriptedReply => ({
  ...(run.text === undefined ? {} : { text: run.text }),
  ...(run.splitAt === undefined ? {} : { blockSplitAt: run.splitAt }),
  blocks: [
    {
      type: "server_tool_use",
      id: run.toolId ?? "srvtoolu_1",
      name: "code_execution",
      input: { code },
    },
  ],
  toolCalls: fromCode(calls, run),
  stopReason: "tool_use",
  container: containerOf(run),
});

/**
 * The code goes on: more calls from code, `tool_use` blocks only, 0 tokens.
 *
 * @example
 * ```ts
 * const script = [
 *   codeRuns("for (const id of [1, 2]) await invoices_show({ id })", [{ name: "invoices_show", input: { id: 1 } }]),
 *   codeCalls([{ name: "invoices_show", input: { id: 2 } }]),
 *   codeFinished({ stdout: "2 invoices" }, "Both are paid."),
 * ];
 * ```
 */
export const codeCalls = (
  calls: ReadonlyArray<Pick<ScriptedToolCall, "name" | "input" | "id">>,
  run: CodeRunScript = {},
): ScriptedReply => ({
  toolCalls: fromCode(calls, run),
  stopReason: "tool_use",
  usage: { inputTokens: 0, outputTokens: 0 },
  container: containerOf(run),
});

/**
 * The code ends: the answer's text and a `code_execution_tool_result` with
 * what it printed (a script sends text before other blocks), and `end_turn`.
 *
 * @example
 * ```ts
 * const model = fakeModel([
 *   codeRuns("console.log((await customers_index({})).length)", [{ name: "customers_index", input: {} }]),
 *   codeFinished({ stdout: "42\n" }, "You have 42 customers."),
 * ]);
 * ```
 */
export const codeFinished = (
  result: { readonly stdout?: string; readonly stderr?: string; readonly returnCode?: number },
  text: string,
  run: CodeRunScript = {},
): ScriptedReply => ({
  blocks: [
    {
      type: "code_execution_tool_result",
      tool_use_id: run.toolId ?? "srvtoolu_1",
      content: {
        type: "code_execution_result",
        stdout: result.stdout ?? "",
        stderr: result.stderr ?? "",
        return_code: result.returnCode ?? 0,
        content: [],
      },
    },
  ],
  text,
  stopReason: "end_turn",
  container: containerOf(run),
});
