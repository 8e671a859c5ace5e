import type { Ids } from "../runtime/ports/ids.ts";

/** Ids `prefix-1`, `prefix-2`, … in order. */
export const countingIds = (prefix = "id"): Ids => {
  let n = 0;
  return { next: () => `${prefix}-${++n}` };
};
