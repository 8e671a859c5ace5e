/**
 * What users test with: in-memory twins of every port, predictable ids and a
 * simulated clock.
 *
 * @packageDocumentation
 */
import { SimulatedClock } from "xstate";
import type { Clock } from "../runtime/clock.ts";
import type { RateLimitStore } from "../runtime/rateLimit.ts";

export { confirmationBroker } from "../actors/confirmationBroker.ts";
export { memoryStore } from "../actors/memoryStore.ts";
export { memoryRateLimitStore } from "../runtime/rateLimit.ts";
export { answeringConfirmer, silentConfirmer } from "./confirmers.ts";
export { type FakeModel, type FakeStep, fakeModel, responseOf } from "./fakeModel.ts";
export { countingIds } from "./ids.ts";
export {
  fails,
  isFailure,
  overloaded,
  refuses,
  type ScriptedFailure,
  type ScriptedReply,
  type ScriptedResponse,
  type ScriptedToolCall,
  says,
  toErrorBody,
  toMessage,
  toolCall,
  type WireError,
  type WireMessage,
} from "./script.ts";
export {
  type StandInMessagesApi,
  type StandInOptions,
  type StandInRequest,
  standInMessagesApi,
} from "./standInMessagesApi.ts";

/**
 * XState's `SimulatedClock`, which is also this library's `Clock`: time moves
 * only when the test calls `increment(ms)` or `set(ms)`.
 *
 * @example
 * ```ts
 * const clock = simulatedClock();
 * clock.increment(5 * 60 * 1000); // every timer due by then fires
 * ```
 */
export const simulatedClock = (start = 0): SimulatedClock & Clock => {
  const clock = new SimulatedClock();
  clock.set(start);
  return clock;
};

/** A rate-limit store whose every take fails, to show the call path fails closed. */
export const failingRateLimitStore = (): RateLimitStore => ({
  take: () => {
    throw new Error("rate-limit store unavailable");
  },
});
