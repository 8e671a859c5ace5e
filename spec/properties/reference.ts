/**
 * A small reference model of who may run what, written apart from the code:
 * patterns become regular expressions, rate limits a list of accepted times.
 * Both are the testing kit's (src/testing/mayRun.ts, referenceLimiter.ts).
 */
import fc from "fast-check";
import { abilityOf } from "../fixtures/spyCommands.ts";

// The reference of who may run what is the testing kit's (`mayRun`), with the pattern reading and
// the sliding-window limiter it is built on: the project's properties and users' own share one.
export { coveredBy as grantsAny } from "../../src/testing/mayRun.ts";
export { ReferenceLimiter } from "../../src/testing/referenceLimiter.ts";

/** Grant and ability patterns the authority properties draw: exact, `resource.*`, `*`, and near misses. */
export const patterns = fc.array(
  fc.oneof(
    fc.constant("*"),
    fc.constantFrom("customers.*", "invoices.*", "admin.*", "admin.search.*", "customersx.*"),
    fc.constantFrom(...Object.values(abilityOf), "customers.viewer", "invoices", "admin.search"),
  ),
  { maxLength: 4 },
);
