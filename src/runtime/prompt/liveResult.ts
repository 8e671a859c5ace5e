/** What a live query gives each time it runs: its result, or why it failed. */
export type LiveResult =
  | { readonly _tag: "Result"; readonly value: unknown }
  | { readonly _tag: "Failed"; readonly error: string };
