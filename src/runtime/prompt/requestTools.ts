import type { App } from "../commands/app.ts";
import type { ModelTool } from "./model.ts";

/**
 * The tools a request carries. In code mode each tool that needs no
 * confirmation may also be called from code (`allowed_callers`, guidance to
 * the model: the call path refuses a confirm tool called from code whatever
 * it sends), and the code execution tool comes last.
 */
export const requestTools = (
  assistant: NonNullable<App["assistant"]>,
  tools: ReadonlyArray<{
    readonly name: string;
    readonly description: string;
    readonly inputSchema: Readonly<Record<string, unknown>>;
  }>,
): ReadonlyArray<ModelTool> => {
  const out: ModelTool[] = tools.map((t): ModelTool => {
    const tool = { name: t.name, description: t.description, input_schema: t.inputSchema };
    const can = assistant.tools.get(t.name)?.can;
    return assistant.codeMode && can !== undefined && !assistant.needsConfirm(can)
      ? { ...tool, allowed_callers: ["direct", assistant.codeExecutionTool] }
      : tool;
  });
  if (assistant.codeMode) out.push({ type: assistant.codeExecutionTool, name: "code_execution" });
  return out;
};
