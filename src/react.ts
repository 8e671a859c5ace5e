/**
 * elyra-assistant/react: the browser store (`elyra-assistant/ui`) as React
 * hooks. `<AssistantProvider client={…}>` shares one window's client and
 * store; `useAssistant()` reads the snapshot with `useSyncExternalStore` and
 * gives the actions; `useLiveQuery(command, args)` follows a live query;
 * `useThreads()` and `useThread(id)` read the user's conversations.
 * React (18.3 or 19) is an optional peer: without it this entry fails on
 * import, naming the package to install. Safe to import and render on a
 * server: nothing touches `window` or opens a stream until a component
 * mounts in a browser. The client, the store and the link check are
 * exported here too: `elyra-assistant/ui` defines `<elyra-assistant-panel>`
 * when it loads, and would bring the built-in panel into a React app's bundle.
 *
 * @packageDocumentation
 */

export type { AssistantContextValue, AssistantProviderProps } from "./adapters/react/provider.ts";
export { AssistantProvider } from "./adapters/react/provider.ts";
export type { AssistantActions, UseAssistant } from "./adapters/react/useAssistant.ts";
export { useAssistant } from "./adapters/react/useAssistant.ts";
export type { LiveQueryState } from "./adapters/react/useLiveQuery.ts";
export { useLiveQuery } from "./adapters/react/useLiveQuery.ts";
export type {
  ThreadState,
  ThreadsState,
  UseThreadsOptions,
} from "./adapters/react/useThreads.ts";
export { useThread, useThreads } from "./adapters/react/useThreads.ts";
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
  ConfirmResult,
  LiveResult,
  ThreadFound,
  ThreadInfo,
  ThreadListQuery,
} from "./adapters/ui/client.ts";
export { assistantClient } from "./adapters/ui/client.ts";
export type { AssistantError } from "./adapters/ui/errors.ts";
export { ConnectionError, HostError } from "./adapters/ui/errors.ts";
export { stepHref } from "./adapters/ui/links.ts";
export { isAppPath } from "./runtime/commands/link.ts";
export type { ArgumentChange } from "./runtime/log/argumentChanges.ts";
export type { PanelItem, ScriptStep } from "./runtime/log/panelItems.ts";
