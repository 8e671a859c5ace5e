/**
 * Time, injected. The shape is XState's `Clock` plus `now()`, so XState's
 * `SimulatedClock` drives every timer of the library in tests.
 */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: each clock has its own handle type
  clearTimeout(handle: any): void;
}

/**
 * The wall clock and the platform's timers: the default of every `clock`
 * option. Tests pass XState's `SimulatedClock` instead, to move time by hand.
 *
 * @example
 * ```ts
 * const host = createHost(app, { model, clock: systemClock }); // as when no clock is given
 * const timer = systemClock.setTimeout(() => console.log("a second later"), 1_000);
 * systemClock.clearTimeout(timer);
 * ```
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle),
};
