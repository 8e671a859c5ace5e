/**
 * The log's events of code mode: Claude's code as it is written, run and
 * finished in Anthropic's code execution sandbox (part of the log's
 * vocabulary, `LogEvent`, with the others of events.ts).
 */
import { Schema } from "effect";
import { base, Int } from "./eventBase.ts";

/**
 * Claude's code started in the code execution sandbox: `toolId` is its `server_tool_use` id.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * if (Schema.is(ScriptStarted)(e)) codeElement.textContent = e.code;
 * ```
 */
export const ScriptStarted = Schema.TaggedStruct("ScriptStarted", {
  ...base,
  toolId: Schema.String,
  code: Schema.String,
});
/**
 * Code mode, streamed: Claude began writing the code of code execution
 * `toolId` (its block started). Its code follows in `ScriptCodeDelta`s, then
 * whole in `ScriptStarted` once the step ends.
 *
 * @example
 * ```ts
 * const writing = ScriptWriting.make({ seq: 12, at: Date.now(), turn: 4, toolId: "srvtoolu_01" });
 * ```
 */
export const ScriptWriting = Schema.TaggedStruct("ScriptWriting", {
  ...base,
  toolId: Schema.String,
});
/**
 * More of the code of `toolId` as it is written, gathered like text (at most one per 50 ms). For display only.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const code = events.filter(Schema.is(ScriptCodeDelta)).map((e) => e.code).join("");
 * ```
 */
export const ScriptCodeDelta = Schema.TaggedStruct("ScriptCodeDelta", {
  ...base,
  toolId: Schema.String,
  code: Schema.String,
});
/**
 * The code ended: what it printed (stdout, stderr, a failing exit code) and how many calls it made.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * if (Schema.is(ScriptFinished)(e)) console.log(`${e.calls} calls`, e.output);
 * ```
 */
export const ScriptFinished = Schema.TaggedStruct("ScriptFinished", {
  ...base,
  toolId: Schema.String,
  output: Schema.String,
  calls: Int,
});
