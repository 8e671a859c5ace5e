/**
 * elyra-assistant: Claude inside your app, over the app's own commands.
 *
 * @packageDocumentation
 */

export type {
  AnswerResult,
  ConfirmationAnswer,
  ConfirmationBroker,
} from "./actors/confirmationBroker.ts";
export { confirmationBroker } from "./actors/confirmationBroker.ts";
export { memoryStore } from "./actors/memoryStore.ts";
export { covers, isAbility, isAbilityPattern } from "./runtime/abilities.ts";
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
export { AppConfigError, CommandDefinitionError } from "./runtime/errors.ts";
export type { Ids } from "./runtime/ids.ts";
export { randomIds } from "./runtime/ids.ts";
export type { Issue } from "./runtime/issues.ts";
export { isAppPath, percentEncode } from "./runtime/link.ts";
export type { Caller, Origin, Register, User } from "./runtime/origin.ts";
export type { AuditOutcome, CallOutcome } from "./runtime/outcome.ts";
export { formatOutcome, ran } from "./runtime/outcome.ts";
export type { RateDecision, RateLimit, RateLimitStore } from "./runtime/rateLimit.ts";
export { memoryRateLimitStore } from "./runtime/rateLimit.ts";
