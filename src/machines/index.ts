/**
 * elyra-assistant/machines: the XState machines the host runs (the
 * conversation, a confirmation, a code pause, the stream coalescer), for the
 * visualizer, an inspector, or tests of your own. Their types are XState's,
 * so this entry is the one whose declarations import `xstate`.
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
