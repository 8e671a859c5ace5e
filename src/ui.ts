/**
 * elyra-assistant/ui: the assistant in the browser. A client of the host's
 * routes, a store for any framework, and the `<elyra-assistant-panel>`
 * element (defined when this entry loads in a browser). No Node built-ins.
 *
 * @packageDocumentation
 */
import { defineAssistantPanel } from "./adapters/ui/panel.ts";

export type {
  AssistantSnapshot,
  AssistantStore,
  AssistantStoreOptions,
  WaitingQuestion,
} from "./adapters/ui/assistantStore.ts";
export { createAssistantStore } from "./adapters/ui/assistantStore.ts";
export type {
  AssistantClient,
  AssistantClientOptions,
  AssistantThreads,
  ConfirmEcho,
  ConfirmResponse,
  ConfirmResult,
  ErrorBody,
  LiveResult,
  SourceName,
  ThreadFound,
  ThreadInfo,
  ThreadListQuery,
  ToolInfo,
} from "./adapters/ui/client.ts";
export { assistantClient } from "./adapters/ui/client.ts";
export type { AssistantError } from "./adapters/ui/errors.ts";
export { ConnectionError, HostError } from "./adapters/ui/errors.ts";
export type { Backoff } from "./adapters/ui/eventStream.ts";
export type { InstallOptions } from "./adapters/ui/installed.ts";
export { assistant, installAssistant, openAssistant } from "./adapters/ui/installed.ts";
export { stepHref } from "./adapters/ui/links.ts";
export type { AssistantPaletteEntry, AssistantPaletteOptions } from "./adapters/ui/palette.ts";
export { assistantPaletteEntry } from "./adapters/ui/palette.ts";
export { AssistantPanel, defineAssistantPanel, PANEL_TAG } from "./adapters/ui/panel.ts";
export type { AssistantSuggestion, AssistantWelcome } from "./adapters/ui/welcome.ts";
export { DEFAULT_GREETING } from "./adapters/ui/welcome.ts";
export { isAppPath } from "./runtime/commands/link.ts";
export type { ArgumentChange } from "./runtime/log/argumentChanges.ts";
export type {
  PanelItem,
  PanelState,
  ScriptStep,
  Unconfirmed,
} from "./runtime/log/panelItems.ts";
export { panelItems } from "./runtime/log/panelItems.ts";

defineAssistantPanel();
