/**
 * The conversation machine's vocabulary: its input, context and events, and
 * what each name its diagram (`conversation.ts`) uses does: the actions, each
 * one context update or one log event, and the guards. What the Messages API
 * writes is read by `src/runtime` (model, codeScripts); here only turns,
 * steps and the log.
 */
import { Predicate } from "effect";
import { assign, emit, enqueueActions, fromCallback, sendTo, setup } from "xstate";
import { ActorNotProvided } from "../runtime/errors.ts";
import { tokensOf, type UnstampedEvent } from "../runtime/log/events.ts";
import { clearedToolResults } from "../runtime/prompt/clearing.ts";
import {
  countScriptCalls,
  fromCode,
  scriptEvents,
  toolCallsOf,
} from "../runtime/prompt/codeScripts.ts";
import {
  compactedHistory,
  compactionDue,
  KEEP_ALL,
  summaryRequest,
} from "../runtime/prompt/compaction.ts";
import { budgetSpent, REFUSED, stepsSpent } from "../runtime/prompt/limits.ts";
import {
  failureOf,
  isModelError,
  type ModelResponse,
  type ToolResultBlock,
  textOf,
} from "../runtime/prompt/model.ts";
import { type CodeRunOutput, codeRunMachine } from "./codeRunMachine.ts";
import type {
  ConversationContext,
  ConversationEmitted,
  ConversationEvent,
  ConversationInput,
  StepsCommand,
} from "./conversationTypes.ts";

type Prompt = Extract<ConversationEvent, { readonly type: "PROMPT" }>;

/** What a stopped turn keeps: each finished step's text, then what the step in flight had told. */
const partialOf = (written: ReadonlyArray<string>, streamed = ""): string =>
  (streamed === "" ? written : [...written, streamed]).join("\n\n");

/** Rethrows an error the machine has no answer for: the actor fails and its supervisor rebuilds it. */
const crash = (error: unknown): never => {
  throw error;
};

/** One log event, as the machine emits it. */
const log = (event: UnstampedEvent): ConversationEmitted => ({ type: "log", event });

/** The context a conversation starts with: its bounds, and where the log left off. */
export const initialContext = (input: ConversationInput): ConversationContext => ({
  maxSteps: input.maxSteps,
  tokenBudget: input.tokenBudget,
  turn: input.turn ?? 0,
  tokensUsed: input.tokensUsed ?? 0,
  step: 0,
  messages: [],
  tools: [],
  response: null,
  written: [],
  modelSteps: 0,
  continuing: false,
  container: null,
  codeCalls: 0,
  scriptCalls: {},
  codeCallDeadlineMs: input.codeCallDeadlineMs,
  bounds: input.bounds ?? KEEP_ALL,
  turnStart: 0,
  compacted: false,
});

/** The history a turn began with, and how many of its messages a summary would keep (none: not due). */
const dueOf = (context: ConversationContext) => {
  const history = context.messages.slice(0, context.turnStart);
  return { history, kept: context.compacted ? undefined : compactionDue(history, context.bounds) };
};

/**
 * What the conversation machine's names mean: its types, its actors (stubs
 * the host replaces), and its named actions and guards.
 */
export const conversationSetup = setup({
  types: {
    input: {} as ConversationInput,
    context: {} as ConversationContext,
    events: {} as ConversationEvent,
    emitted: {} as ConversationEmitted,
  },
  actors: {
    steps: fromCallback<StepsCommand>(() =>
      crash(new ActorNotProvided({ machine: "conversation", actor: "steps" })),
    ),
    codeRun: codeRunMachine,
  },
  actions: {
    /** Between turns the conversation lives in the log: an idle window keeps none of the last turn. */
    forgetTurn: assign({
      messages: [],
      response: null,
      written: [],
      tools: [],
      container: null,
      codeCalls: 0,
      scriptCalls: {},
      continuing: false,
    }),
    startTurn: assign(({ context }, prompt: Prompt) => ({
      turn: context.turn + 1,
      step: 0,
      modelSteps: 0,
      response: null,
      written: [],
      tools: prompt.tools,
      turnStart: prompt.history.length,
      compacted: false,
      messages: [
        ...prompt.history,
        { role: "user", content: prompt.note ? `${prompt.note}\n\n${prompt.text}` : prompt.text },
      ],
    })),
    logTurnStarted: emit(({ context }, prompt: Prompt) =>
      log({
        _tag: "TurnStarted",
        turn: context.turn,
        text: prompt.text,
        route: prompt.route,
        note: prompt.note,
      }),
    ),
    /** The turns and tokens other hosts wrote in the log count here too. */
    catchUp: assign(
      (_, { turn, tokensUsed }: { readonly turn: number; readonly tokensUsed: number }) => ({
        turn,
        tokensUsed,
      }),
    ),
    /** The conversation starts again: its tokens are spent no more. */
    resetConversation: assign({
      tokensUsed: 0,
      messages: [],
      written: [],
      response: null,
      step: 0,
    }),
    logReset: emit(({ context }) => log({ _tag: "Reset", turn: context.turn })),
    logStopped: emit(({ context }, { streamed }: { readonly streamed: string | undefined }) =>
      log({ _tag: "Stopped", turn: context.turn, partial: partialOf(context.written, streamed) }),
    ),
    /** A new request: a step, and a model step unless it answers a code pause. */
    startStep: assign(({ context }) => ({
      step: context.step + 1,
      modelSteps: context.modelSteps + (context.continuing ? 0 : 1),
      continuing: false,
    })),
    /** The step's request, told to the turn's steps actor. */
    askModel: sendTo(
      "steps",
      ({ context }): StepsCommand => ({
        type: "CALL_MODEL",
        input: {
          messages: context.messages,
          tools: context.tools,
          turn: context.turn,
          step: context.step,
          container: context.container,
        },
      }),
    ),
    /** The step's tool calls, told to the turn's steps actor. */
    runTools: sendTo(
      "steps",
      ({ context }): StepsCommand => ({
        type: "RUN_TOOLS",
        input: { calls: toolCallsOf(context.response), turn: context.turn, step: context.step },
      }),
    ),
    logStepStarted: emit(({ context }) =>
      log({ _tag: "StepStarted", turn: context.turn, step: context.step }),
    ),
    /** Before a step: the turn's older tool results cleared when they have grown past the bound. */
    clearOldResults: enqueueActions(({ context, enqueue }) => {
      const due = clearedToolResults(context.messages, context.turnStart, context.bounds);
      if (due === undefined) return;
      enqueue.assign({ messages: due.messages });
      const { cleared, tokens } = due;
      enqueue.emit(
        log({
          _tag: "ToolResultsCleared",
          turn: context.turn,
          step: context.step,
          cleared,
          tokens,
        }),
      );
    }),
    /** The history's summary asked for, as step 0, with the turn's tools (asked to call none). */
    askSummary: sendTo("steps", ({ context }): StepsCommand => {
      const { history, kept } = dueOf(context);
      return {
        type: "CALL_MODEL",
        input: {
          messages: summaryRequest(history, kept ?? 0),
          // The turn's own tools, as every request of the conversation has them: the request then
          // repeats their prefix, and the earlier turns', so the cache holds it (the request says to call none).
          tools: context.tools,
          turn: context.turn,
          step: 0,
          container: null,
          summary: true,
        },
      };
    }),
    /**
     * The summary's tokens counted, and, when it is one (it says something,
     * and ended as an answer: not to call a tool or pause), the history
     * replaced by it; else the history stays as it is, asked again next turn.
     */
    compactHistory: enqueueActions(
      ({ context, enqueue }, { response }: { readonly response: ModelResponse }) => {
        const { history, kept } = dueOf(context);
        const summary = textOf(response.content).trim();
        const { turn } = context;
        enqueue.assign({
          compacted: true,
          tokensUsed: context.tokensUsed + tokensOf(response.usage),
        });
        enqueue.emit(
          log({
            _tag: "StepFinished",
            turn,
            step: 0,
            stopReason: response.stopReason,
            usage: response.usage,
            ...(response.model === undefined ? {} : { model: response.model }),
          }),
        );
        const ended = response.stopReason === "end_turn" || response.stopReason === "max_tokens";
        if (summary === "" || kept === undefined || !ended) return;
        const messages = [
          ...compactedHistory(history, summary, kept),
          ...context.messages.slice(context.turnStart),
        ];
        enqueue.assign({
          messages,
          turnStart: messages.length - (context.messages.length - context.turnStart),
        });
        enqueue.emit(log({ _tag: "Compacted", turn, summary, kept }));
      },
    ),
    /** The step's response: kept, its tokens counted, its message and text added to the turn's. */
    rememberResponse: assign(({ context }, { response }: { readonly response: ModelResponse }) => {
      const text = textOf(response.content);
      return {
        response,
        container: response.container?.id ?? context.container,
        tokensUsed: context.tokensUsed + tokensOf(response.usage),
        messages: [...context.messages, { role: "assistant" as const, content: response.content }],
        written: text === "" ? context.written : [...context.written, text],
      };
    }),
    logStepFinished: emit(({ context }) =>
      log({
        _tag: "StepFinished",
        turn: context.turn,
        step: context.step,
        stopReason: context.response?.stopReason ?? "end_turn",
        usage: context.response?.usage ?? { inputTokens: 0, outputTokens: 0 },
        ...(context.response?.model === undefined ? {} : { model: context.response.model }),
      }),
    ),
    /** The scripts the response started and ended in the code execution sandbox. */
    logScripts: enqueueActions(({ context, enqueue }) => {
      for (const event of scriptEvents(
        context.response?.content ?? [],
        context.turn,
        context.scriptCalls,
      ))
        enqueue.emit(log(event));
    }),
    /** A code pause answered: its results sent back as a request, which is not a model step. */
    answerCode: assign(({ context }, { output }: { readonly output: CodeRunOutput }) => {
      const calls = toolCallsOf(context.response);
      return {
        codeCalls: context.codeCalls + calls.filter(fromCode).length,
        scriptCalls: countScriptCalls(context.scriptCalls, calls),
        continuing: true,
        messages: [
          ...context.messages,
          { role: "user" as const, content: output._tag === "Answered" ? output.results : [] },
        ],
      };
    }),
    addToolResults: assign(
      ({ context }, { results }: { readonly results: ReadonlyArray<ToolResultBlock> }) => ({
        messages: [...context.messages, { role: "user" as const, content: results }],
      }),
    ),
    logAnswered: emit(({ context }) =>
      log({ _tag: "Answered", turn: context.turn, text: textOf(context.response?.content ?? []) }),
    ),
    /** A refusal answers with its text, or with {@link REFUSED} when it says nothing. */
    logRefused: emit(({ context }) =>
      log({
        _tag: "Answered",
        turn: context.turn,
        text: textOf(context.response?.content ?? []) || REFUSED,
      }),
    ),
    logBudgetSpent: emit(({ context }) =>
      log({ _tag: "Failed", turn: context.turn, error: budgetSpent(context.tokenBudget) }),
    ),
    logStepsSpent: emit(({ context }) =>
      log({ _tag: "Failed", turn: context.turn, error: stepsSpent(context.maxSteps) }),
    ),
    logModelError: emit(({ context }, { error }: { readonly error: unknown }) =>
      log({
        _tag: "Failed",
        turn: context.turn,
        error: isModelError(error) ? error.message : String(error),
        ...failureOf(error),
      }),
    ),
    logCodeOverCap: emit(({ context }, { output }: { readonly output: CodeRunOutput }) =>
      log({
        _tag: "Failed",
        turn: context.turn,
        error: output._tag === "OverCap" ? output.error : "",
      }),
    ),
    /** An error the machine has no answer for: thrown, so the actor fails. */
    crash: (_, { error }: { readonly error: unknown }) => crash(error),
  },
  guards: {
    overBudget: ({ context }) => context.tokensUsed >= context.tokenBudget,
    compactionDue: ({ context }) => context.step === 0 && dueOf(context).kept !== undefined,
    wantsTools: ({ context }) =>
      context.response?.stopReason === "tool_use" && toolCallsOf(context.response).length > 0,
    stepsLeft: ({ context }) => context.modelSteps < context.maxSteps,
    // Any call from code makes the response a pause for the code: all its calls are answered
    // together, as one user message of tool_result blocks.
    codePause: ({ context }) =>
      context.response?.stopReason === "tool_use" && toolCallsOf(context.response).some(fromCode),
    paused: ({ context }) => context.response?.stopReason === "pause_turn",
    refused: ({ context }) => context.response?.stopReason === "refusal",
    modelError: ({ event }) => event.type === "STEP_FAILED" && isModelError(event.error),
    // The code run's output event is not among the machine's events: read by name.
    codeOverCap: ({ event }) => "output" in event && Predicate.isTagged(event.output, "OverCap"),
  },
});
