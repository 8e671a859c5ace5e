/**
 * One window's model step: the request built from the window's system prompt
 * and the machine's input, sent to the user's model inside a span, its text
 * streamed into the coalescer as it arrives, and kept so far for Stop. In code
 * mode, the code of each script is streamed the same way: `ScriptWriting`
 * when its block starts, then its pieces into the coalescer.
 */
import type { CallModelInput } from "../../machines/conversationMachine.ts";
import type { WindowTurn } from "../../machines/windowMachine.ts";
import type { User } from "../../runtime/commands/origin.ts";
import type { UnstampedEvent } from "../../runtime/log/events.ts";
import { type Model, type ModelResponse, textOf } from "../../runtime/prompt/model.ts";
import { endSpan, startSpan } from "../support/tracing.ts";
import type { Coalescer } from "./coalescer.ts";

/** What a window's model step reads of its window. */
export interface ModelStepDeps {
  readonly model: Model;
  readonly modelFor?: (user: User) => Model;
  readonly modelName: string;
  readonly maxTokensPerStep: number;
  readonly user: () => User;
  /** What the running turn was framed with: its system prompt, and its span (the step's is its child). */
  readonly framed: () => WindowTurn | undefined;
  readonly text: Coalescer;
  /** Logs an event other than streamed text (what waits in the coalescer is told first). */
  readonly record: (event: UnstampedEvent) => unknown;
}

/** A window's model step, and the text the step in flight has told so far (what Stop keeps). */
export interface ModelStep {
  readonly call: (input: CallModelInput, signal: AbortSignal) => Promise<ModelResponse>;
  readonly streamed: () => string;
}

export const modelStep = (deps: ModelStepDeps): ModelStep => {
  let streamed = "";
  return {
    streamed: () => streamed,
    call: async (input, signal) => {
      streamed = "";
      /** The scripts this step began writing. */
      const writing = new Set<string>();
      const model = deps.modelFor?.(deps.user()) ?? deps.model;
      const span = startSpan(
        "elyra.model.step",
        {
          "gen_ai.system": "anthropic",
          "gen_ai.request.model": deps.modelName,
          "elyra.step": input.step,
        },
        deps.framed()?.trace,
      );
      let response: ModelResponse;
      try {
        response = await model.step(
          {
            model: deps.modelName,
            system: deps.framed()?.system ?? "",
            messages: input.messages,
            tools: input.tools,
            maxTokens: deps.maxTokensPerStep,
            ...(input.container === null ? {} : { container: input.container }),
          },
          {
            signal,
            onText: (piece) => {
              // A piece in flight when Stop was pressed is not told, nor a summary of the history.
              if (signal.aborted || input.summary) return;
              streamed += piece;
              deps.text.push(input.step, piece);
            },
            onCode: (toolId, piece) => {
              if (signal.aborted) return;
              if (!writing.has(toolId)) {
                writing.add(toolId);
                deps.record({ _tag: "ScriptWriting", turn: input.turn, toolId });
              }
              deps.text.push(input.step, piece, toolId);
            },
          },
        );
      } catch (error) {
        endSpan(span, {}, error instanceof Error ? error.message : String(error));
        throw error;
      }
      endSpan(span, {
        "gen_ai.response.finish_reasons": [response.stopReason],
        "gen_ai.usage.input_tokens": response.usage.inputTokens,
        "gen_ai.usage.output_tokens": response.usage.outputTokens,
      });
      // A model that answered whole told nothing yet: its text is told now, as one piece.
      if (streamed === "" && !input.summary) deps.text.push(input.step, textOf(response.content));
      streamed = "";
      return response.model === undefined ? { ...response, model: deps.modelName } : response;
    },
  };
};
