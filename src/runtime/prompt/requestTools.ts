import type { App } from "../commands/app.ts";
import {
  STRICT_OPTIONAL_PARAMETERS,
  STRICT_TOOLS_PER_REQUEST,
  STRICT_UNION_PARAMETERS,
  type StrictCheck,
  strictCheck,
} from "../commands/strictSchema.ts";
import type { ClientTool, ModelTool } from "./model.ts";

/** Each input schema's verdict, kept: a catalog's schemas are the same objects turn after turn. */
const checked = new WeakMap<object, StrictCheck>();

const verdictOf = (schema: Readonly<Record<string, unknown>>): StrictCheck => {
  let verdict = checked.get(schema);
  if (verdict === undefined) {
    verdict = strictCheck(schema);
    checked.set(schema, verdict);
  }
  return verdict;
};

/**
 * The tools a request carries, in the order given.
 *
 * A tool is `strict: true` (the API constrains the model's input to its
 * schema) when its schema is in the strict subset ({@link strictCheck}) and
 * the request's strict limits still allow it: 20 strict tools, 24 optional
 * and 16 union-typed parameters across them, spent in the order the tools
 * come. A command's `examples` go as its `input_examples`.
 *
 * In code mode each tool that needs no confirmation may also be called from
 * code (`allowed_callers`, guidance to the model: the call path refuses a
 * confirm tool called from code whatever it sends), and the code execution
 * tool comes last. Such a tool is never strict: the API does not take
 * `strict` on a tool that code may call (programmatic tool calling lists
 * strict tool use among its incompatibilities), so it keeps
 * `allowed_callers` and goes without. Examples are sent either way. Neither
 * field is at odds with `defer_loading`: the API builds the strict grammar
 * from the whole tool set, deferred tools included, and expands a deferred
 * tool into its full definition when a search finds it.
 */
export const requestTools = (
  assistant: NonNullable<App["assistant"]>,
  tools: ReadonlyArray<{
    readonly name: string;
    readonly description: string;
    readonly inputSchema: Readonly<Record<string, unknown>>;
  }>,
): ReadonlyArray<ModelTool> => {
  const left = {
    tools: STRICT_TOOLS_PER_REQUEST,
    optional: STRICT_OPTIONAL_PARAMETERS,
    unions: STRICT_UNION_PARAMETERS,
  };
  const out: ModelTool[] = tools.map((t): ModelTool => {
    const command = assistant.tools.get(t.name);
    const can = command?.can;
    const fromCode = assistant.codeMode && can !== undefined && !assistant.needsConfirm(can);
    let strict = false;
    if (!fromCode && left.tools > 0) {
      const verdict = verdictOf(t.inputSchema);
      if (verdict.strict && verdict.optional <= left.optional && verdict.unions <= left.unions) {
        left.tools--;
        left.optional -= verdict.optional;
        left.unions -= verdict.unions;
        strict = true;
      }
    }
    const examples = command?.examples;
    const tool: ClientTool = {
      name: t.name,
      description: t.description,
      input_schema: t.inputSchema,
      ...(examples === undefined ? {} : { input_examples: examples }),
      ...(strict ? { strict: true } : {}),
      ...(fromCode ? { allowed_callers: ["direct", assistant.codeExecutionTool] } : {}),
    };
    return tool;
  });
  if (assistant.codeMode) out.push({ type: assistant.codeExecutionTool, name: "code_execution" });
  return out;
};
