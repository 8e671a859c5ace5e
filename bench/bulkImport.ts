/**
 * The command of the hostile-argument benches (badArguments, mcpStall): it
 * imports an array of order lines, structs with optional fields, so that a
 * body of many wrong elements is what the call path must refuse.
 */
import { Schema } from "effect";
import { defineCommand } from "elyra-assistant";

export const bulkImport = defineCommand({
  name: "lines_import",
  description: "Imports order lines.",
  can: "lines.create",
  args: {
    items: Schema.Array(
      Schema.Struct({
        note: Schema.optional(Schema.String),
        sku: Schema.optional(Schema.String),
        qty: Schema.Number,
      }),
    ),
  },
  run: ({ items }) => ({ imported: items.length }),
});
