/**
 * What users test with: in-memory twins of every port, predictable ids and a
 * simulated clock.
 *
 * @packageDocumentation
 */
import type { RateLimitStore } from "../runtime/calls/rateLimit.ts";

export { confirmationBroker } from "../actors/turn/confirmationBroker.ts";
export { memoryRateLimitStore } from "../runtime/calls/rateLimit.ts";
export {
  type MemoryLeases,
  memoryLeases,
  memoryStore,
  type SharedMemory,
  type SharedMemoryStore,
} from "../runtime/log/memoryStore.ts";
export { memorySecrets } from "../runtime/ports/secrets.ts";
export { memoryUsageStore } from "../runtime/ports/usageStore.ts";
export {
  type AppUser,
  toolCallsOf,
  type UsersOptions,
  usersOf,
} from "./appArbitraries.ts";
export { argumentsOf, invalidArgumentsOf, type SentArguments } from "./arguments.ts";
export {
  type CallPathReport,
  type CheckCallPathOptions,
  checkCallPath,
  type ExpectedEnding,
} from "./checkCallPath.ts";
export {
  CODE_TOOL,
  type CodeRunScript,
  codeCalls,
  codeFinished,
  codeRuns,
} from "./codeScript.ts";
export { answeringConfirmer, editingConfirmer, silentConfirmer } from "./confirmers.ts";
export { countingIds } from "./countingIds.ts";
export {
  type FakeModel,
  type FakeModelOptions,
  type FakeStep,
  fakeModel,
  responseOf,
  wordsOf,
} from "./fakeModel.ts";
export {
  type FaultyModel,
  faultyModel,
  type InjectedModelFault,
  type ModelFault,
  type ModelFaultPlan,
  type ModelStepInfo,
} from "./faultyModel.ts";
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
} from "./faultyStore.ts";
export { type MayRun, type MayRunCall, type MayRunOptions, mayRun } from "./mayRun.ts";
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
} from "./script.ts";
export { type SimulatedClock, simulatedClock } from "./simulatedClock.ts";
export {
  type StandInMessagesApi,
  type StandInOptions,
  type StandInRequest,
  standInMessagesApi,
} from "./standInMessagesApi.ts";
export { encodeEvent, toStreamEvents, type WireStreamEvent } from "./streamEvents.ts";
export {
  type ConfirmRule,
  type Ran,
  type TestApp,
  type TestAssistant,
  type TestTurn,
  testApp,
} from "./testApp.ts";

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
