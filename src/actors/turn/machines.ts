/**
 * The host's machines with its actors plugged in: one conversation machine
 * for all windows, each window's model and tools found through the
 * conversation its actor belongs to, and the supervisor that runs them.
 */
import type { AnyActorRef } from "xstate";
import { codeRunMachine } from "../../machines/codeRunMachine.ts";
import { type CallModelInput, conversationMachine } from "../../machines/conversationMachine.ts";
import {
  type Recovered,
  recoverFrom,
  supervisorMachine,
} from "../../machines/supervisorMachine.ts";
import { turnSteps } from "../../machines/turnSteps.ts";
import type { CallPath } from "../../runtime/calls/callPath.ts";
import { InvariantBroken } from "../../runtime/errors.ts";
import type { ModelResponse } from "../../runtime/prompt/model.ts";
import { codeCallRunner, runTools, type ToolRunnerWindow } from "./toolRunner.ts";

/**
 * What the host's one conversation machine needs of each window, found from
 * the conversation actor an invoked actor belongs to.
 *
 * @internal
 */
export interface WindowBinding {
  readonly callModel: (input: CallModelInput, signal: AbortSignal) => Promise<ModelResponse>;
  readonly tools: ToolRunnerWindow;
}

/** Each running conversation's window. */
export type Bindings = WeakMap<AnyActorRef, WindowBinding>;

/**
 * The window of the conversation `self` runs under: its parent (the turn's
 * steps), or its parent's parent (a call from code, under its code run).
 */
const boundTo = (bindings: Bindings, self: AnyActorRef): WindowBinding => {
  for (let ref = self._parent; ref !== undefined; ref = ref._parent) {
    const binding = bindings.get(ref);
    if (binding !== undefined) return binding;
  }
  throw new InvariantBroken({
    where: "hostMachine",
    reason: `actor ${self.id} runs under no window's conversation`,
  });
};

/**
 * The conversation machine with the host's actors plugged in, once for all windows.
 *
 * @internal
 */
export const hostConversation = (path: CallPath, bindings: Bindings) =>
  conversationMachine.provide({
    actors: {
      steps: turnSteps((self) => {
        const { callModel, tools } = boundTo(bindings, self);
        return {
          callModel,
          runTools: (input, tell, signal) => runTools(path, tools, input, tell, signal),
        };
      }),
      codeRun: codeRunMachine.provide({
        actors: { runCall: codeCallRunner(path, (self) => boundTo(bindings, self).tools) },
      }),
    },
  });

/**
 * The supervisor with the host's conversation and its log recovery plugged in.
 *
 * @internal
 */
export const hostSupervisor = (
  path: CallPath,
  bindings: Bindings,
  recover: (window: string) => Promise<Recovered>,
) =>
  supervisorMachine.provide({
    actors: {
      conversation: hostConversation(path, bindings),
      recover: recoverFrom(recover),
    },
  });
