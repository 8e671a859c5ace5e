/** Who a user is, as one string: the key their windows, limits, usage and secrets are kept under. */
import { Data } from "effect";
import type { User } from "./origin.ts";

/** Whether `text` is how JavaScript writes some number (`"42"`, `"1e21"`, `"NaN"`), so a string id could pass for a number one. */
const spellsANumber = (text: string): boolean => String(Number(text)) === text;

/**
 * A user's key when they have a stable one: `id:<id>` for an `id` that is a
 * number or a non-empty string (a string that spells a number is quoted,
 * `id:"1"`, so it never shares the key of the number 1), else `name:<name>`
 * for a non-empty `name`; undefined for a user with neither.
 *
 * @example
 * ```ts
 * stableUserKey({ id: 7 }); // "id:7"
 * stableUserKey({ id: "7" }); // 'id:"7"'
 * stableUserKey({ id: "u-7" }); // "id:u-7"
 * stableUserKey({ token: "…" }); // undefined
 * ```
 */
export const stableUserKey = (user: User): string | undefined => {
  const u = user as { id?: unknown; name?: unknown } | null;
  if (u === null || typeof u !== "object") return undefined;
  if (typeof u.id === "number") return `id:${u.id}`;
  if (typeof u.id === "string" && u.id !== "")
    return spellsANumber(u.id) ? `id:${JSON.stringify(u.id)}` : `id:${u.id}`;
  if (typeof u.name === "string" && u.name !== "") return `name:${u.name}`;
  return undefined;
};

/**
 * A user's key unless the host is given `userKey`: their {@link stableUserKey},
 * else the value as JSON (so a user with neither `id` nor `name` still owns
 * their windows, but is kept under all they carry).
 */
export const defaultUserKey = (user: User): string =>
  stableUserKey(user) ?? `value:${JSON.stringify(user)}`;

/**
 * A user with no stable key was to have a secret kept for them: a secret is
 * never kept under the whole user (which may carry a session's token).
 * `modelSource` takes such a user to have no key of their own; a custom
 * `userKey` may throw it too.
 *
 * @example
 * ```ts
 * const source = modelSource({
 *   secrets,
 *   userKey: (user) => {
 *     if (user.name === "") throw new NoKeySlot({ message: "a user with no name keeps no key" });
 *     return `crm:${user.name}`;
 *   },
 * });
 * ```
 */
export class NoKeySlot extends Data.TaggedError("NoKeySlot")<{ readonly message: string }> {}

/**
 * Where a user's own secrets are kept by default: their {@link stableUserKey};
 * a user with none throws {@link NoKeySlot}.
 */
export const secretSlotOf = (user: User): string => {
  const key = stableUserKey(user);
  if (key !== undefined) return key;
  throw new NoKeySlot({
    message:
      "This user has neither an id nor a name, so no key of their own can be kept for them: give users an id, or modelSource a userKey.",
  });
};
