/**
 * One paused code execution of code mode (docs/code-mode.md): Claude's code,
 * running in Anthropic's sandbox, called the app's tools and waits for their
 * results. The machine runs the pending calls one by one through an injected
 * `runCall` actor and answers with one `tool_result` per pending call. Past
 * the deadline (before the API's ~4-minute limit) whatever has not finished
 * is answered with an error, so the code sees a failed call rather than a
 * timeout. A prompt may make at most 500 calls from code; past that the run
 * fails as unsupported.
 */
import { assign, fromPromise, setup } from "xstate";
import {
  CODE_CALL_DEADLINE_MS,
  lateResult,
  MAX_CODE_CALLS,
  tooManyCodeCalls,
} from "../runtime/prompt/limits.ts";
import type { ToolResultBlock, ToolUseBlock } from "../runtime/prompt/model.ts";

/** What one pause of code mode starts with: its pending calls, the calls made before, and its cap and deadline. */
export interface CodeRunInput {
  /** The pending calls of this pause, in order. */
  readonly calls: ReadonlyArray<ToolUseBlock>;
  /** Calls from code already made in this prompt. */
  readonly usedBefore: number;
  /** How many of `calls` come from code (what the cap counts); all of them unless given. */
  readonly fromCode?: number;
  readonly cap?: number;
  /** How long the pending calls may take: 3 min 30 s unless given. */
  readonly deadlineMs?: number;
}

/** A pause as it runs: the pending calls, the results so far, and its bounds. */
export interface CodeRunContext {
  readonly calls: ReadonlyArray<ToolUseBlock>;
  readonly results: ReadonlyArray<ToolResultBlock>;
  readonly usedBefore: number;
  readonly fromCode: number;
  readonly cap: number;
  readonly deadlineMs: number;
}

/** How a pause ended: answered (one result per pending call), or over the cap. */
export type CodeRunOutput =
  | { readonly _tag: "Answered"; readonly results: ReadonlyArray<ToolResultBlock> }
  | { readonly _tag: "OverCap"; readonly error: string };

/**
 * `checking → answering.{calling ⇄ next} → done`, or `timedOut` after the
 * `deadline` delay (answers what is left with errors), or `overCap`. Provide
 * `runCall` (a promise actor resolving to the call's `tool_result`) and, to
 * change it, the `deadline` delay.
 *
 * @example
 * ```ts
 * import { createActor, fromPromise } from "xstate";
 *
 * const machine = codeRunMachine.provide({
 *   actors: { runCall: fromPromise(async ({ input }) => ({ type: "tool_result", tool_use_id: input.id, content: await run(input) })) },
 * });
 * const actor = createActor(machine, { input: { calls: pending, usedBefore: 0 } });
 * actor.subscribe({ complete: () => answer(actor.getSnapshot().output) }); // { _tag: "Answered", results }
 * actor.start();
 * ```
 */
export const codeRunMachine = setup({
  types: {
    input: {} as CodeRunInput,
    context: {} as CodeRunContext,
    output: {} as CodeRunOutput,
  },
  actors: {
    runCall: fromPromise<ToolResultBlock, ToolUseBlock>(({ input }) =>
      Promise.resolve({
        type: "tool_result",
        tool_use_id: input.id,
        content: "error: runCall is not provided",
        is_error: true,
      }),
    ),
  },
  delays: { deadline: ({ context }) => context.deadlineMs },
  actions: {
    /** A pending call answered: its result, in order. */
    addResult: assign(({ context }, { result }: { readonly result: ToolResultBlock }) => ({
      results: [...context.results, result],
    })),
    /** A pending call that failed: answered with its error. */
    addError: assign(({ context }, { error }: { readonly error: unknown }) => ({
      results: [
        ...context.results,
        {
          type: "tool_result" as const,
          tool_use_id: (context.calls[context.results.length] as ToolUseBlock).id,
          content: `error: ${error instanceof Error ? error.message : String(error)}`,
          is_error: true,
        },
      ],
    })),
    /** Past the deadline: every call not yet answered is answered as late. */
    answerLate: assign(({ context }) => ({
      results: [
        ...context.results,
        ...context.calls.slice(context.results.length).map(
          (call): ToolResultBlock => ({
            type: "tool_result",
            tool_use_id: call.id,
            content: lateResult(context.deadlineMs),
            is_error: true,
          }),
        ),
      ],
    })),
  },
  guards: {
    overCap: ({ context }) => context.usedBefore + context.fromCode > context.cap,
    allAnswered: ({ context }) => context.results.length >= context.calls.length,
  },
}).createMachine({
  id: "codeRun",
  context: ({ input }) => ({
    calls: input.calls,
    results: [],
    usedBefore: input.usedBefore,
    fromCode: input.fromCode ?? input.calls.length,
    cap: input.cap ?? MAX_CODE_CALLS,
    deadlineMs: input.deadlineMs ?? CODE_CALL_DEADLINE_MS,
  }),
  initial: "checking",
  states: {
    checking: {
      always: [{ guard: "overCap", target: "overCap" }, { target: "answering" }],
    },
    answering: {
      initial: "next",
      after: { deadline: "timedOut" },
      states: {
        next: {
          always: [{ guard: "allAnswered", target: "#codeRun.done" }, { target: "calling" }],
        },
        calling: {
          invoke: {
            src: "runCall",
            input: ({ context }) => context.calls[context.results.length] as ToolUseBlock,
            onDone: {
              target: "next",
              actions: { type: "addResult", params: ({ event }) => ({ result: event.output }) },
            },
            onError: {
              target: "next",
              actions: { type: "addError", params: ({ event }) => ({ error: event.error }) },
            },
          },
        },
      },
    },
    timedOut: {
      entry: "answerLate",
      always: "done",
    },
    done: { type: "final" },
    overCap: { type: "final" },
  },
  output: ({ context }): CodeRunOutput =>
    context.usedBefore + context.fromCode > context.cap
      ? { _tag: "OverCap", error: tooManyCodeCalls(context.cap) }
      : { _tag: "Answered", results: context.results },
});
