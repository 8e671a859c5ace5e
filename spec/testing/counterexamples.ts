/**
 * The shrunk counterexamples `checkCallPath` tells for the two mistakes
 * planted in copies of the example CRM (spec/testing/propertyKit.spec.ts),
 * as docs/testing.md quotes them.
 */

/** A `userAbilities` that gives everyone `customers.destroy` (seed 1). */
export const LEAK_FOUND =
  'user {abilities: []} (assistant) called customers_destroy({"id":1}), and when asked the user accepted: it ran, but the user lacks customers.destroy';

/** `customers_destroy` declared with `can: "customers.view"` (seed 2). */
export const WRONG_CAN_FOUND =
  'user {abilities: ["customers.view"]} (assistant) called customers_destroy({"id":1}): it ran, but the user lacks customers.destroy';
