import type { App, Grant } from "../../runtime/commands/app.ts";
import { offered, type Tool } from "../../runtime/commands/catalog.ts";
import type { JsonSchema } from "../../runtime/commands/command.ts";
import { annotationsOf, type McpAnnotations } from "./annotations.ts";

/** A tool as MCP lists it: MCP wants an object schema at the root of both schemas. */
export interface McpTool {
  readonly name: string;
  /** For people; also `annotations.title`, for clients that read only that. */
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: JsonSchema & { readonly type: "object" };
  readonly outputSchema?: JsonSchema & { readonly type: "object" };
  readonly annotations?: McpAnnotations;
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

/** A catalog tool as MCP lists it, without what its grant adds (see {@link mcpToolsOf}). */
export const mcpToolOf = (tool: Tool): McpTool => listed(tool, undefined);

/**
 * The tools of the app's MCP grant as `tools/list` answers them, sorted by
 * name: each with its title and annotations ({@link annotationsOf}).
 *
 * @example
 * ```ts
 * mcpToolsOf(app).map((tool) => [tool.name, tool.annotations?.destructiveHint]);
 * ```
 */
export const mcpToolsOf = (app: App): ReadonlyArray<McpTool> => {
  const grant = app.mcp;
  if (grant === undefined) return [];
  return offered(app, "mcp").map((tool) => listed(tool, grant));
};

const listed = (tool: Tool, grant: Grant | undefined): McpTool => {
  const outputSchema = objectSchemaOf(tool.outputSchema);
  const command = grant?.tools.get(tool.name);
  const annotations =
    command === undefined || grant === undefined ? undefined : annotationsOf(command, grant);
  return {
    name: tool.name,
    ...(annotations === undefined ? {} : { title: annotations.title }),
    description: tool.description,
    inputSchema: (objectSchemaOf(tool.inputSchema) ?? {
      type: "object",
      ...tool.inputSchema,
    }) as McpTool["inputSchema"],
    ...(outputSchema === undefined ? {} : { outputSchema }),
    ...(annotations === undefined ? {} : { annotations }),
  };
};
