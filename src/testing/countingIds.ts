import type { Ids } from "../runtime/ports/ids.ts";

/**
 * Ids `prefix-1`, `prefix-2`, … in order: deterministic ids for a test.
 *
 * @example
 * ```ts
 * const ids = countingIds("msg");
 * ids.next(); // "msg-1"
 * ids.next(); // "msg-2"
 * ```
 */
export const countingIds = (prefix = "id"): Ids => {
  let n = 0;
  return { next: () => `${prefix}-${++n}` };
};
