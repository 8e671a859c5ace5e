import { Schema } from "effect";
import type { Caller, Origin } from "../commands/origin.ts";

/**
 * The audit record of one tool call, from the assistant or an agent. It
 * carries no arguments and no result: who, which tool, how it ended, how long.
 * A plain tagged struct, so making one on every call costs next to nothing.
 *
 * @example
 * ```ts
 * const record = AgentCalled.make({ client: "assistant", tool: "invoices_index", outcome: "ok", durationMs: 42 });
 * auditLog.write(JSON.stringify(record));
 * ```
 */
export const AgentCalled = Schema.TaggedStruct("AgentCalled", {
  /** `"assistant"` for the in-app assistant, else the MCP client's name. */
  client: Schema.String,
  tool: Schema.String,
  outcome: Schema.Literal(
    "ok",
    "failed",
    "unknownTool",
    "denied",
    "rateLimited",
    "invalidArguments",
    "codeCallerRefused",
    "notConfirmed",
    "stopped",
  ),
  durationMs: Schema.Number,
});

/** An audit record (see {@link AgentCalled}). */
export type AgentCalled = typeof AgentCalled.Type;

/** A command starting or finishing: what a window's tool steps and live queries follow. No arguments. */
export type Activity =
  | {
      readonly type: "started";
      readonly callId: string;
      readonly tool: string;
      readonly caller: Caller;
      readonly origin: Origin;
      readonly scope: string;
    }
  | {
      readonly type: "finished";
      readonly callId: string;
      readonly tool: string;
      readonly ok: boolean;
      readonly link?: string;
      readonly origin: Origin;
      readonly scope: string;
    };
