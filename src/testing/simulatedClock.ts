import { SimulatedClock as XStateSimulatedClock } from "xstate";
import type { Clock } from "../runtime/ports/clock.ts";

/**
 * A clock whose time moves only when the test moves it. It is XState's
 * `SimulatedClock`, so it also drives machines made with XState's
 * `createActor(machine, { clock })`.
 */
export interface SimulatedClock extends Clock {
  /** Moves time on by `ms`, firing every timer due by then, in order. */
  increment(ms: number): void;
  /** Sets the time to `ms`, firing every timer due by then, in order. */
  set(ms: number): void;
}

/**
 * A {@link SimulatedClock} starting at `start` ms: every timer of the library
 * (coalescing, confirmations, the code deadline, rate limits) fires only when
 * the test calls `increment(ms)` or `set(ms)`.
 *
 * @example
 * ```ts
 * const clock = simulatedClock();
 * clock.increment(5 * 60 * 1000); // every timer due by then fires
 * ```
 */
export const simulatedClock = (start = 0): SimulatedClock => {
  const clock = new XStateSimulatedClock();
  clock.set(start);
  return clock;
};
