import { clip } from "../clip.ts";
import type { Issue } from "../commands/issues.ts";
import { issueLines } from "../commands/issues.ts";
import { jsonTextOf } from "../json.ts";

/**
 * How one tool call ended. Every refusal means the command did not run.
 * `edited`: the user changed the arguments on the confirmation, and these
 * (the whole arguments as approved) are what ran, or were refused.
 */
export type CallOutcome = CallEnding & { readonly edited?: unknown };

/** How one tool call ended, without the arguments the user edited. */
export type CallEnding =
  | { readonly _tag: "UnknownTool"; readonly callId: string; readonly tool: string }
  | {
      readonly _tag: "Denied";
      readonly callId: string;
      readonly tool: string;
      readonly ability: string;
    }
  | {
      readonly _tag: "RateLimited";
      readonly callId: string;
      readonly tool: string;
      readonly retryAfterMs: number;
    }
  | { readonly _tag: "RateLimitUnavailable"; readonly callId: string; readonly tool: string }
  | {
      readonly _tag: "InvalidArguments";
      readonly callId: string;
      readonly tool: string;
      readonly issues: ReadonlyArray<Issue>;
    }
  | { readonly _tag: "CodeCallerRefused"; readonly callId: string; readonly tool: string }
  | {
      readonly _tag: "NotConfirmed";
      readonly callId: string;
      readonly tool: string;
      readonly answer: "declined" | "timedOut";
    }
  | { readonly _tag: "Stopped"; readonly callId: string; readonly tool: string }
  | {
      readonly _tag: "Succeeded";
      readonly callId: string;
      readonly tool: string;
      readonly result: unknown;
      readonly link?: string;
    }
  | {
      readonly _tag: "Failed";
      readonly callId: string;
      readonly tool: string;
      readonly lines: ReadonlyArray<string>;
    };

/** The audit outcome names, one per kind of ending. */
export type AuditOutcome =
  | "ok"
  | "failed"
  | "unknownTool"
  | "denied"
  | "rateLimited"
  | "invalidArguments"
  | "codeCallerRefused"
  | "notConfirmed"
  | "stopped";

/**
 * Whether the command ran (succeeded or failed while running). Every other
 * outcome is a refusal: nothing was changed.
 *
 * @example
 * ```ts
 * const path = createCallPath(app);
 * const outcome = await path.call(
 *   { tool: "customers_destroy", input: { id: 5 } },
 *   { user, origin: { kind: "assistant" }, scope: "window-1" },
 * );
 * if (!ran(outcome)) console.log("refused:", formatOutcome(outcome).text);
 * ```
 */
export const ran = (outcome: CallOutcome): boolean =>
  outcome._tag === "Succeeded" || outcome._tag === "Failed";

/** The audit name of an outcome. */
export const auditOutcome = (outcome: CallOutcome): AuditOutcome => {
  switch (outcome._tag) {
    case "Succeeded":
      return "ok";
    case "Failed":
      return "failed";
    case "UnknownTool":
      return "unknownTool";
    case "Denied":
      return "denied";
    case "RateLimited":
    case "RateLimitUnavailable":
      return "rateLimited";
    case "InvalidArguments":
      return "invalidArguments";
    case "CodeCallerRefused":
      return "codeCallerRefused";
    case "NotConfirmed":
      return "notConfirmed";
    case "Stopped":
      return "stopped";
  }
};

const clipName = (name: string): string => clip(name, 64);

/** What the model is told of a result JSON can't hold: `problem` names where and what. */
export const notJsonLine = (problem: string): string =>
  `the command's result can't be sent as JSON: ${problem}`;

/**
 * The text the model (or MCP client) is told: the result as JSON, or the
 * refusal or error as lines. It never throws: a result JSON can't hold is
 * told as an error naming what and where. The sentences are a contract:
 * docs/commands.md lists them with the ten steps of the call path.
 *
 * @example
 * ```ts
 * formatOutcome({ _tag: "Denied", callId: "c1", tool: "customers_delete", ability: "customers.delete" });
 * // { isError: true, text: "the user may not do this: it takes customers.delete" }
 * ```
 */
export const formatOutcome = (
  outcome: CallOutcome,
): { readonly isError: boolean; readonly text: string } => {
  const told = formatEnding(outcome);
  if (outcome.edited === undefined) return told;
  return { isError: told.isError, text: `${editedLine(outcome)}\n${told.text}` };
};

const MAX_EDITED_TEXT = 2_000;

/**
 * What the model is told first when the user changed the arguments on the
 * confirmation: that they did, and the arguments that ran (or were refused).
 */
const editedLine = (outcome: CallOutcome): string => {
  const json = jsonTextOf(outcome.edited);
  const args =
    json._tag === "Json" ? clip(json.text, MAX_EDITED_TEXT) : "(arguments JSON can't hold)";
  return ran(outcome)
    ? `The user changed the arguments before approving; ${outcome.tool} ran with ${args}, not with the arguments you sent. Its result:`
    : `The user changed the arguments before approving, to ${args}; ${outcome.tool} did not run with them:`;
};

const formatEnding = (
  outcome: CallOutcome,
): { readonly isError: boolean; readonly text: string } => {
  const error = (text: string) => ({ isError: true, text });
  switch (outcome._tag) {
    case "Succeeded": {
      // The call path fails a result JSON can't hold; one made by hand is told the same way.
      const json = jsonTextOf(outcome.result);
      return json._tag === "Json"
        ? { isError: false, text: json.text }
        : error(notJsonLine(json.problem));
    }
    case "Failed":
      return error(outcome.lines.join("\n"));
    case "UnknownTool":
      return error(`unknown tool: ${clipName(outcome.tool)}`);
    case "Denied":
      return error(`the user may not do this: it takes ${outcome.ability}`);
    case "RateLimited":
      return error(
        `rate limit reached for ${outcome.tool}: try again in ${Math.max(1, Math.ceil(outcome.retryAfterMs / 1000))} s`,
      );
    case "RateLimitUnavailable":
      return error(`the rate limit for ${outcome.tool} could not be checked, so it did not run`);
    case "InvalidArguments":
      return error(issueLines(outcome.issues).join("\n"));
    case "CodeCallerRefused":
      return error("call it directly, so the user can confirm it");
    case "NotConfirmed":
      return error(`The user didn't confirm ${outcome.tool}, so it did not run.`);
    case "Stopped":
      return error(`${outcome.tool} was stopped before it ran`);
  }
};
