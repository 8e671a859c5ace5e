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
import {
  countScriptCalls,
  fromCode,
  scriptEvents,
  toolCallsOf,
} from "../runtime/prompt/codeScripts.ts";
import { budgetSpent, REFUSED, stepsSpent } from "../runtime/prompt/limits.ts";
import {
  failureOf,
  isModelError,
  type Message,
  type ModelResponse,
  type ModelTool,
  type ToolResultBlock,
  type ToolUseBlock,
  textOf,
} from "../runtime/prompt/model.ts";
import { type CodeRunOutput, codeRunMachine } from "./codeRunMachine.ts";

/** What the machine starts from: its bounds and, after a rebuild, where the log left off. */
export interface ConversationInput {
  readonly maxSteps: number;
  readonly tokenBudget: number;
  readonly turn?: number;
  readonly tokensUsed?: number;
  /** How long calls from code may take before they are answered with an error. */
  readonly codeCallDeadlineMs?: number;
}

/** A conversation as it runs: its bounds, the turn and step, the messages and tools of the turn, and what it has spent. */
export interface ConversationContext {
  readonly maxSteps: number;
  readonly tokenBudget: number;
  readonly turn: number;
  readonly tokensUsed: number;
  readonly step: number;
  readonly messages: ReadonlyArray<Message>;
  readonly tools: ReadonlyArray<ModelTool>;
  readonly response: ModelResponse | null;
  /** Text written this turn, step by step: what Stop keeps. */
  readonly written: ReadonlyArray<string>;
  /** Model runs this turn (answers to code pauses are requests, not runs): what `maxSteps` bounds. */
  readonly modelSteps: number;
  /** Whether the next request answers a code pause. */
  readonly continuing: boolean;
  /** The code execution container of this turn, sent back with each request; none across turns. */
  readonly container: string | null;
  /** Calls from code made this prompt, in all, and per running script (`srvtoolu_…`). */
  readonly codeCalls: number;
  readonly scriptCalls: Readonly<Record<string, number>>;
  readonly codeCallDeadlineMs: number | undefined;
}

/** What a conversation is told: a prompt, Stop or Reset, and what its tools and confirmations report. */
export type ConversationEvent =
  | {
      readonly type: "PROMPT";
      readonly text: string;
      readonly route: string | null;
      readonly note: string | null;
      /** The conversation so far, as the model is sent it (the `history` projection). */
      readonly history: ReadonlyArray<Message>;
      readonly tools: ReadonlyArray<ModelTool>;
    }
  /** `streamed`: the text of the step in flight told so far, which Stop keeps. */
  | { readonly type: "STOP"; readonly streamed?: string }
  | { readonly type: "RESET"; readonly streamed?: string }
  /** The model step the turn's steps actor was asked for: its response, or why it has none. */
  | { readonly type: "STEP_DONE"; readonly response: ModelResponse }
  | { readonly type: "STEP_FAILED"; readonly error: unknown }
  | { readonly type: "CONFIRMING" }
  | { readonly type: "CONFIRMED" }
  | { readonly type: "TOOLS_DONE"; readonly results: ReadonlyArray<ToolResultBlock> }
  | { readonly type: "TOOLS_CRASHED"; readonly error: unknown }
  /** The host could not keep the log (the store refused an append): the conversation fails. */
  | { readonly type: "FAULT"; readonly error: unknown }
  /**
   * Another host wrote the log since (turns, a reset), and this one is its
   * writer now: the conversation counts from what the log says.
   */
  | { readonly type: "CAUGHT_UP"; readonly turn: number; readonly tokensUsed: number };

/** A log event the machine emits; the host stamps its time and appends it. */
export type ConversationEmitted = { readonly type: "log"; readonly event: UnstampedEvent };

/** Input of the model actor: one step. */
export interface CallModelInput {
  readonly messages: ReadonlyArray<Message>;
  readonly tools: ReadonlyArray<ModelTool>;
  readonly turn: number;
  readonly step: number;
  /** The container of the turn's code execution, once there is one. */
  readonly container: string | null;
}

/** Input of the tools actor: the calls of one step, run through the call path. */
export interface RunToolsInput {
  readonly calls: ReadonlyArray<ToolUseBlock>;
  readonly turn: number;
  readonly step: number;
}

/**
 * What the conversation tells its turn's steps actor, one at a time: ask the
 * model for one step (answered `STEP_DONE` or `STEP_FAILED`), or run one
 * step's tool calls (answered `CONFIRMING`/`CONFIRMED` while the user is
 * asked, then `TOOLS_DONE` or `TOOLS_CRASHED`). The actor lives as long as
 * the turn: stopped with it, it stops what it runs.
 */
export type StepsCommand =
  | { readonly type: "CALL_MODEL"; readonly input: CallModelInput }
  | { readonly type: "RUN_TOOLS"; readonly input: RunToolsInput };

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
});

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
