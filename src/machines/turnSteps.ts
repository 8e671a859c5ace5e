/**
 * The conversation's `steps` actor made from two functions: one that asks the
 * model for a step, one that runs a step's tool calls. One such actor lives
 * for each turn, told each step in turn: a turn of three tool steps starts
 * one actor, not seven (decision (ap), docs/decisions/0042-a-turns-steps-run-in-one-actor.md).
 */
import { type AnyActorRef, fromCallback } from "xstate";
import type { ModelResponse, ToolResultBlock } from "../runtime/prompt/model.ts";
import type {
  CallModelInput,
  ConversationEvent,
  RunToolsInput,
  StepsCommand,
} from "./conversationTypes.ts";

/** What a turn's steps are made of, for the conversation an actor runs under. */
export interface TurnStepsHandlers {
  /** One model step; `signal` aborts when the turn ends before it does (Stop, Reset, a crash). */
  readonly callModel: (input: CallModelInput, signal: AbortSignal) => Promise<ModelResponse>;
  /**
   * One step's tool calls, one result per call. `tell("CONFIRMING")` while
   * the user is asked, `tell("CONFIRMED")` once answered. `signal` aborts
   * when the turn ends first: nothing after the call running then starts.
   */
  readonly runTools: (
    input: RunToolsInput,
    tell: (event: "CONFIRMING" | "CONFIRMED") => void,
    signal: AbortSignal,
  ) => Promise<ReadonlyArray<ToolResultBlock>>;
}

/**
 * The `steps` actor logic of the conversation machine. `handlersOf` is read
 * once per turn, with the actor itself (whose parent is the conversation), so
 * one machine may serve many conversations.
 *
 * @example
 * ```ts
 * import { conversationMachine, turnSteps } from "elyra-assistant/machines";
 *
 * const machine = conversationMachine.provide({
 *   actors: {
 *     steps: turnSteps(() => ({
 *       callModel: (input, signal) => model.step(input, { signal }),
 *       runTools: async (input) => input.calls.map((c) => ({ type: "tool_result", tool_use_id: c.id, content: "done" })),
 *     })),
 *   },
 * });
 * ```
 */
export const turnSteps = (handlersOf: (self: AnyActorRef) => TurnStepsHandlers) =>
  fromCallback<StepsCommand>(({ sendBack, receive, self }) => {
    const handlers = handlersOf(self);
    // One controller for the turn: its steps run one at a time, and only the turn's end aborts.
    const stop = new AbortController();
    /** Whether a step runs now: only then is there something to abort (an abort costs a DOMException). */
    let running = false;
    /** Whether the turn has ended: what a step settles with after that is told to no one. */
    let over = false;
    const tell = (event: ConversationEvent) => {
      if (!over) sendBack(event);
    };
    /** Tells the conversation how the step ended: `done` with its result, or `failed`. */
    const settle = <T>(
      step: Promise<T>,
      done: (result: T) => ConversationEvent,
      failed: (error: unknown) => ConversationEvent,
    ) =>
      step.then(
        (result) => {
          running = false;
          tell(done(result));
        },
        (error: unknown) => {
          running = false;
          tell(failed(error));
        },
      );
    receive((command) => {
      running = true;
      if (command.type === "CALL_MODEL")
        settle(
          handlers.callModel(command.input, stop.signal),
          (response) => ({ type: "STEP_DONE", response }),
          (error) => ({ type: "STEP_FAILED", error }),
        );
      else
        settle(
          handlers.runTools(command.input, (type) => tell({ type }), stop.signal),
          (results) => ({ type: "TOOLS_DONE", results }),
          (error) => ({ type: "TOOLS_CRASHED", error }),
        );
    });
    return () => {
      over = true;
      if (running) stop.abort();
    };
  });
