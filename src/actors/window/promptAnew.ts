/**
 * A prompt that waited on a window given up because its log could not be
 * read (a read begun before the prompt, perhaps before the store came back)
 * is tried once more on the window opened anew, which reads the log again:
 * what its client would do, without a failure the store no longer has.
 */
import type { GiveUpReason } from "../../machines/supervisorMachine.ts";
import type { AssistantWindow } from "../assistantWindow.ts";

type Prompt = AssistantWindow["prompt"];
type PromptOptions = NonNullable<Parameters<Prompt>[1]>;

/** Marks a prompt already tried anew: it is not tried a third time. */
const ANEW = Symbol("promptedAnew");
type Marked = PromptOptions & { readonly [ANEW]?: true };

/**
 * `prompt`, tried once on `reopen()`'s window when the window was given up
 * as unreadable while it waited (and not before it began), rejecting with
 * that failure's error.
 *
 * @example
 * ```ts
 * const prompt = promptAnew(ops.prompt, () => failed, () => deps.reopen(clientId, user));
 * ```
 */
export const promptAnew =
  (
    prompt: Prompt,
    failed: () => { readonly error: unknown; readonly reason: GiveUpReason } | undefined,
    reopen: () => AssistantWindow,
  ): Prompt =>
  async (input, options = {}) => {
    const givenUpBefore = failed() !== undefined;
    try {
      return await prompt(input, options);
    } catch (error) {
      const now = failed();
      const anew =
        !givenUpBefore &&
        (options as Marked)[ANEW] !== true &&
        now?.reason === "unreadableLog" &&
        now.error === error;
      if (!anew) throw error;
      return reopen().prompt(input, { ...options, [ANEW]: true } as Marked);
    }
  };
