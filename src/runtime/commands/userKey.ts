/** Who a user is, as one string: the key their windows, limits, usage and secrets are kept under. */
import type { User } from "./origin.ts";

/** A user's key unless the host is given `userKey`: `id`, else `name`, else the value as JSON. */
export const defaultUserKey = (user: User): string => {
  const u = user as { id?: unknown; name?: unknown } | null;
  if (u !== null && typeof u === "object" && (typeof u.id === "string" || typeof u.id === "number"))
    return `id:${u.id}`;
  if (u !== null && typeof u === "object" && typeof u.name === "string") return `name:${u.name}`;
  return `value:${JSON.stringify(user)}`;
};
