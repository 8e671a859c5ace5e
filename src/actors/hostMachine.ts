/**
 * The conversation machine with the host's actors plugged in: one machine
 * for all windows, each window's model and tools found through its actor
 * system.
 */
import { fromPromise } from "xstate";
import { codeRunMachine } from "../machines/codeRunMachine.ts";
import { type CallModelInput, conversationMachine } from "../machines/conversationMachine.ts";
import type { CallPath } from "../runtime/calls/callPath.ts";
import type { ModelResponse } from "../runtime/prompt/model.ts";
import { codeCallRunner, type ToolRunnerWindow, toolRunner } from "./toolRunner.ts";

/**
 * What the host's one conversation machine needs of each window, found by its actor system.
 *
 * @internal
 */
export interface WindowBinding {
  readonly callModel: (input: CallModelInput, signal: AbortSignal) => Promise<ModelResponse>;
  readonly tools: ToolRunnerWindow;
}

/**
 * The conversation machine with the host's actors plugged in, once for all windows.
 *
 * @internal
 */
export const hostMachine = (path: CallPath, bindings: WeakMap<object, WindowBinding>) => {
  const bound = (system: unknown): WindowBinding => {
    const binding = bindings.get(system as object);
    if (binding === undefined) throw new Error("no window is bound to this actor system");
    return binding;
  };
  return conversationMachine.provide({
    actors: {
      callModel: fromPromise<ModelResponse, CallModelInput>(({ input, signal, system }) =>
        bound(system).callModel(input, signal),
      ),
      runTools: toolRunner(path, (system) => bound(system).tools),
      codeRun: codeRunMachine.provide({
        actors: { runCall: codeCallRunner(path, (system) => bound(system).tools) },
      }),
    },
  });
};
