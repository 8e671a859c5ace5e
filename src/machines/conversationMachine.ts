/**
 * One window's conversation: idle, or a turn that asks the model, runs the
 * tools it calls (waiting for confirmations), and asks again, until it
 * answers, is stopped, fails, or reaches its bounds. The machine is pure: it
 * says what happened by emitting log events, and the model and the tools are
 * actors the host provides.
 */
import { fromCode, toolCallsOf } from "../runtime/prompt/codeScripts.ts";
import type { CodeRunInput } from "./codeRunMachine.ts";
import { conversationSetup, initialContext } from "./conversationSetup.ts";

export type {
  CallModelInput,
  ConversationContext,
  ConversationEmitted,
  ConversationEvent,
  ConversationInput,
  RunToolsInput,
  StepsCommand,
} from "./conversationTypes.ts";

/**
 * The conversation machine. Provide `steps`: one actor a turn, told each
 * model step (`CALL_MODEL`, answered `STEP_DONE` or `STEP_FAILED`) and each
 * step's tool calls (`RUN_TOOLS`, answered `CONFIRMING`/`CONFIRMED` while it
 * waits for the user and `TOOLS_DONE` with one result per call); `turnSteps`
 * makes it from two functions. Every action and guard is named: what each
 * does is in `conversationSetup.ts`.
 *
 * @example
 * ```ts
 * import { createActor } from "xstate";
 * import { conversationMachine, turnSteps } from "elyra-assistant/machines";
 *
 * const machine = conversationMachine.provide({
 *   actors: { steps: turnSteps(() => ({ callModel: (input, signal) => model.step(input, { signal }), runTools })) },
 * });
 * const actor = createActor(machine, { input: { maxSteps: 8, tokenBudget: 200_000 } });
 * actor.on("log", ({ event }) => store.append(event)); // every TurnStarted, Answered, … to the log
 * actor.start();
 * actor.send({ type: "PROMPT", text: "What is overdue?", route: "/invoices", note: null, history: [], tools });
 * ```
 */
export const conversationMachine = conversationSetup.createMachine({
  id: "conversation",
  context: ({ input }) => initialContext(input),
  initial: "idle",
  on: {
    FAULT: { actions: { type: "crash", params: ({ event }) => ({ error: event.error }) } },
  },
  states: {
    idle: {
      entry: "forgetTurn",
      on: {
        PROMPT: {
          target: "turn",
          actions: [
            { type: "startTurn", params: ({ event }) => event },
            { type: "logTurnStarted", params: ({ event }) => event },
          ],
        },
        RESET: { actions: ["resetConversation", "logReset"] },
        CAUGHT_UP: { actions: { type: "catchUp", params: ({ event }) => event } },
      },
    },
    turn: {
      initial: "checking",
      // One actor for the turn's steps: asked for each model step and each step's tool calls.
      invoke: { id: "steps", src: "steps" },
      // In any state of the turn.
      on: {
        STOP: {
          target: "idle",
          actions: { type: "logStopped", params: ({ event }) => ({ streamed: event.streamed }) },
        },
        RESET: {
          target: "idle",
          actions: [
            { type: "logStopped", params: ({ event }) => ({ streamed: event.streamed }) },
            "resetConversation",
            "logReset",
          ],
        },
      },
      states: {
        checking: {
          always: [
            { guard: "overBudget", target: "#conversation.idle", actions: "logBudgetSpent" },
            { guard: "compactionDue", target: "compacting" },
            { target: "requesting" },
          ],
        },
        // Once a turn, before its first step, when the history has grown past its bound.
        compacting: {
          entry: "askSummary",
          on: {
            STEP_DONE: {
              target: "checking",
              actions: {
                type: "compactHistory",
                params: ({ event }) => ({ response: event.response }),
              },
            },
            STEP_FAILED: [
              {
                guard: "modelError",
                target: "#conversation.idle",
                actions: { type: "logModelError", params: ({ event }) => ({ error: event.error }) },
              },
              { actions: { type: "crash", params: ({ event }) => ({ error: event.error }) } },
            ],
          },
        },
        requesting: {
          entry: ["startStep", "logStepStarted", "clearOldResults", "askModel"],
          on: {
            STEP_DONE: {
              target: "deciding",
              actions: [
                { type: "rememberResponse", params: ({ event }) => ({ response: event.response }) },
                "logStepFinished",
                "logScripts",
              ],
            },
            STEP_FAILED: [
              {
                guard: "modelError",
                target: "#conversation.idle",
                actions: { type: "logModelError", params: ({ event }) => ({ error: event.error }) },
              },
              { actions: { type: "crash", params: ({ event }) => ({ error: event.error }) } },
            ],
          },
        },
        deciding: {
          always: [
            { guard: "codePause", target: "runningCode" },
            { guard: "wantsTools", target: "runningTools" },
            { guard: "paused", target: "checking" },
            { guard: "refused", target: "#conversation.idle", actions: "logRefused" },
            { target: "#conversation.idle", actions: "logAnswered" },
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
                guard: "codeOverCap",
                target: "#conversation.idle",
                actions: {
                  type: "logCodeOverCap",
                  params: ({ event }) => ({ output: event.output }),
                },
              },
              {
                // A pause answered for the code: a request, not a run of the model, so not a step.
                target: "checking",
                actions: { type: "answerCode", params: ({ event }) => ({ output: event.output }) },
              },
            ],
            onError: {
              actions: { type: "crash", params: ({ event }) => ({ error: event.error }) },
            },
          },
        },
        runningTools: {
          initial: "working",
          entry: "runTools",
          on: {
            TOOLS_DONE: [
              {
                guard: "stepsLeft",
                target: "checking",
                actions: {
                  type: "addToolResults",
                  params: ({ event }) => ({ results: event.results }),
                },
              },
              { target: "#conversation.idle", actions: "logStepsSpent" },
            ],
            TOOLS_CRASHED: {
              actions: { type: "crash", params: ({ event }) => ({ error: event.error }) },
            },
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
