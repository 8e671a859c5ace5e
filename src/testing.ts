/**
 * What users test with: in-memory twins of every port, predictable ids and a
 * simulated clock.
 *
 * @packageDocumentation
 */
import type { RateLimitStore } from "./runtime/calls/rateLimit.ts";

export { confirmationBroker } from "./actors/turn/confirmationBroker.ts";
export { memoryRateLimitStore } from "./runtime/calls/rateLimit.ts";
export {
  type MemoryLeases,
  memoryLeases,
  memoryStore,
  type SharedMemory,
  type SharedMemoryStore,
} from "./runtime/log/memoryStore.ts";
export { memorySecrets } from "./runtime/ports/secrets.ts";
export { type MemoryUsageStore, memoryUsageStore } from "./runtime/ports/usageStore.ts";
export {
  type AppUser,
  toolCallsOf,
  type UsersOptions,
  usersOf,
} from "./testing/appArbitraries.ts";
export { argumentsOf, invalidArgumentsOf, type SentArguments } from "./testing/arguments.ts";
export {
  type CallPathReport,
  type CheckCallPathOptions,
  checkCallPath,
  type ExpectedEnding,
} from "./testing/checkCallPath.ts";
export {
  CODE_TOOL,
  type CodeRunScript,
  codeCalls,
  codeFinished,
  codeRuns,
} from "./testing/codeScript.ts";
export { answeringConfirmer, editingConfirmer, silentConfirmer } from "./testing/confirmers.ts";
export { countingIds } from "./testing/countingIds.ts";
export {
  type FakeModel,
  type FakeModelOptions,
  type FakeStep,
  fakeModel,
  responseOf,
  wordsOf,
} from "./testing/fakeModel.ts";
export {
  type FaultyModel,
  faultyModel,
  type InjectedModelFault,
  type ModelFault,
  type ModelFaultPlan,
  type ModelStepInfo,
} from "./testing/faultyModel.ts";
export {
  type FaultRates,
  type FaultyStore,
  type FaultyStoreOptions,
  faultRates,
  faultyStore,
  type InjectedStoreFault,
  type StoreFault,
  type StoreFaultPlan,
  type StoreFaultScript,
  type StoreOp,
  type StoreOpKind,
  StoreUnavailable,
} from "./testing/faultyStore.ts";
export { type MayRun, type MayRunCall, type MayRunOptions, mayRun } from "./testing/mayRun.ts";
export {
  CACHE_LOOKBACK_BLOCKS,
  type CachedUsage,
  minimumCacheable,
  type PromptCache,
  type PromptCacheOptions,
  promptCache,
} from "./testing/promptCache.ts";
export {
  fails,
  isFailure,
  overloaded,
  refuses,
  type ScriptedFailure,
  type ScriptedReply,
  type ScriptedResponse,
  type ScriptedToolCall,
  ScriptInvalid,
  type StreamError,
  says,
  toErrorBody,
  toMessage,
  toolCall,
  type WireError,
  type WireMessage,
} from "./testing/script.ts";
export { type SimulatedClock, simulatedClock } from "./testing/simulatedClock.ts";
export {
  type StandInMessagesApi,
  type StandInOptions,
  type StandInRequest,
  standInMessagesApi,
} from "./testing/standInMessagesApi.ts";
export { encodeEvent, toStreamEvents, type WireStreamEvent } from "./testing/streamEvents.ts";
export {
  type ConfirmRule,
  type Ran,
  type TestApp,
  type TestAssistant,
  type TestTurn,
  testApp,
} from "./testing/testApp.ts";

/**
 * A rate-limit store whose every take fails, to show the call path fails closed.
 *
 * @example
 * ```ts
 * const t = testApp(app, { model, user, rateLimits: failingRateLimitStore() });
 * // A rate-limited command the model calls is refused, not run unlimited.
 * const turn = await t.assistant().prompt("Send Ada a reminder");
 * ```
 */
export const failingRateLimitStore = (): RateLimitStore => ({
  take: () => {
    throw new Error("rate-limit store unavailable");
  },
});
