/**
 * elyra-assistant: Claude inside your app, over the app's own commands.
 * What an app uses: commands and apps, the call path, the host and its
 * windows, the log's events and their folds, the ports with their defaults
 * and in-memory twins, the bounds you may set, and the errors. The machines
 * and the sentences they end a turn with are `elyra-assistant/machines`.
 *
 * @packageDocumentation
 */

export type {
  AnswerResult,
  ConfirmationAnswer,
  ConfirmationBroker,
} from "./actors/confirmationBroker.ts";
export { confirmationBroker } from "./actors/confirmationBroker.ts";
export type { Host, HostOptions } from "./actors/host.ts";
export { createHost, WindowOwnerMismatch } from "./actors/host.ts";
export type { InspectionEvent, InspectObserver } from "./actors/inspection.ts";
export type { LiveClient, LiveRegistry, LiveResult } from "./actors/liveQueries.ts";
export { LiveQueryRefused, MAX_LIVE_QUERIES } from "./actors/liveQueries.ts";
export { memoryStore } from "./actors/memoryStore.ts";
export type { AssistantWindow, PromptInput, TurnEnd } from "./actors/window.ts";
export { PromptRefused, SelectionRefused } from "./actors/window.ts";
export { MissingPeerDependency } from "./adapters/peer.ts";
export { covers, isAbility, isAbilityPattern, resourceOf } from "./runtime/abilities.ts";
export type { App, AppSpec, AssistantOptions, Grant, GrantOptions } from "./runtime/app.ts";
export { AssistantConfig, createApp, GrantConfig } from "./runtime/app.ts";
export type { Activity } from "./runtime/audit.ts";
export { AgentCalled } from "./runtime/audit.ts";
export type { CallContext, CallPath, CallPathOptions, ToolCall } from "./runtime/callPath.ts";
export { createCallPath } from "./runtime/callPath.ts";
export { canonicalJson, digestOf } from "./runtime/canonicalJson.ts";
export type { Tool } from "./runtime/catalog.ts";
export { catalog, offered, toolOf } from "./runtime/catalog.ts";
export type { Clock } from "./runtime/clock.ts";
export { systemClock } from "./runtime/clock.ts";
export type {
  AnyCommand,
  AnySchema,
  Command,
  CommandContext,
  CommandSpec,
  JsonSchema,
} from "./runtime/command.ts";
export { defineCommand } from "./runtime/command.ts";
export type {
  ConfirmAnswer,
  Confirmer,
  ConfirmReply,
  ConfirmRequest,
} from "./runtime/confirmation.ts";
export { CONFIRM_TIMEOUT_MS } from "./runtime/confirmation.ts";
export { AppConfigError, CommandDefinitionError, StoreContractBroken } from "./runtime/errors.ts";
export type { EventOf, LogEventTag, NewEvent, UnstampedEvent } from "./runtime/events.ts";
export {
  Answered,
  ConfirmAnswered,
  ConfirmRequested,
  Failed,
  LogEvent,
  PROTOCOL_VERSION,
  Reset,
  ScriptFinished,
  ScriptStarted,
  SelectionChanged,
  StepFinished,
  StepStarted,
  Stopped,
  TextDelta,
  ToolFinished,
  ToolStarted,
  TurnStarted,
  Usage,
} from "./runtime/events.ts";
export type { Ids } from "./runtime/ids.ts";
export { randomIds } from "./runtime/ids.ts";
export type { Issue } from "./runtime/issues.ts";
export { CODE_CALL_DEADLINE_MS, MAX_CODE_CALLS } from "./runtime/limits.ts";
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
  StopReason,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
} from "./runtime/model.ts";
export { ModelError } from "./runtime/model.ts";
export type { Caller, Origin, Register, RunOrigin, User } from "./runtime/origin.ts";
export type { AuditOutcome, CallOutcome } from "./runtime/outcome.ts";
export { formatOutcome, ran } from "./runtime/outcome.ts";
export type { PanelItem, PanelState, ScriptStep } from "./runtime/panelItems.ts";
export { panelItems } from "./runtime/panelItems.ts";
export type {
  HistoryState,
  Projection,
  SelectionsState,
  StatusState,
  UsageState,
} from "./runtime/projections.ts";
export { history, selections, status, usage } from "./runtime/projections.ts";
export type { RateDecision, RateLimit, RateLimitStore } from "./runtime/rateLimit.ts";
export { memoryRateLimitStore } from "./runtime/rateLimit.ts";
export type { Secrets } from "./runtime/secrets.ts";
export { memorySecrets } from "./runtime/secrets.ts";
export type { EventStore } from "./runtime/store.ts";
export { AppendConflict } from "./runtime/store.ts";
export { systemPrompt } from "./runtime/systemPrompt.ts";
export type { UsageCounts, UsageStore, UsageTotals } from "./runtime/usageStore.ts";
export { memoryUsageStore } from "./runtime/usageStore.ts";
export type { NoteInput, NoteQuery, NoteSelection, QueryOrigin } from "./runtime/windowNote.ts";
export { NOTE_BOUNDS, windowNote } from "./runtime/windowNote.ts";
