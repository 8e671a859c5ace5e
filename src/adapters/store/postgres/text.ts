/**
 * What PostgreSQL accepts of the store's text: table and schema names, and
 * strings jsonb can hold (no NUL, no half of a surrogate pair).
 */
import { PostgresConfigError } from "./errors.ts";

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** PostgreSQL cuts longer names to 63 bytes. */
const MAX_IDENTIFIER = 63;
/** A NUL, or a surrogate that is not half of a pair (in `u` mode a whole pair is one code point). */
const UNSTORABLE = /\0|\p{Cs}/u;
const UNSTORABLE_ALL = /\0|\p{Cs}/gu;

export const identifier = (
  what: string,
  value: unknown,
  fallback: string,
  max = MAX_IDENTIFIER,
): string => {
  if (value === undefined) return fallback;
  if (typeof value !== "string" || !IDENTIFIER.test(value) || value.length > max)
    throw new PostgresConfigError({
      reason: `the ${what} must be a name of letters, digits and _, not starting with a digit, at most ${max} long, not ${JSON.stringify(value)}`,
    });
  return value;
};

/**
 * `value` with every NUL and every half of a surrogate pair, in strings and
 * keys, made U+FFFD, as UTF-8 writes them: jsonb refuses both, and a user can
 * type or paste them. Only an event that has one is copied.
 */
export const storable = <T>(value: T): T => {
  if (typeof value === "string") return value.replace(UNSTORABLE_ALL, "\uFFFD") as T;
  if (Array.isArray(value)) return value.map(storable) as T;
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(
      Object.entries(value).map(([key, v]) => [storable(key), storable(v)]),
    ) as T;
  return value;
};

/** Whether a string anywhere in `value` (a key too) is one jsonb refuses. */
export const unstorable = (value: unknown): boolean => {
  if (typeof value === "string") return UNSTORABLE.test(value);
  if (Array.isArray(value)) return value.some(unstorable);
  if (typeof value === "object" && value !== null)
    return Object.entries(value).some(([key, v]) => UNSTORABLE.test(key) || unstorable(v));
  return false;
};

/**
 * `text` as an SQL string literal, for a statement sent with no parameters
 * (several statements in one round trip): dollar-quoted with a tag the text
 * does not hold, so no character of it is read as SQL whatever the server's
 * `standard_conforming_strings`. A text with a NUL (which no PostgreSQL text
 * holds, and which would cut the query short) is sent as UTF-8 hex for the
 * server to refuse, as it refuses such a parameter.
 *
 * @example
 * ```ts
 * literal("it's"); // "$e$it's$e$"
 * ```
 */
export const literal = (text: string): string => {
  if (text.includes("\0"))
    return `convert_from(decode('${Buffer.from(text, "utf8").toString("hex")}', 'hex'), 'UTF8')`;
  let tag = "e";
  for (let i = 0; text.includes(`$${tag}`); i++) tag = `e${i}`;
  return `$${tag}$${text}$${tag}$`;
};
