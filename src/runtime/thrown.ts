/**
 * What a thrown value says, read with care: an `Error`'s message (else its
 * name), a string as it is, and undefined for anything else or when reading
 * it throws (a hostile `message` getter) or gives no string.
 *
 * @example
 * ```ts
 * thrownMessage(new Error("no such customer")); // "no such customer"
 * thrownMessage({ message: 42 }); // undefined
 * ```
 */
export const thrownMessage = (error: unknown): string | undefined => {
  try {
    const text = error instanceof Error ? error.message || error.name : error;
    return typeof text === "string" ? text : undefined;
  } catch {
    return undefined;
  }
};
