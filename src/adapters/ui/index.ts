/**
 * elyra-assistant/ui: the assistant in the browser. A client of the host's
 * routes, a store for any framework, and the `<elyra-assistant-panel>`
 * element (defined when this entry loads in a browser). No Node built-ins.
 *
 * @packageDocumentation
 */
import { defineAssistantPanel } from "./panel.ts";

export { isAppPath } from "../../runtime/commands/link.ts";
export type { ArgumentChange } from "../../runtime/log/argumentChanges.ts";
export type {
  PanelItem,
  PanelState,
  ScriptStep,
  Unconfirmed,
} from "../../runtime/log/panelItems.ts";
export { panelItems } from "../../runtime/log/panelItems.ts";
export type {
  AssistantSnapshot,
  AssistantStore,
  AssistantStoreOptions,
  WaitingQuestion,
} from "./assistantStore.ts";
export { createAssistantStore } from "./assistantStore.ts";
export type {
  AssistantClient,
  AssistantClientOptions,
  ConfirmEcho,
  ConfirmResponse,
  ConfirmResult,
  ErrorBody,
  LiveResult,
  SourceName,
  ToolInfo,
} from "./client.ts";
export { assistantClient } from "./client.ts";
export type { AssistantError } from "./errors.ts";
export { ConnectionError, HostError } from "./errors.ts";
export type { Backoff } from "./eventStream.ts";
export type { InstallOptions } from "./installed.ts";
export { assistant, installAssistant, openAssistant } from "./installed.ts";
export { stepHref } from "./links.ts";
export type { AssistantPaletteEntry, AssistantPaletteOptions } from "./palette.ts";
export { assistantPaletteEntry } from "./palette.ts";
export { AssistantPanel, defineAssistantPanel, PANEL_TAG } from "./panel.ts";
export type { AssistantSuggestion, AssistantWelcome } from "./welcome.ts";
export { DEFAULT_GREETING } from "./welcome.ts";

defineAssistantPanel();
