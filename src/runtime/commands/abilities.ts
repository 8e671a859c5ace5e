/**
 * Abilities name what a command needs (`customers.delete`); patterns name what
 * a grant or a user has: an exact ability, `resource.*` (every ability below
 * `resource.`, at any depth) or `*` (all).
 */

const SEGMENT = "[A-Za-z0-9_-]+";
const ABILITY = new RegExp(`^${SEGMENT}(\\.${SEGMENT})*$`);
const PATTERN = new RegExp(`^(\\*|${SEGMENT}(\\.${SEGMENT})*(\\.\\*)?)$`);

/**
 * True when `ability` is a well-formed ability name such as `invoices.view`:
 * dot-separated names of letters, digits, `_` and `-`, no wildcard. A
 * command's `can` must be one.
 *
 * @example
 * ```ts
 * isAbility("invoices.view"); // true
 * isAbility("invoices.*"); // false: a pattern, for grants and users
 * isAbility("invoices..view"); // false
 * ```
 */
export const isAbility = (ability: string): boolean => ABILITY.test(ability);

/**
 * True when `pattern` is an exact ability, `resource.*` or `*`: what a
 * grant's `allow` and `confirm` and a user's abilities may list.
 *
 * @example
 * ```ts
 * isAbilityPattern("invoices.*"); // true
 * isAbilityPattern("*"); // true
 * isAbilityPattern("invoices*"); // false
 * ```
 */
export const isAbilityPattern = (pattern: string): boolean => PATTERN.test(pattern);

/**
 * Whether one pattern covers an ability.
 *
 * @example
 * ```ts
 * covers("customers.*", "customers.update"); // true
 * covers("customers.*", "customersx.view");  // false
 * ```
 */
export const covers = (pattern: string, ability: string): boolean => {
  if (pattern === "*") return true;
  if (pattern.endsWith(".*")) return ability.startsWith(pattern.slice(0, -1));
  return pattern === ability;
};

/** Whether any of `patterns` covers `ability`. */
export const coveredByAny = (patterns: Iterable<string>, ability: string): boolean => {
  for (const pattern of patterns) if (covers(pattern, ability)) return true;
  return false;
};

/**
 * The resource an ability acts on: all but its last name (`customers.update`
 * → `customers`, `billing.invoices.void` → `billing.invoices`); a one-name
 * ability is its own resource. A write re-runs the live queries of its
 * resource (see `invalidates` on a command).
 *
 * @example
 * ```ts
 * resourceOf("customers.update"); // "customers"
 * resourceOf("billing.invoices.void"); // "billing.invoices"
 * resourceOf("reports"); // "reports"
 * ```
 */
export const resourceOf = (ability: string): string => {
  const dot = ability.lastIndexOf(".");
  return dot === -1 ? ability : ability.slice(0, dot);
};
