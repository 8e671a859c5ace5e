/**
 * One window's conversation: idle, or a turn that asks the model, runs the
 * tools it calls (waiting for confirmations), and asks again, until it
 * answers, is stopped, fails, or reaches its bounds. The machine is pure: it
 * says what happened by emitting log events, and the model and the tools are
 * actors the host provides.
 */
import { assign, emit, enqueueActions, fromCallback, fromPromise, setup } from "xstate";
import { tokensOf, type UnstampedEvent } from "../runtime/events.ts";
import { budgetSpent, REFUSED, stepsSpent } from "../runtime/limits.ts";
import {
  type Message,
  type ModelResponse,
  type ModelTool,
  type ToolResultBlock,
  type ToolUseBlock,
  textOf,
} from "../runtime/model.ts";
import { type CodeRunInput, type CodeRunOutput, codeRunMachine } from "./codeRun.ts";

/** What the machine starts from: its bounds and, after a rebuild, where the log left off. */
export interface ConversationInput {
  readonly maxSteps: number;
  readonly tokenBudget: number;
  readonly turn?: number;
  readonly tokensUsed?: number;
  /** How long calls from code may take before they are answered with an error. */
  readonly codeCallDeadlineMs?: number;
}

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
  | { readonly type: "CONFIRMING" }
  | { readonly type: "CONFIRMED" }
  | { readonly type: "TOOLS_DONE"; readonly results: ReadonlyArray<ToolResultBlock> }
  | { readonly type: "TOOLS_CRASHED"; readonly error: unknown };

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

const toolCallsOf = (response: ModelResponse | null): ReadonlyArray<ToolUseBlock> =>
  (response?.content ?? []).filter((b): b is ToolUseBlock => b.type === "tool_use");

/** Whether a call comes from code running in the code execution sandbox. */
const fromCode = (call: ToolUseBlock): boolean =>
  call.caller !== undefined && call.caller.type !== "direct";

/** The code execution (`srvtoolu_…`) that made a call from code. */
const scriptOf = (call: ToolUseBlock): string => call.caller?.tool_id ?? "";

/** A script's output as the panel shows it: stdout, then stderr, then a failing return code. */
const scriptOutput = (content: unknown): string => {
  const result = (content ?? {}) as { stdout?: unknown; stderr?: unknown; return_code?: unknown };
  const parts: string[] = [];
  if (typeof result.stdout === "string" && result.stdout !== "") parts.push(result.stdout);
  if (typeof result.stderr === "string" && result.stderr !== "") parts.push(result.stderr);
  if (typeof result.return_code === "number" && result.return_code !== 0)
    parts.push(`(exit code ${result.return_code})`);
  if (parts.length === 0 && typeof (content as { error_code?: unknown })?.error_code === "string")
    parts.push(`(error: ${(content as { error_code: string }).error_code})`);
  return parts.join("\n");
};

/** What a stopped turn keeps: each finished step's text, then what the step in flight had told. */
const partialOf = (written: ReadonlyArray<string>, streamed = ""): string =>
  (streamed === "" ? written : [...written, streamed]).join("\n\n");

const isModelError = (
  error: unknown,
): error is { _tag: "ModelError"; kind: string; message: string } =>
  typeof error === "object" &&
  error !== null &&
  (error as { _tag?: unknown })._tag === "ModelError";

/** The scripts a response starts (`server_tool_use`) and ends (`code_execution_tool_result`), as log events. */
const scriptEvents = (context: ConversationContext): ReadonlyArray<UnstampedEvent> => {
  const events: UnstampedEvent[] = [];
  for (const block of context.response?.content ?? []) {
    const b = block as {
      type: string;
      id?: unknown;
      name?: unknown;
      input?: unknown;
      tool_use_id?: unknown;
      content?: unknown;
    };
    if (b.type === "server_tool_use" && b.name === "code_execution") {
      const code = (b.input as { code?: unknown } | undefined)?.code;
      events.push({
        _tag: "ScriptStarted",
        turn: context.turn,
        toolId: String(b.id ?? ""),
        code: typeof code === "string" ? code : "",
      });
    } else if (b.type.endsWith("code_execution_tool_result")) {
      const toolId = String(b.tool_use_id ?? "");
      events.push({
        _tag: "ScriptFinished",
        turn: context.turn,
        toolId,
        output: scriptOutput(b.content),
        calls: Object.hasOwn(context.scriptCalls, toolId)
          ? (context.scriptCalls[toolId] as number)
          : 0,
      });
    }
  }
  return events;
};

/** Rethrows an error the machine has no answer for: the actor fails and its supervisor rebuilds it. */
const crash = (error: unknown): never => {
  throw error instanceof Error ? error : new Error(String(error));
};

/**
 * The conversation machine. Provide `callModel` (a promise actor resolving to
 * the step's response) and `runTools` (a callback actor that sends
 * `CONFIRMING`/`CONFIRMED` while it waits for the user and `TOOLS_DONE` with
 * one result per call).
 */
export const conversationMachine = setup({
  types: {
    input: {} as ConversationInput,
    context: {} as ConversationContext,
    events: {} as ConversationEvent,
    emitted: {} as ConversationEmitted,
  },
  actors: {
    callModel: fromPromise<ModelResponse, CallModelInput>(() =>
      crash(new Error("callModel is not provided")),
    ),
    runTools: fromCallback<ConversationEvent, RunToolsInput>(() =>
      crash(new Error("runTools is not provided")),
    ),
    codeRun: codeRunMachine,
  },
  actions: {
    /** Emits one log event; the host stamps its time and appends it. */
    log: emit((_, event: UnstampedEvent) => ({ type: "log" as const, event })),
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
  },
}).createMachine({
  id: "conversation",
  context: ({ input }) => ({
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
  }),
  initial: "idle",
  states: {
    idle: {
      // Between turns the conversation lives in the log; an idle window keeps none of the last turn.
      entry: assign({
        messages: [],
        response: null,
        written: [],
        tools: [],
        container: null,
        codeCalls: 0,
        scriptCalls: {},
        continuing: false,
      }),
      on: {
        PROMPT: {
          target: "turn",
          actions: [
            assign(({ context, event }) => ({
              turn: context.turn + 1,
              step: 0,
              modelSteps: 0,
              response: null,
              written: [],
              tools: event.tools,
              messages: [
                ...event.history,
                {
                  role: "user",
                  content: event.note ? `${event.note}\n\n${event.text}` : event.text,
                },
              ],
            })),
            {
              type: "log" as const,
              params: ({ context, event }) => ({
                _tag: "TurnStarted",
                turn: context.turn,
                text: event.text,
                route: event.route,
                note: event.note,
              }),
            },
          ],
        },
        RESET: {
          actions: [
            assign({ tokensUsed: 0, messages: [], written: [], response: null, step: 0 }),
            {
              type: "log" as const,
              params: ({ context }) => ({ _tag: "Reset", turn: context.turn }),
            },
          ],
        },
      },
    },
    turn: {
      initial: "checking",
      on: {
        STOP: {
          target: "idle",
          actions: {
            type: "log" as const,
            params: ({ context, event }) => ({
              _tag: "Stopped",
              turn: context.turn,
              partial: partialOf(context.written, event.streamed),
            }),
          },
        },
        RESET: {
          target: "idle",
          actions: [
            {
              type: "log" as const,
              params: ({ context, event }) => ({
                _tag: "Stopped",
                turn: context.turn,
                partial: partialOf(context.written, event.streamed),
              }),
            },
            assign({ tokensUsed: 0, messages: [], written: [], response: null, step: 0 }),
            {
              type: "log" as const,
              params: ({ context }) => ({ _tag: "Reset", turn: context.turn }),
            },
          ],
        },
      },
      states: {
        checking: {
          always: [
            {
              guard: "overBudget",
              target: "#conversation.idle",
              actions: {
                type: "log" as const,
                params: ({ context }) => ({
                  _tag: "Failed",
                  turn: context.turn,
                  error: budgetSpent(context.tokenBudget),
                }),
              },
            },
            { target: "requesting" },
          ],
        },
        requesting: {
          entry: [
            assign({
              step: ({ context }) => context.step + 1,
              modelSteps: ({ context }) => context.modelSteps + (context.continuing ? 0 : 1),
              continuing: false,
            }),
            {
              type: "log" as const,
              params: ({ context }) => ({
                _tag: "StepStarted",
                turn: context.turn,
                step: context.step,
              }),
            },
          ],
          invoke: {
            src: "callModel",
            input: ({ context }) => ({
              messages: context.messages,
              tools: context.tools,
              turn: context.turn,
              step: context.step,
              container: context.container,
            }),
            onDone: {
              target: "deciding",
              actions: [
                assign(({ context, event }) => {
                  const text = textOf(event.output.content);
                  return {
                    response: event.output,
                    container: event.output.container?.id ?? context.container,
                    tokensUsed: context.tokensUsed + tokensOf(event.output.usage),
                    messages: [
                      ...context.messages,
                      { role: "assistant" as const, content: event.output.content },
                    ],
                    written: text === "" ? context.written : [...context.written, text],
                  };
                }),
                {
                  type: "log" as const,
                  params: ({ context }) => ({
                    _tag: "StepFinished",
                    turn: context.turn,
                    step: context.step,
                    stopReason: context.response?.stopReason ?? "end_turn",
                    usage: context.response?.usage ?? { inputTokens: 0, outputTokens: 0 },
                  }),
                },
                enqueueActions(({ context, enqueue }) => {
                  for (const event of scriptEvents(context)) enqueue.emit({ type: "log", event });
                }),
              ],
            },
            onError: [
              {
                guard: ({ event }) => isModelError(event.error),
                target: "#conversation.idle",
                actions: {
                  type: "log" as const,
                  params: ({ context, event }) => ({
                    _tag: "Failed",
                    turn: context.turn,
                    error: (event.error as { message: string }).message,
                  }),
                },
              },
              { actions: ({ event }) => crash(event.error) },
            ],
          },
        },
        deciding: {
          always: [
            { guard: "codePause", target: "runningCode" },
            { guard: "wantsTools", target: "runningTools" },
            { guard: "paused", target: "checking" },
            {
              guard: "refused",
              target: "#conversation.idle",
              actions: {
                type: "log" as const,
                params: ({ context }) => ({
                  _tag: "Answered",
                  turn: context.turn,
                  text: textOf(context.response?.content ?? []) || REFUSED,
                }),
              },
            },
            {
              target: "#conversation.idle",
              actions: {
                type: "log" as const,
                params: ({ context }) => ({
                  _tag: "Answered",
                  turn: context.turn,
                  text: textOf(context.response?.content ?? []),
                }),
              },
            },
          ],
        },
        runningCode: {
          invoke: {
            src: "codeRun",
            input: ({ context }): CodeRunInput => ({
              calls: toolCallsOf(context.response),
              fromCode: toolCallsOf(context.response).filter(fromCode).length,
              usedBefore: context.codeCalls,
              ...(context.codeCallDeadlineMs === undefined
                ? {}
                : { deadlineMs: context.codeCallDeadlineMs }),
            }),
            onDone: [
              {
                guard: ({ event }) => (event.output as CodeRunOutput)._tag === "OverCap",
                target: "#conversation.idle",
                actions: {
                  type: "log" as const,
                  params: ({ context, event }) => ({
                    _tag: "Failed",
                    turn: context.turn,
                    error: (event.output as Extract<CodeRunOutput, { _tag: "OverCap" }>).error,
                  }),
                },
              },
              {
                // A pause answered for the code: a request, not a run of the model, so not a step.
                target: "checking",
                actions: assign(({ context, event }) => {
                  const calls = toolCallsOf(context.response).filter(fromCode);
                  // Keyed by ids from the response: a null prototype, so no id reads Object's members.
                  const scriptCalls: Record<string, number> = Object.assign(
                    Object.create(null),
                    context.scriptCalls,
                  );
                  for (const call of calls) {
                    const id = scriptOf(call);
                    scriptCalls[id] =
                      (Object.hasOwn(scriptCalls, id) ? (scriptCalls[id] as number) : 0) + 1;
                  }
                  return {
                    codeCalls: context.codeCalls + calls.length,
                    scriptCalls,
                    continuing: true,
                    messages: [
                      ...context.messages,
                      {
                        role: "user" as const,
                        content: (event.output as Extract<CodeRunOutput, { _tag: "Answered" }>)
                          .results,
                      },
                    ],
                  };
                }),
              },
            ],
            onError: { actions: ({ event }) => crash(event.error) },
          },
        },
        runningTools: {
          initial: "working",
          invoke: {
            src: "runTools",
            input: ({ context }) => ({
              calls: toolCallsOf(context.response),
              turn: context.turn,
              step: context.step,
            }),
          },
          on: {
            TOOLS_DONE: [
              {
                guard: "stepsLeft",
                target: "checking",
                actions: assign(({ context, event }) => ({
                  messages: [
                    ...context.messages,
                    { role: "user" as const, content: event.results },
                  ],
                })),
              },
              {
                target: "#conversation.idle",
                actions: {
                  type: "log" as const,
                  params: ({ context }) => ({
                    _tag: "Failed",
                    turn: context.turn,
                    error: stepsSpent(context.maxSteps),
                  }),
                },
              },
            ],
            TOOLS_CRASHED: { actions: ({ event }) => crash(event.error) },
          },
          states: {
            working: { on: { CONFIRMING: "awaitingConfirmation" } },
            awaitingConfirmation: { on: { CONFIRMED: "working" } },
          },
        },
      },
    },
  },
});
