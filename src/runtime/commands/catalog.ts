import { coveredByAny } from "./abilities.ts";
import type { App, Grant } from "./app.ts";
import type { AnyCommand, JsonSchema } from "./command.ts";
import type { User } from "./origin.ts";

/** A tool as offered to a model or an MCP client. */
export interface Tool {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments (an object, with `$defs` where needed). */
  readonly inputSchema: JsonSchema;
  /** JSON Schema of the result, when the command declares one. */
  readonly outputSchema?: JsonSchema;
}

const tools = new WeakMap<AnyCommand, Tool>();

/**
 * The tool a command becomes: its name, description and the JSON Schemas of
 * its arguments and result, as a model or an MCP client is shown it.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const customersShow = defineCommand({
 *   name: "customers_show",
 *   description: "Show one customer by id.",
 *   can: "customers.view",
 *   args: { id: Schema.Number },
 *   run: ({ id }) => ({ id, name: "Ada" }),
 * });
 * toolOf(customersShow).inputSchema;
 * // { type: "object", required: ["id"], properties: { id: { type: "number" } }, additionalProperties: false }
 * ```
 */
export const toolOf = (command: AnyCommand): Tool => {
  let tool = tools.get(command);
  if (tool === undefined) {
    tool = {
      name: command.name,
      description: command.description,
      inputSchema: command.inputSchema,
      ...(command.outputSchema === undefined ? {} : { outputSchema: command.outputSchema }),
    };
    tools.set(command, tool);
  }
  return tool;
};

const byName = (a: Tool, b: Tool): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Every tool of a grant, sorted by name: each granted command that has an
 * ability. What the surface may ever offer, before any user's abilities
 * (`offered` narrows it to one user's).
 *
 * @example
 * ```ts
 * const app = createApp({ commands, userAbilities, mcp: { allow: ["customers.view"] } });
 * if (app.mcp !== undefined) console.log(catalog(app.mcp).map((tool) => tool.name));
 * // ["customers_index", "customers_show"]
 * ```
 */
export const catalog = (grant: Grant): ReadonlyArray<Tool> =>
  [...grant.tools.values()].map(toolOf).sort(byName);

/** The grant of a surface, or a clear error when the app has none. */
export const grantOf = (app: App, surface: Grant["surface"]): Grant | undefined =>
  surface === "assistant" ? app.assistant : app.mcp;

/**
 * The tools offered now: the surface's grant and, for the assistant, the
 * user's abilities. What is not offered is an unknown tool to the model.
 *
 * @example
 * ```ts
 * const tools = offered(app, "assistant", user); // [{ name, description, inputSchema }]
 * ```
 */
export const offered = (app: App, surface: Grant["surface"], user?: User): ReadonlyArray<Tool> => {
  const grant = grantOf(app, surface);
  if (grant === undefined) return [];
  if (surface === "mcp") return catalog(grant);
  const abilities = [...app.userAbilities(user as User)];
  return catalog(grant).filter((tool) => {
    const can = grant.tools.get(tool.name)?.can;
    return can !== undefined && coveredByAny(abilities, can);
  });
};
