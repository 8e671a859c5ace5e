/**
 * elyra-assistant/log: the log's vocabulary. Every change to a window is an
 * event in its log; this entry holds the events (their schemas), the folds
 * of a log (history, status, usage, selections, the panel's items), the
 * feeds a reader pulls, the event store's contract with its in-memory twin
 * and the leases hosts share a store by, the audit record of an agent's
 * call, and the digests a confirmation is asked by. What an app writes
 * every day (commands, the app, the host, the call path) is the root
 * entry, `elyra-assistant`.
 *
 * @example
 * ```ts
 * import { history, memoryStore } from "elyra-assistant/log";
 *
 * const store = memoryStore();
 * const past = history.fold(await store.read("conversation/w1", 0));
 * ```
 *
 * @packageDocumentation
 */

export type { EventFeed, Following } from "./actors/assistantWindow.ts";
export { FeedBehind } from "./actors/assistantWindow.ts";
export { MAX_BEHIND } from "./actors/log/follow.ts";
export type { Activity } from "./runtime/calls/audit.ts";
export { AgentCalled } from "./runtime/calls/audit.ts";
export { canonicalJson, digestOf } from "./runtime/calls/canonicalJson.ts";
export { StoreContractBroken } from "./runtime/errors.ts";
export type { ArgumentChange } from "./runtime/log/argumentChanges.ts";
export type { EventStore, StoreChange } from "./runtime/log/eventStore.ts";
export { AppendConflict } from "./runtime/log/eventStore.ts";
export type { EventOf, LogEventTag, NewEvent, UnstampedEvent } from "./runtime/log/events.ts";
export {
  Answered,
  Compacted,
  ConfirmAnswered,
  ConfirmRequested,
  ConversationOwned,
  Erased,
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
  ThreadArchived,
  ThreadRenamed,
  ToolFinished,
  ToolResultsCleared,
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
export { MAX_TITLE_CHARS } from "./runtime/log/threadEvents.ts";
export type {
  LeaseTaking,
  Membership,
  Writer,
  WriterLeases,
} from "./runtime/log/writerLeases.ts";
export { LeaseLost } from "./runtime/log/writerLeases.ts";
export type { MemoryThreads } from "./runtime/threads/memoryThreads.ts";
export { memoryThreads } from "./runtime/threads/memoryThreads.ts";
export type { ThreadChange, ThreadSummary, TurnText } from "./runtime/threads/summary.ts";
export { entryOf, threadSummary, titleOf, turnTextsOf } from "./runtime/threads/summary.ts";
export type {
  ThreadEntry,
  ThreadHit,
  ThreadIndex,
  ThreadListQuery,
  ThreadPage,
  ThreadSearchQuery,
} from "./runtime/threads/threadIndex.ts";
export {
  MAX_LIST_LIMIT,
  MAX_QUERY_CHARS,
  MAX_SEARCH_LIMIT,
  ThreadQueryInvalid,
} from "./runtime/threads/threadIndex.ts";
export { searchTerms, snippetOf, wordsOf } from "./runtime/threads/words.ts";
export {
  costOf,
  DEFAULT_PRICES,
  ModelPrice,
  PRICES_READ_ON,
  PriceTable,
  priceOf,
} from "./runtime/usage/prices.ts";
export type { Spending, TurnTally, UsageTally } from "./runtime/usage/spending.ts";
export {
  addTallies,
  EMPTY_TALLY,
  NO_SPENDING,
  SPENDING_TURNS_KEPT,
  spendingOf,
} from "./runtime/usage/spending.ts";
