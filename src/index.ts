/**
 * elyra-assistant: Claude inside your app, over the app's own commands.
 * What an app uses: commands and apps, the call path, the host and its
 * windows, the log's events and their folds, the ports with their defaults
 * and in-memory twins, the bounds you may set, and the errors. The machines
 * and the sentences they end a turn with are `elyra-assistant/machines`.
 *
 * @packageDocumentation
 */

export type { EventFeed, Following } from "./actors/assistantWindow.ts";
export { FeedBehind } from "./actors/assistantWindow.ts";
export type { Host, HostOptions } from "./actors/host/host.ts";
export {
  createHost,
  HostConfigError,
  HostFull,
  IDLE_WINDOW_MS,
  MAX_STREAMS_PER_USER,
  MAX_STREAMS_PER_WINDOW,
  MAX_WINDOWS,
  StreamsRefused,
  WindowOwnerMismatch,
} from "./actors/host/host.ts";
export { MAX_BEHIND } from "./actors/log/follow.ts";
export type { InspectionEvent, InspectObserver } from "./actors/shared/inspection.ts";
export type { LiveClient, LiveRegistry, LiveResult } from "./actors/shared/liveQueries.ts";
export { LiveQueryRefused, MAX_LIVE_QUERIES } from "./actors/shared/liveQueries.ts";
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
export type { Activity } from "./runtime/calls/audit.ts";
export { AgentCalled } from "./runtime/calls/audit.ts";
export type { CallContext, CallPath, CallPathOptions, ToolCall } from "./runtime/calls/callPath.ts";
export { createCallPath } from "./runtime/calls/callPath.ts";
export { canonicalJson, digestOf } from "./runtime/calls/canonicalJson.ts";
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
export { AppConfigError, CommandDefinitionError, StoreContractBroken } from "./runtime/errors.ts";
export type { ArgumentChange } from "./runtime/log/argumentChanges.ts";
export type { EventStore, StoreChange } from "./runtime/log/eventStore.ts";
export { AppendConflict } from "./runtime/log/eventStore.ts";
export type { EventOf, LogEventTag, NewEvent, UnstampedEvent } from "./runtime/log/events.ts";
export {
  Answered,
  ConfirmAnswered,
  ConfirmRequested,
  Failed,
  LogEvent,
  PROTOCOL_VERSION,
  Reset,
  ScriptCodeDelta,
  ScriptFinished,
  ScriptStarted,
  ScriptWriting,
  SelectionChanged,
  StepFinished,
  StepStarted,
  Stopped,
  TextDelta,
  ToolFinished,
  ToolStarted,
  TurnStarted,
  Usage,
  WindowOwned,
} from "./runtime/log/events.ts";
export type { SharedMemory, SharedMemoryStore } from "./runtime/log/memoryStore.ts";
export { memoryStore } from "./runtime/log/memoryStore.ts";
export type { PanelItem, PanelState, ScriptStep } from "./runtime/log/panelItems.ts";
export { panelItems } from "./runtime/log/panelItems.ts";
export type {
  HistoryState,
  Projection,
  SelectionsState,
  StatusState,
  UsageState,
} from "./runtime/log/projections.ts";
export { history, selections, status, usage } from "./runtime/log/projections.ts";
export type {
  LeaseTaking,
  Membership,
  Writer,
  WriterLeases,
} from "./runtime/log/writerLeases.ts";
export { LeaseLost } from "./runtime/log/writerLeases.ts";
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
export { systemPrompt } from "./runtime/prompt/systemPrompt.ts";
export type {
  NoteInput,
  NoteQuery,
  NoteSelection,
  QueryOrigin,
} from "./runtime/prompt/windowNote.ts";
export { NOTE_BOUNDS, windowNote } from "./runtime/prompt/windowNote.ts";

export { VERSION } from "./runtime/version.ts";
