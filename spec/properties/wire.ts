/**
 * Values as a JSON wire carries them. A property that sends a value over JSON
 * and compares what arrives with what it drew must draw only values JSON gives
 * back unchanged: `fc.jsonValue()` and `fc.double()` draw -0, which JSON writes
 * as `0` (and `toEqual` tells -0 from 0), so such a property fails on the seeds
 * that draw one, though nothing is wrong. NaN and the infinities (written as
 * `null`) are the other doubles JSON changes; lone surrogates it carries, as
 * `\udXXX` escapes.
 */
import fc from "fast-check";

/** `value` as it arrives over a JSON wire: written with JSON.stringify, read with JSON.parse. */
export const overTheWire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** -0 as the 0 JSON writes for it; any other value as it is. */
const noNegativeZero = (x: number): number => (x === 0 ? 0 : x);

/** Any double JSON gives back unchanged: finite, and never -0. */
export const wireDouble = (constraints: fc.DoubleConstraints = {}): fc.Arbitrary<number> =>
  fc.double({ ...constraints, noNaN: true, noDefaultInfinity: true }).map(noNegativeZero);

/**
 * `fc.jsonValue`, each value as it arrives over the wire: its -0s are 0 (the
 * only thing JSON changes in what `fc.jsonValue` draws; an own `__proto__` key
 * stays an own key, as JSON.parse makes it).
 */
export const wireJsonValue = (
  constraints: fc.JsonSharedConstraints = {},
): fc.Arbitrary<fc.JsonValue> => fc.jsonValue(constraints).map(overTheWire);
