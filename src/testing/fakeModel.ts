/**
 * A scripted model, for tests: each step takes the next scripted response and
 * every request is recorded. No network; the same scripts play over real HTTP
 * through `standInMessagesApi`.
 */

import type { Usage } from "../runtime/log/events.ts";
import { type Clock, systemClock } from "../runtime/ports/clock.ts";
import {
  kindOfStatus,
  type Model,
  ModelError,
  type ModelRequest,
  type ModelResponse,
} from "../runtime/prompt/model.ts";
import { countingIds } from "./countingIds.ts";
import {
  isFailure,
  type ScriptedReply,
  type ScriptedResponse,
  type ScriptedToolCall,
  toMessage,
} from "./script.ts";

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

/** A model response from a scripted reply, as the Anthropic adapter would give it. */
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

/**
 * A scripted model.
 *
 * @example
 * ```ts
 * const model = fakeModel()
 *   .toolCall("invoices_index", { overdue: true })
 *   .says("Three invoices are overdue.");
 * ```
 */
/** How a fake model tells its text. */
export interface FakeModelOptions {
  /**
   * Milliseconds between words, on `clock`: 0 (the default) tells every word
   * at once; more lets a test stop an answer half-way, on a simulated clock.
   */
  readonly paceMs?: number;
  readonly clock?: Clock;
}

/** The words of a text, each with the space after it: what a streamed answer is told in. */
export const wordsOf = (text: string): ReadonlyArray<string> => text.split(/(?<=\s)/);

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
    step: async (request, { signal, onText }) => {
      requests.push(request);
      if (signal.aborted) throw aborted();
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
      if (isFailure(next)) {
        throw new ModelError({
          kind: kindOfStatus(next.error.status, next.error.type),
          message: next.error.message,
          status: next.error.status,
        });
      }
      const response = responseOf(next, ids);
      if (onText === undefined || !next.text) return response;
      const words = wordsOf(next.text);
      if (paceMs <= 0) {
        for (const word of words) onText(word);
        return response;
      }
      // A word every `paceMs` on the clock, until the last, or until the request is aborted.
      return new Promise<ModelResponse>((resolve, reject) => {
        let told = 0;
        let timer: unknown;
        const onAbort = () => {
          clock.clearTimeout(timer);
          reject(aborted());
        };
        const tell = () => {
          onText(words[told++] as string);
          if (told < words.length) timer = clock.setTimeout(tell, paceMs);
          else {
            signal.removeEventListener("abort", onAbort);
            resolve(response);
          }
        };
        signal.addEventListener("abort", onAbort, { once: true });
        timer = clock.setTimeout(tell, paceMs);
      });
    },
  };
  return self;
};
