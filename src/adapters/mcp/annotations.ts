/**
 * The MCP annotations of a command's tool: the hints clients use to decide
 * how careful to be, derived from the command and the MCP grant, each
 * overridable by the command's `mcp`.
 */
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { Grant } from "../../runtime/commands/app.ts";
import type { AnyCommand } from "../../runtime/commands/command.ts";
import { toolTitle } from "../../runtime/commands/toolHints.ts";

/** A tool's annotations, with the title MCP also lists on the tool itself. */
export type McpAnnotations = ToolAnnotations & { readonly title: string };

/**
 * The annotations of `command`'s tool under `grant`. What the command's
 * `mcp` declares wins; otherwise:
 *
 * - `title`: the command's `title`, else its name read as what it does
 *   (`customers_destroy` → "Delete a customer", `invoices_index` → "List
 *   invoices"; {@link toolTitle});
 * - `readOnlyHint`: the command is `live`, never for a tool the grant
 *   confirms (the grant's `confirm` wins over `live` and `mcp`);
 * - `destructiveHint`: true only when the command is destructive (its
 *   `destructive`, or a verb such as `delete` in its ability), never for a
 *   read-only tool. The grant's `confirm` does not make a tool destructive:
 *   a tool that only adds (issuing an invoice) says false, and is asked by
 *   elicitation all the same, whatever its hints say;
 * - `idempotentHint`: only when declared;
 * - `openWorldHint`: false, a command works on the app's own data.
 *
 * `grant` is the MCP grant the tool is listed under. A command's `mcp` that
 * contradicts what it is (`destructiveHint: false` or `readOnlyHint: true`
 * on a destructive command) is refused when it is defined.
 *
 * @example
 * ```ts
 * annotationsOf(customersDestroy, app.mcp);
 * // { title: "Delete a customer", readOnlyHint: false, destructiveHint: true, openWorldHint: false }
 * ```
 */
export const annotationsOf = (command: AnyCommand, grant: Grant): McpAnnotations => {
  // Read as the SDK's own type: the hints are MCP's names, as declared.
  const hints: ToolAnnotations = command.mcp ?? {};
  // The grant's confirm wins: a tool the person is asked about is not announced read-only.
  const confirmed = grant.needsConfirm(command.can as string);
  const readOnly = !confirmed && (hints.readOnlyHint ?? command.live);
  const destructive = readOnly
    ? false
    : (hints.destructiveHint ?? command.confirmation.destructive);
  return {
    title: hints.title ?? command.title ?? toolTitle(command.name),
    readOnlyHint: readOnly,
    destructiveHint: destructive,
    ...(hints.idempotentHint === undefined ? {} : { idempotentHint: hints.idempotentHint }),
    openWorldHint: hints.openWorldHint ?? false,
  };
};
