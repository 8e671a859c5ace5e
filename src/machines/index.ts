/**
 * elyra-assistant/machines: the XState machines the host runs (the
 * conversation, a confirmation, a code pause, the stream coalescer), for the
 * visualizer, an inspector, or tests of your own, and the sentences a turn
 * ends with (for tests that assert them). Their types are XState's, so this
 * entry is the one whose declarations import `xstate`.
 *
 * @example
 * ```ts
 * import { createActor } from "xstate";
 * import { confirmationMachine } from "elyra-assistant/machines";
 *
 * const confirmation = createActor(confirmationMachine, {
 *   input: { confirmId: "c-1", tool: "customers_destroy", digest: "…" },
 * }).start();
 * confirmation.send({ type: "ANSWER", accept: true });
 * ```
 *
 * @packageDocumentation
 */

export {
  budgetSpent,
  INTERRUPTED,
  lateResult,
  REFUSED,
  stepsSpent,
  tooManyCodeCalls,
} from "../runtime/limits.ts";
export { SCRIPT_CUT_SHORT } from "../runtime/panelItems.ts";
export { STOPPED_MARK } from "../runtime/projections.ts";
export { WINDOW_RULE } from "../runtime/systemPrompt.ts";
export type { CoalescerEmitted, CoalescerEvent } from "./coalescer.ts";
export { COALESCE_MS, coalescerMachine } from "./coalescer.ts";
export type { CodeRunContext, CodeRunInput, CodeRunOutput } from "./codeRun.ts";
export { codeRunMachine } from "./codeRun.ts";
export type { ConfirmationEvent, ConfirmationInput } from "./confirmation.ts";
export { confirmationMachine } from "./confirmation.ts";
export type {
  CallModelInput,
  ConversationContext,
  ConversationEmitted,
  ConversationEvent,
  ConversationInput,
  RunToolsInput,
} from "./conversation.ts";
export { conversationMachine } from "./conversation.ts";
