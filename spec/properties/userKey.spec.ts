/**
 * K1: two users share a key exactly when they are the same user: the same
 * `id` (its type counts: the number 1 is not the string "1"), or, with no
 * id, the same `name`. A user with neither has no stable key, and no
 * secret slot: never one built from all they carry.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  defaultUserKey,
  NoKeySlot,
  secretSlotOf,
  stableUserKey,
} from "../../src/runtime/commands/userKey.ts";
import { runs } from "./runs.ts";

/** Ids as apps have them: integers, numbers, strings that spell numbers, and other strings. */
const id = fc.oneof(
  fc.integer(),
  fc.double({ noDefaultInfinity: false }),
  fc.integer().map(String),
  fc.double().map(String),
  fc.constantFrom("NaN", "Infinity", "-0", "0", "1e21", "01", " 1"),
  fc.string({ minLength: 1, maxLength: 6 }),
);
const user = fc.oneof(
  fc.record({ id, name: fc.option(fc.string({ maxLength: 4 }), { nil: undefined }) }),
  fc.record({ name: fc.string({ minLength: 1, maxLength: 6 }) }),
  fc.record({ session: fc.string({ maxLength: 8 }) }),
);

/** The user's identity as this library defines it: the id with its type, else the name. */
const identity = (user: object): string | undefined => {
  const u = user as { id?: unknown; name?: unknown };
  if (typeof u.id === "number") return `number ${Object.is(u.id, -0) ? 0 : u.id}`;
  if (typeof u.id === "string" && u.id !== "") return `string ${u.id}`;
  if (typeof u.name === "string" && u.name !== "") return `name ${u.name}`;
  return undefined;
};

describe("users' keys", () => {
  it("two users share a key exactly when they are the same user", () => {
    fc.assert(
      fc.property(user, user, (a, b) => {
        const same = identity(a) !== undefined && identity(a) === identity(b);
        const keyA = stableUserKey(a);
        expect(keyA === undefined).toBe(identity(a) === undefined);
        if (keyA !== undefined) expect(keyA === stableUserKey(b)).toBe(same);
      }),
      { numRuns: runs(5_000) },
    );
  });

  it("a user with neither id nor name has no secret slot, and their key names all they carry", () => {
    fc.assert(
      fc.property(fc.record({ session: fc.string({ maxLength: 8 }) }), (visitor) => {
        expect(() => secretSlotOf(visitor)).toThrow(NoKeySlot);
        expect(defaultUserKey(visitor)).toBe(`value:${JSON.stringify(visitor)}`);
      }),
      { numRuns: runs(1_000) },
    );
  });

  it("keys that were already told apart keep their text: id:7, id:u-7, name:Ada", () => {
    expect(stableUserKey({ id: 7 })).toBe("id:7");
    expect(stableUserKey({ id: "u-7" })).toBe("id:u-7");
    expect(stableUserKey({ id: "7" })).toBe('id:"7"');
    expect(stableUserKey({ name: "Ada" })).toBe("name:Ada");
  });
});
