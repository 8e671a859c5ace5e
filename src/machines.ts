/**
 * elyra-assistant/machines: the XState machines the host runs (its
 * supervisor, a window's lifecycle, the conversation, a confirmation, a code
 * pause, the stream coalescer), for the visualizer, an inspector, or tests of your own, and
 * what the model is told: the system prompt, the window note, and the
 * sentences a turn ends with (for tests that assert them). Their types are XState's, so this
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

export type { CoalescerEmitted, CoalescerEvent } from "./machines/coalescerMachine.ts";
export { COALESCE_MS, coalescerMachine } from "./machines/coalescerMachine.ts";
export type { CodeRunContext, CodeRunInput, CodeRunOutput } from "./machines/codeRunMachine.ts";
export { codeRunMachine } from "./machines/codeRunMachine.ts";
export type { ConfirmationEvent, ConfirmationInput } from "./machines/confirmationMachine.ts";
export { confirmationMachine } from "./machines/confirmationMachine.ts";
export type {
  CallModelInput,
  ConversationContext,
  ConversationEmitted,
  ConversationEvent,
  ConversationInput,
  RunToolsInput,
  StepsCommand,
} from "./machines/conversationMachine.ts";
export { conversationMachine } from "./machines/conversationMachine.ts";
export type {
  CrashRecord,
  GiveUpReason,
  Recovered,
  RecoverInput,
  SupervisorContext,
  SupervisorEmitted,
  SupervisorEvent,
  SupervisorInput,
} from "./machines/supervisorMachine.ts";
export {
  conversationId,
  recoverFrom,
  recoveryId,
  supervisorMachine,
} from "./machines/supervisorMachine.ts";
export type { TurnStepsHandlers } from "./machines/turnSteps.ts";
export { turnSteps } from "./machines/turnSteps.ts";
export type {
  WindowContext,
  WindowConversation,
  WindowEvent,
  WindowFailure,
  WindowSnapshot,
  WindowTurn,
} from "./machines/windowMachine.ts";
export { windowMachine } from "./machines/windowMachine.ts";
export { ActorNotProvided } from "./runtime/errors.ts";
export { SCRIPT_CUT_SHORT } from "./runtime/log/panelItems.ts";
export { STOPPED_MARK } from "./runtime/log/projections.ts";
export {
  budgetSpent,
  INTERRUPTED,
  lateResult,
  REFUSED,
  stepsSpent,
  tooManyCodeCalls,
} from "./runtime/prompt/limits.ts";
export { systemPrompt, WINDOW_RULE } from "./runtime/prompt/systemPrompt.ts";
export type {
  NoteInput,
  NoteQuery,
  NoteSelection,
  QueryOrigin,
} from "./runtime/prompt/windowNote.ts";
export { NOTE_BOUNDS, windowNote } from "./runtime/prompt/windowNote.ts";
