/**
 * elyra-assistant: Claude inside your app, over the app's own commands.
 * What an app writes every day: commands and apps, the call path and its
 * outcomes, the host and its windows, the ports with their defaults and
 * in-memory twins, the bounds you may set, and the errors. The log's
 * vocabulary (its events, folds, feeds and the event store's contract) is
 * `elyra-assistant/log`; the machines, and what the model is told (the
 * system prompt, the window note, the sentences a turn ends with), are
 * `elyra-assistant/machines`.
 *
 * @packageDocumentation
 */

export type {
  ConversationUsage,
  Erasure,
  Host,
  HostOptions,
  HostThreads,
  UserUsage,
} from "./actors/host/host.ts";
export {
  createHost,
  HostConfigError,
  HostFull,
  IDLE_WINDOW_MS,
  MAX_STREAMS_PER_USER,
  MAX_STREAMS_PER_WINDOW,
  MAX_WINDOWS,
  StreamsRefused,
  ThreadNotFound,
  WindowOwnerMismatch,
} from "./actors/host/host.ts";
export type { InspectionEvent, InspectObserver } from "./actors/support/inspection.ts";
export type { LiveClient, LiveRegistry, LiveResult } from "./actors/support/liveQueries.ts";
export { LiveQueryRefused, MAX_LIVE_QUERIES } from "./actors/support/liveQueries.ts";
export type {
  AnswerResult,
  ConfirmationAnswer,
  ConfirmationBroker,
  ConfirmationSettled,
} from "./actors/turn/confirmationBroker.ts";
export { confirmationBroker } from "./actors/turn/confirmationBroker.ts";
export type { AssistantWindow, PromptInput, TurnEnd } from "./actors/window/window.ts";
export { PromptRefused, SelectionRefused } from "./actors/window/window.ts";
export { MissingPeerDependency } from "./adapters/peer.ts";
export type { ConfirmEcho } from "./runtime/calls/answerResult.ts";
export type { CallContext, CallPath, CallPathOptions, ToolCall } from "./runtime/calls/callPath.ts";
export { createCallPath } from "./runtime/calls/callPath.ts";
export type {
  ConfirmAnswer,
  Confirmer,
  ConfirmReply,
  ConfirmRequest,
  EditableField,
} from "./runtime/calls/confirmer.ts";
export { CONFIRM_TIMEOUT_MS } from "./runtime/calls/confirmer.ts";
export type { AuditOutcome, CallEnding, CallOutcome } from "./runtime/calls/outcome.ts";
export { formatOutcome, ran } from "./runtime/calls/outcome.ts";
export type { RateDecision, RateLimit, RateLimitStore } from "./runtime/calls/rateLimit.ts";
export { memoryRateLimitStore } from "./runtime/calls/rateLimit.ts";
export { covers, isAbility, isAbilityPattern, resourceOf } from "./runtime/commands/abilities.ts";
export type {
  App,
  AppSpec,
  AssistantOptions,
  Grant,
  GrantOptions,
} from "./runtime/commands/app.ts";
export { AssistantConfig, createApp, GrantConfig } from "./runtime/commands/app.ts";
export type { Tool } from "./runtime/commands/catalog.ts";
export { catalog, offered, toolOf } from "./runtime/commands/catalog.ts";
export type {
  AnyCommand,
  AnySchema,
  Command,
  CommandContext,
  CommandSpec,
  JsonSchema,
} from "./runtime/commands/command.ts";
export { defineCommand } from "./runtime/commands/command.ts";
export type {
  ConfirmationSpec,
  ConfirmLabel,
  ConfirmLabelContext,
} from "./runtime/commands/confirmation.ts";
export { CONFIRM_LABEL_TIMEOUT_MS } from "./runtime/commands/confirmation.ts";
export type { Issue } from "./runtime/commands/issues.ts";
export type { Caller, Origin, Register, RunOrigin, User } from "./runtime/commands/origin.ts";
export type { McpToolHints } from "./runtime/commands/toolHints.ts";
export { AppConfigError, CommandDefinitionError } from "./runtime/errors.ts";
export type { Clock } from "./runtime/ports/clock.ts";
export { systemClock } from "./runtime/ports/clock.ts";
export type { Ids } from "./runtime/ports/ids.ts";
export { randomIds } from "./runtime/ports/ids.ts";
export type { Secrets } from "./runtime/ports/secrets.ts";
export { memorySecrets } from "./runtime/ports/secrets.ts";
export type { UsageCounts, UsageStore, UsageTotals } from "./runtime/ports/usageStore.ts";
export { memoryUsageStore } from "./runtime/ports/usageStore.ts";
export { CODE_CALL_DEADLINE_MS, MAX_CODE_CALLS } from "./runtime/prompt/limits.ts";
export type {
  ClientTool,
  ContentBlock,
  Message,
  Model,
  ModelErrorKind,
  ModelRequest,
  ModelResponse,
  ModelTool,
  ServerTool,
  StepOptions,
  StopDetails,
  StopReason,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
} from "./runtime/prompt/model.ts";
export { ModelError } from "./runtime/prompt/model.ts";

export { VERSION } from "./runtime/version.ts";
