/**
 * A scripted model, for tests: each step takes the next scripted response and
 * every request is recorded. No network; the same scripts play over real HTTP
 * through `standInMessagesApi`.
 */

import type { Usage } from "../runtime/log/events.ts";
import { type Clock, systemClock } from "../runtime/ports/clock.ts";
import { codeInputReader } from "../runtime/prompt/codeInput.ts";
import {
  type ContentBlock,
  kindOfStatus,
  type Model,
  ModelError,
  type ModelRequest,
  type ModelResponse,
} from "../runtime/prompt/model.ts";
import { countingIds } from "./countingIds.ts";
import {
  isFailure,
  type ScriptedFailure,
  type ScriptedReply,
  type ScriptedResponse,
  type ScriptedToolCall,
  toMessage,
} from "./script.ts";
import { playToolSearch, toolSearchProblem } from "./standInToolSearch.ts";
import { jsonPieces } from "./streamEvents.ts";

/** A step of a fake model's script: a response, or a fault the model port never gives. */
export type FakeStep = ScriptedResponse | { readonly crash: string } | { readonly hang: true };

/** A fake model: a `Model` with a chainable script and a record of requests. */
export interface FakeModel extends Model {
  /** Every request the model was sent, in order. */
  readonly requests: ReadonlyArray<ModelRequest>;
  /** Steps not yet played. */
  readonly remaining: () => number;
  /** Adds a step that ends the turn with text (told a word at a time when streamed). */
  readonly says: (text: string, more?: Omit<ScriptedReply, "text">) => FakeModel;
  /** Adds a step that calls one tool. */
  readonly toolCall: (
    name: string,
    input: unknown,
    more?: Omit<ScriptedReply, "toolCalls">,
  ) => FakeModel;
  /** Adds a step that calls several tools at once. */
  readonly toolCalls: (
    calls: ReadonlyArray<ScriptedToolCall>,
    more?: Omit<ScriptedReply, "toolCalls">,
  ) => FakeModel;
  /** Adds a refusal, with the model's explanation. */
  readonly refuses: (text?: string) => FakeModel;
  /** Adds an API error (529, 401, 422, …). */
  readonly fails: (status: number, type: string, message: string) => FakeModel;
  /** Adds any scripted response. */
  readonly respond: (response: FakeStep) => FakeModel;
  /** Adds a step that throws a plain error: a bug, not an API error, so the actor crashes. */
  readonly crashes: (message?: string) => FakeModel;
  /** Adds a step that never answers until it is aborted. */
  readonly hangs: () => FakeModel;
}

/**
 * A model response from a scripted reply, as the Anthropic adapter would give it.
 *
 * @example
 * ```ts
 * const response = responseOf(toolCall("customers_find", { name: "Ada" }));
 * response.stopReason; // "tool_use"
 * ```
 */
export const responseOf = (reply: ScriptedReply, ids = countingIds("fake")): ModelResponse => {
  const message = toMessage(reply, ids);
  const { input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens } =
    message.usage;
  const usage: Usage = {
    inputTokens: input_tokens,
    outputTokens: output_tokens,
    ...(cache_read_input_tokens > 0 ? { cacheReadTokens: cache_read_input_tokens } : {}),
    ...(cache_creation_input_tokens > 0 ? { cacheWriteTokens: cache_creation_input_tokens } : {}),
  };
  return {
    content: message.content,
    stopReason: message.stop_reason,
    usage,
    ...(message.container === undefined
      ? {}
      : { container: { id: message.container.id, expiresAt: message.container.expires_at } }),
  };
};

const aborted = () => new ModelError({ kind: "aborted", message: "the request was aborted" });

/** A scripted or refused API error, as the model port rejects with it. */
const apiError = (failure: ScriptedFailure): ModelError =>
  new ModelError({
    kind: kindOfStatus(failure.error.status, failure.error.type),
    message: failure.error.message,
    status: failure.error.status,
  });

/** How a fake model tells its text. */
export interface FakeModelOptions {
  /**
   * Milliseconds between words (and pieces of code), on `clock`: 0 (the
   * default) tells every word at once; more lets a test stop an answer
   * half-way, or watch code being written, on a simulated clock.
   */
  readonly paceMs?: number;
  readonly clock?: Clock;
}

/**
 * The words of a text, each with the space after it: what a streamed answer is told in.
 *
 * @example
 * ```ts
 * wordsOf("Three invoices are overdue."); // ["Three ", "invoices ", "are ", "overdue."]
 * ```
 */
export const wordsOf = (text: string): ReadonlyArray<string> => text.split(/(?<=\s)/);

/**
 * The code of each code execution in `content`, as it is told while it is
 * written: its input's JSON cut as the stand-in streams it (`splitAt`), each
 * piece read as the Anthropic adapter reads it.
 */
const codePiecesOf = (
  content: ReadonlyArray<ContentBlock>,
  splitAt?: ReadonlyArray<number>,
): ReadonlyArray<{ readonly toolId: string; readonly pieces: ReadonlyArray<string> }> =>
  content.flatMap((block) => {
    const { id, name, input } = block as { id?: unknown; name?: unknown; input?: unknown };
    if (block.type !== "server_tool_use" || name !== "code_execution" || typeof id !== "string")
      return [];
    const reader = codeInputReader();
    const pieces = jsonPieces(JSON.stringify(input ?? {}), splitAt)
      .map((piece) => reader.read(piece))
      .filter((piece) => piece !== "");
    return [{ toolId: id, pieces }];
  });

/**
 * A scripted model: each step the host asks for takes the next reply of the
 * script (text, tool calls, code, a tool search, a refusal or an API
 * error), told as the Anthropic adapter would tell it. A reply's
 * `searchTools` runs over the request's deferred tools as the API's tool
 * search does; a request the API would refuse (every tool deferred, an
 * unknown `tool_reference`, a `tool_result` for a `srvtoolu_` id) rejects
 * with its 400, and a script that searches without a tool search tool, or
 * calls a deferred tool no search loaded, with a 500 saying so.
 *
 * @example
 * ```ts
 * const model = fakeModel()
 *   .toolCall("invoices_index", { overdue: true })
 *   .says("Three invoices are overdue.");
 * ```
 */
export const fakeModel = (
  script: ReadonlyArray<FakeStep> = [],
  options: FakeModelOptions = {},
): FakeModel => {
  const paceMs = options.paceMs ?? 0;
  const clock = options.clock ?? systemClock;
  const queue: FakeStep[] = [...script];
  const requests: ModelRequest[] = [];
  const ids = countingIds("fake");
  const self: FakeModel = {
    requests,
    remaining: () => queue.length,
    says: (text, more = {}) => self.respond({ ...more, text }),
    toolCall: (name, input, more = {}) => self.respond({ ...more, toolCalls: [{ name, input }] }),
    toolCalls: (calls, more = {}) => self.respond({ ...more, toolCalls: calls }),
    refuses: (text = "") => self.respond({ text, stopReason: "refusal" }),
    fails: (status, type, message) => self.respond({ error: { status, type, message } }),
    respond: (response) => {
      queue.push(response);
      return self;
    },
    crashes: (message = "the fake model crashed") => self.respond({ crash: message }),
    hangs: () => self.respond({ hang: true }),
    step: async (request, { signal, onText, onCode }) => {
      requests.push(request);
      if (signal.aborted) throw aborted();
      // Refused as the API refuses it, before the script is read.
      const problem = toolSearchProblem(request);
      if (problem !== undefined) throw apiError(problem);
      const next = queue.shift();
      if (next === undefined) {
        throw new ModelError({
          kind: "invalidRequest",
          message: "fakeModel: no scripted response is left for this request",
        });
      }
      if ("crash" in next) throw new Error(next.crash);
      if ("hang" in next) {
        return new Promise<never>((_, reject) =>
          signal.addEventListener("abort", () => reject(aborted()), { once: true }),
        );
      }
      if (isFailure(next)) throw apiError(next);
      // A tool search the reply scripts, played over the request's deferred tools.
      const played = playToolSearch(request, next, ids);
      if (isFailure(played)) throw apiError(played);
      const response = responseOf(played, ids);
      // The text a word at a time, then each code execution's code: `""` as it starts, then its pieces.
      const tells: Array<() => void> = [];
      if (onText !== undefined && next.text)
        for (const word of wordsOf(next.text)) tells.push(() => onText(word));
      if (onCode !== undefined)
        for (const { toolId, pieces } of codePiecesOf(response.content, next.blockSplitAt))
          for (const piece of ["", ...pieces]) tells.push(() => onCode(toolId, piece));
      if (tells.length === 0) return response;
      if (paceMs <= 0) {
        for (const tell of tells) tell();
        return response;
      }
      // A piece every `paceMs` on the clock, until the last, or until the request is aborted.
      return new Promise<ModelResponse>((resolve, reject) => {
        let told = 0;
        let timer: unknown;
        const onAbort = () => {
          clock.clearTimeout(timer);
          reject(aborted());
        };
        const tellNext = () => {
          (tells[told++] as () => void)();
          if (told < tells.length) timer = clock.setTimeout(tellNext, paceMs);
          else {
            signal.removeEventListener("abort", onAbort);
            resolve(response);
          }
        };
        signal.addEventListener("abort", onAbort, { once: true });
        timer = clock.setTimeout(tellNext, paceMs);
      });
    },
  };
  return self;
};
