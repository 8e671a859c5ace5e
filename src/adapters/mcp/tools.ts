import type { Tool } from "../../runtime/commands/catalog.ts";
import type { JsonSchema } from "../../runtime/commands/command.ts";

/** A tool as MCP lists it: MCP wants an object schema at the root of both schemas. */
export interface McpTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema & { readonly type: "object" };
  readonly outputSchema?: JsonSchema & { readonly type: "object" };
}

/**
 * The object schema at the root of `schema`, or undefined. A `Schema.Class`
 * result is a `$ref` into `$defs`; its definition is lifted to the root (the
 * `$defs` kept, for nested references). Anything else (an array, a string)
 * has no MCP output schema: such a result is sent as text only.
 */
export const objectSchemaOf = (
  schema: JsonSchema | undefined,
): (JsonSchema & { readonly type: "object" }) | undefined => {
  if (schema === undefined) return undefined;
  if (schema.type === "object") return schema as JsonSchema & { type: "object" };
  const ref = schema.$ref;
  const defs = schema.$defs as Readonly<Record<string, JsonSchema>> | undefined;
  if (typeof ref !== "string" || defs === undefined || !ref.startsWith("#/$defs/"))
    return undefined;
  const name = ref.slice("#/$defs/".length);
  const target = Object.hasOwn(defs, name) ? defs[name] : undefined;
  if (target?.type !== "object") return undefined;
  const { $ref: _ref, ...rest } = schema;
  return { ...rest, ...target, type: "object", $defs: defs };
};

/** A catalog tool as MCP lists it. */
export const mcpToolOf = (tool: Tool): McpTool => {
  const outputSchema = objectSchemaOf(tool.outputSchema);
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: (objectSchemaOf(tool.inputSchema) ?? {
      type: "object",
      ...tool.inputSchema,
    }) as McpTool["inputSchema"],
    ...(outputSchema === undefined ? {} : { outputSchema }),
  };
};
