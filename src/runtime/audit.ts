import { Schema } from "effect";
import type { Caller, Origin } from "./origin.ts";

/**
 * The audit record of one tool call, from the assistant or an agent. It
 * carries no arguments and no result: who, which tool, how it ended, how long.
 */
export class AgentCalled extends Schema.TaggedClass<AgentCalled>()("AgentCalled", {
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
}) {}

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
