/**
 * What the user changed on a confirmation: the top-level arguments whose
 * value differs between the ones asked and the ones approved. Pure, shared
 * by the host's fold and the browser's.
 */
import { canonicalJson } from "../calls/canonicalJson.ts";

/**
 * One argument the user changed before approving: its name, the value asked
 * (`was`) and the value approved (`now`); either is absent when that side
 * did not set it.
 */
export interface ArgumentChange {
  readonly name: string;
  readonly was?: unknown;
  readonly now?: unknown;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const same = (a: unknown, b: unknown): boolean => {
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    return false;
  }
};

/**
 * The arguments that differ between `asked` and `approved`, the `first`
 * names (the editable ones, in the dialog's order) before any other; none
 * when either is not an object of arguments.
 *
 * @example
 * ```ts
 * argumentChanges({ amount: 500, customer_id: 7 }, { amount: 750, customer_id: 7, project: "Apollo" }, ["amount", "project"]);
 * // [{ name: "amount", was: 500, now: 750 }, { name: "project", now: "Apollo" }]
 * ```
 */
export const argumentChanges = (
  asked: unknown,
  approved: unknown,
  first: ReadonlyArray<string> = [],
): ReadonlyArray<ArgumentChange> => {
  if (!isRecord(asked) || !isRecord(approved)) return [];
  const names = new Set([...first, ...Object.keys(asked), ...Object.keys(approved)]);
  const changes: ArgumentChange[] = [];
  for (const name of names) {
    const had = Object.hasOwn(asked, name) && asked[name] !== undefined;
    const has = Object.hasOwn(approved, name) && approved[name] !== undefined;
    if (!had && !has) continue;
    if (had && has && same(asked[name], approved[name])) continue;
    changes.push({
      name,
      ...(had ? { was: asked[name] } : {}),
      ...(has ? { now: approved[name] } : {}),
    });
  }
  return changes;
};
