/**
 * The MCP annotations of a command's tool: the hints clients use to decide
 * how careful to be, derived from the command and the MCP grant, each
 * overridable by the command's `mcp`.
 */
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { Grant } from "../../runtime/commands/app.ts";
import type { AnyCommand } from "../../runtime/commands/command.ts";
import { humanTitle } from "../../runtime/commands/toolHints.ts";

/** A tool's annotations, with the title MCP also lists on the tool itself. */
export type McpAnnotations = ToolAnnotations & { readonly title: string };

/**
 * The annotations of `command`'s tool under `grant`. What the command's
 * `mcp` declares wins; otherwise:
 *
 * - `title`: the command's `title`, else its name in words;
 * - `readOnlyHint`: the command is `live`;
 * - `destructiveHint`: false for a read-only tool; else true when the
 *   command is destructive (its `destructive`, or a verb such as `delete`)
 *   **or** the grant confirms its ability. The careful answer wins: a hint
 *   that said "additive only" of a tool the operator wants a person to
 *   approve would invite a client to run it unasked (the server asks all the
 *   same, but the client would not have warned);
 * - `idempotentHint`: only when declared;
 * - `openWorldHint`: false, a command works on the app's own data.
 *
 * @example
 * ```ts
 * annotationsOf(customersDestroy, app.mcp);
 * // { title: "Customers destroy", readOnlyHint: false, destructiveHint: true, openWorldHint: false }
 * ```
 */
export const annotationsOf = (command: AnyCommand, grant: Grant): McpAnnotations => {
  // Read as the SDK's own type: the hints are MCP's names, as declared.
  const hints: ToolAnnotations = command.mcp ?? {};
  const readOnly = hints.readOnlyHint ?? command.live;
  const asksFirst = command.can !== undefined && grant.needsConfirm(command.can);
  const destructive = readOnly
    ? false
    : (hints.destructiveHint ?? (command.confirmation.destructive || asksFirst));
  return {
    title: hints.title ?? command.title ?? humanTitle(command.name),
    readOnlyHint: readOnly,
    destructiveHint: destructive,
    ...(hints.idempotentHint === undefined ? {} : { idempotentHint: hints.idempotentHint }),
    openWorldHint: hints.openWorldHint ?? false,
  };
};
