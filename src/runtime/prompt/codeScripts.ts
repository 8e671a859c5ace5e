/**
 * Code mode as the Messages API writes it: which `tool_use` blocks a response
 * asks for and which of them come from code running in Anthropic's sandbox,
 * and the scripts a response starts (`server_tool_use`) and ends
 * (`code_execution_tool_result`), as log events. Plain functions over the
 * wire's blocks, so the conversation machine reads no wire shape itself.
 */
import { Predicate } from "effect";
import type { UnstampedEvent } from "../log/events.ts";
import type { ContentBlock, ModelResponse, ToolUseBlock } from "./model.ts";

/** The `tool_use` blocks of a response, in order; none without a response. */
export const toolCallsOf = (response: ModelResponse | null): ReadonlyArray<ToolUseBlock> =>
  (response?.content ?? []).filter((b): b is ToolUseBlock => b.type === "tool_use");

/** Whether a call comes from code running in the code execution sandbox. */
export const fromCode = (call: ToolUseBlock): boolean =>
  call.caller !== undefined && call.caller.type !== "direct";

/** The code execution (`srvtoolu_…`) that made a call from code. */
export const scriptOf = (call: ToolUseBlock): string => call.caller?.tool_id ?? "";

/** A field of a wire value, when it is an object that has it. */
const fieldOf = (value: unknown, key: string): unknown =>
  Predicate.hasProperty(value, key) ? value[key] : undefined;

/** A script's output as the panel shows it: stdout, then stderr, then a failing return code. */
export const scriptOutput = (content: unknown): string => {
  const stdout = fieldOf(content, "stdout");
  const stderr = fieldOf(content, "stderr");
  const returnCode = fieldOf(content, "return_code");
  const errorCode = fieldOf(content, "error_code");
  const parts: string[] = [];
  if (typeof stdout === "string" && stdout !== "") parts.push(stdout);
  if (typeof stderr === "string" && stderr !== "") parts.push(stderr);
  if (typeof returnCode === "number" && returnCode !== 0) parts.push(`(exit code ${returnCode})`);
  if (parts.length === 0 && typeof errorCode === "string") parts.push(`(error: ${errorCode})`);
  return parts.join("\n");
};

/** How many calls each script made: `counts` plus one per call from code, keyed by script id. */
export const countScriptCalls = (
  counts: Readonly<Record<string, number>>,
  calls: ReadonlyArray<ToolUseBlock>,
): Record<string, number> => {
  // Keyed by ids from the response: a null prototype, so no id reads Object's members.
  const out: Record<string, number> = Object.assign(Object.create(null), counts);
  for (const call of calls.filter(fromCode)) {
    const id = scriptOf(call);
    out[id] = (Object.hasOwn(out, id) ? (out[id] ?? 0) : 0) + 1;
  }
  return out;
};

/**
 * The scripts a response's blocks start (`server_tool_use` of `code_execution`)
 * and end (`…code_execution_tool_result`), as log events of turn `turn`;
 * `scriptCalls` counts the calls each script made.
 */
export const scriptEvents = (
  content: ReadonlyArray<ContentBlock>,
  turn: number,
  scriptCalls: Readonly<Record<string, number>>,
): ReadonlyArray<UnstampedEvent> => {
  const events: UnstampedEvent[] = [];
  for (const block of content) {
    if (block.type === "server_tool_use" && fieldOf(block, "name") === "code_execution") {
      const code = fieldOf(fieldOf(block, "input"), "code");
      events.push({
        _tag: "ScriptStarted",
        turn,
        toolId: String(fieldOf(block, "id") ?? ""),
        code: typeof code === "string" ? code : "",
      });
    } else if (block.type.endsWith("code_execution_tool_result")) {
      const toolId = String(fieldOf(block, "tool_use_id") ?? "");
      events.push({
        _tag: "ScriptFinished",
        turn,
        toolId,
        output: scriptOutput(fieldOf(block, "content")),
        calls: Object.hasOwn(scriptCalls, toolId) ? (scriptCalls[toolId] ?? 0) : 0,
      });
    }
  }
  return events;
};
