/**
 * The property helpers themselves: ELYRA_PROPERTY_SCALE is read strictly, and
 * the wire arbitraries draw only values JSON gives back unchanged.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { propertyScale, runs, SCALE_VARIABLE, timeoutFor } from "./runs.ts";
import { overTheWire, wireDouble, wireJsonValue } from "./wire.ts";

describe("ELYRA_PROPERTY_SCALE", () => {
  it("is 1 when unset or empty, and any positive finite number when set", () => {
    expect(propertyScale(undefined)).toBe(1);
    expect(propertyScale("")).toBe(1);
    expect(propertyScale("10")).toBe(10);
    expect(propertyScale("0.5")).toBe(0.5);
    expect(propertyScale(" 2 ")).toBe(2);
  });

  it("refuses anything else, naming the variable and the value", () => {
    for (const raw of ["0", "-1", "ten", "Infinity", "NaN", "1e400", "10x"])
      expect(() => propertyScale(raw), raw).toThrow(
        `${SCALE_VARIABLE} must be a positive finite number (such as 10), not "${raw}"`,
      );
  });

  it("scales runs (at least 1) and, above 1, timeouts", () => {
    const scale = propertyScale(process.env[SCALE_VARIABLE]);
    expect(runs(1000)).toBe(Math.ceil(1000 * scale));
    expect(runs(0)).toBe(1);
    expect(timeoutFor(120_000)).toBe(scale > 1 ? Math.ceil(120_000 * scale) : 120_000);
    expect(timeoutFor()).toBe(scale > 1 ? Math.ceil(30_000 * scale) : 30_000);
  });
});

describe("the wire arbitraries", () => {
  it("a -0 does not survive JSON: why they exist (S2's counterexample)", () => {
    expect(overTheWire({ "": -0 })).not.toEqual({ "": -0 });
    expect(overTheWire({ "": -0 })).toEqual({ "": 0 });
  });

  it(
    "draw only values JSON gives back unchanged",
    () => {
      fc.assert(
        fc.property(wireJsonValue(), wireDouble(), (value, x) => {
          expect(overTheWire(value)).toEqual(value);
          expect(Object.is(overTheWire(x), x)).toBe(true);
        }),
        { numRuns: runs(10_000) },
      );
    },
    timeoutFor(),
  );
});
