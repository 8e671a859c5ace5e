import { SimulatedClock } from "xstate";
import type { Clock } from "../runtime/clock.ts";

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
