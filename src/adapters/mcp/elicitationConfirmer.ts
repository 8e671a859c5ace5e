import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { ConfirmAnswer, Confirmer, ConfirmRequest } from "../../runtime/calls/confirmer.ts";
import { clip } from "../../runtime/clip.ts";
import { typesSdk } from "./sdk.ts";

/** The form an MCP client shows to confirm a call: one yes/no field. */
const confirmSchema = () => ({
  type: "object" as const,
  properties: { confirm: { type: "boolean" as const, title: "Run it?" } },
  required: ["confirm"],
});

export const MAX_ARGS_TEXT = 2_000;

/**
 * What the client shows: the command's `confirmLabel` sentence when it gave
 * one, else the tool and what it does; then the arguments it would run with.
 */
export const confirmMessage = (request: ConfirmRequest): string => {
  let args: string;
  try {
    args = JSON.stringify(request.args, null, 2) ?? "null";
  } catch {
    args = "(arguments that cannot be shown)";
  }
  const lead =
    request.label === undefined ? `Run ${request.tool}?\n${request.description}` : request.label;
  return `${lead}\nArguments:\n${clip(args, MAX_ARGS_TEXT)}`;
};

/** Whether the connected client said, at the handshake, that it can show a form. */
export const canElicit = (server: Server): boolean =>
  server.getClientCapabilities()?.elicitation?.form !== undefined;

/** Options of {@link elicitationConfirmer}. */
export interface ElicitationConfirmerOptions {
  readonly timeoutMs: number;
  readonly onUnavailable: () => void;
  /**
   * The `tools/call` being confirmed. Over Streamable HTTP the question goes
   * on that request's own response stream, which the client is reading;
   * without it the SDK sends it on the optional standalone GET stream, and a
   * client that never opened one is never asked.
   */
  readonly relatedRequestId: RequestId;
}

/**
 * A `Confirmer` that asks the MCP client by form elicitation, as part of
 * the call it confirms. Accepted with `confirm: true` is the only yes;
 * declined, cancelled, `confirm: false`, an error, or no answer in
 * `timeoutMs` is not. A client that cannot elicit is not asked:
 * `onUnavailable` is told, and the answer is no.
 */
export const elicitationConfirmer = (
  server: Server,
  options: ElicitationConfirmerOptions,
): Confirmer => ({
  ask: async (request, signal) => {
    const reply = (answer: ConfirmAnswer) => ({
      confirmId: request.confirmId,
      tool: request.tool,
      digest: request.digest,
      answer,
    });
    if (!canElicit(server)) {
      options.onUnavailable();
      return reply("declined");
    }
    try {
      const result = await server.elicitInput(
        { mode: "form", message: confirmMessage(request), requestedSchema: confirmSchema() },
        // The SDK's default request timeout is 60 s; a person may take longer.
        { signal, timeout: options.timeoutMs, relatedRequestId: options.relatedRequestId },
      );
      const yes = result.action === "accept" && result.content?.confirm === true;
      return reply(yes ? "accepted" : "declined");
    } catch (error) {
      const timedOut =
        error instanceof typesSdk.McpError && error.code === typesSdk.ErrorCode.RequestTimeout;
      return reply(timedOut ? "timedOut" : "declined");
    }
  },
});
