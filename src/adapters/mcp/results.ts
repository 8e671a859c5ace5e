import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type CallOutcome, formatOutcome } from "../../runtime/calls/outcome.ts";
import { clip } from "../../runtime/clip.ts";

/**
 * The refusal when a tool needs a confirmation and the client has no
 * elicitation: the user could not have been asked, so it did not run.
 *
 * @example
 * ```ts
 * cannotConfirmText("invoices_remind");
 * // "invoices_remind needs the user's confirmation, which this client can't ask for (it does not support elicitation), so it did not run."
 * ```
 */
export const cannotConfirmText = (tool: string): string =>
  `${clip(tool, 64)} needs the user's confirmation, which this client can't ask for (it does not support elicitation), so it did not run.`;

/**
 * An outcome as an MCP tool result: the call path's text, `isError` on every
 * refusal and failure, and the encoded result as `structuredContent` when the
 * tool lists an output schema.
 */
export const callResultOf = (
  outcome: CallOutcome,
  options: { readonly structured: boolean; readonly unconfirmable: boolean },
): CallToolResult => {
  if (outcome._tag === "NotConfirmed" && options.unconfirmable) {
    return { isError: true, content: [{ type: "text", text: cannotConfirmText(outcome.tool) }] };
  }
  const { isError, text } = formatOutcome(outcome);
  const result: CallToolResult = { content: [{ type: "text", text }] };
  if (isError) return { ...result, isError: true };
  if (options.structured && outcome._tag === "Succeeded" && isRecord(outcome.result)) {
    return { ...result, structuredContent: outcome.result };
  }
  return result;
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
