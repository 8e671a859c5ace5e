/**
 * A conversation's tool calls: one step's calls run in order through the call
 * path, each logged as a tool step. A call that needs the user's answer puts
 * the conversation in `awaitingConfirmation` until it has one.
 */

import { type AnyActorRef, fromPromise } from "xstate";
import type { RunToolsInput } from "../../machines/conversationMachine.ts";
import type { WindowTurn } from "../../machines/windowMachine.ts";
import type { CallPath } from "../../runtime/calls/callPath.ts";
import type { Confirmer } from "../../runtime/calls/confirmer.ts";
import { auditOutcome, formatOutcome } from "../../runtime/calls/outcome.ts";
import { clip } from "../../runtime/clip.ts";
import type { Caller, User } from "../../runtime/commands/origin.ts";
import type { ToolResultBlock, ToolUseBlock } from "../../runtime/prompt/model.ts";
import { promptRefused } from "../assistantWindow.ts";
import type { Unstamped } from "../log/windowLog.ts";
import { endSpan, startSpan } from "../support/tracing.ts";

/** What the tool runner needs from its window, read at each call (abilities can change mid-turn). */
export interface ToolRunnerWindow {
  readonly clientId: string;
  readonly user: () => User;
  /**
   * What the running turn was framed with: the tools offered (the call path
   * refuses any other; none when no turn runs) and its span, the parent of
   * each call's span.
   */
  readonly framed: () => WindowTurn | undefined;
  readonly confirmer: Confirmer;
  /**
   * Appends a tool step's event; resolves once it is stored, and rejects when
   * it is not (the store refused it, the window closed, or its conversation
   * died): a command runs only after its `ToolStarted` is stored.
   */
  readonly log: (event: Unstamped) => Promise<unknown>;
  /**
   * Resolves once the answer to the call's confirmation is stored, appended
   * under the window's lease: the fence a confirmed command waits for.
   */
  readonly confirmed?: (callId: string) => Promise<unknown>;
  /** The turn running now. */
  readonly turn: () => number;
}

export const MAX_NAME = 128;

const NONE_OFFERED: ReadonlySet<string> = new Set();

/** A tool step's write refused because its conversation is gone (closed, or died): handled, so `void` is safe. */
export const notWritten = (): Promise<never> => {
  const refused = Promise.reject(
    promptRefused("closed", "the conversation this step belonged to ended"),
  );
  refused.catch(() => undefined);
  return refused;
};

/** The caller the wire names (`direct`, or a code execution tool's id). */
export const callerOf = (call: ToolUseBlock): Caller =>
  call.caller !== undefined && call.caller.type !== "direct"
    ? { type: "code", toolId: call.caller.tool_id ?? "" }
    : { type: "direct" };

/**
 * Runs one tool call through the call path and logs it as a tool step
 * (`ToolStarted`, then `ToolFinished` with its link): the result the model,
 * or the code that called it, is sent.
 */
export const runCall = async (
  path: CallPath,
  window: ToolRunnerWindow,
  call: ToolUseBlock,
  turn: number,
  signal: AbortSignal,
  confirmer: Confirmer = window.confirmer,
): Promise<ToolResultBlock> => {
  const caller = callerOf(call);
  const tool = clip(call.name, MAX_NAME);
  // Written ahead: a command whose start the log did not keep does not run.
  await window.log({ _tag: "ToolStarted", turn, callId: call.id, tool, caller });
  const span = startSpan(
    "elyra.tool.call",
    { "elyra.tool": tool, "elyra.caller": caller.type },
    window.framed()?.trace,
  );
  const outcome = await path.call(
    { tool: call.name, input: call.input, callId: call.id, caller },
    {
      user: window.user(),
      origin: { kind: "assistant" },
      scope: window.clientId,
      signal,
      offered: window.framed()?.offered ?? NONE_OFFERED,
      confirmer,
      ...(window.confirmed === undefined ? {} : { confirmed: window.confirmed }),
    },
  );
  const link = outcome._tag === "Succeeded" ? outcome.link : undefined;
  endSpan(
    span,
    { "elyra.outcome": auditOutcome(outcome) },
    outcome._tag === "Succeeded" ? undefined : auditOutcome(outcome),
  );
  void window.log({
    _tag: "ToolFinished",
    turn,
    callId: call.id,
    ok: outcome._tag === "Succeeded",
    outcome: auditOutcome(outcome),
    ...(link === undefined ? {} : { link }),
  });
  const { isError, text } = formatOutcome(outcome);
  return {
    type: "tool_result",
    tool_use_id: call.id,
    content: text,
    ...(isError ? { is_error: true } : {}),
  };
};

/**
 * One step's tool calls, in order, through the call path: the turn's steps
 * actor runs it (`turnSteps`). `tell` says when the user is asked and has
 * answered; once `signal` aborts (the turn ended), what runs finishes on its
 * own and nothing after it starts.
 */
export const runTools = async (
  path: CallPath,
  window: ToolRunnerWindow,
  input: RunToolsInput,
  tell: (event: "CONFIRMING" | "CONFIRMED") => void,
  signal: AbortSignal,
): Promise<ReadonlyArray<ToolResultBlock>> => {
  const confirmer: Confirmer = {
    ask: (request, asked) => {
      tell("CONFIRMING");
      return window.confirmer.ask(request, asked).finally(() => tell("CONFIRMED"));
    },
  };
  const results: ToolResultBlock[] = [];
  for (const call of input.calls) {
    if (signal.aborted) break;
    results.push(await runCall(path, window, call, input.turn, signal, confirmer));
  }
  return results;
};

/**
 * The code run's `runCall` actor, made once per host: each call from code
 * through the call path, logged as a tool step of its window.
 */
export const codeCallRunner = (path: CallPath, windowOf: (self: AnyActorRef) => ToolRunnerWindow) =>
  fromPromise<ToolResultBlock, ToolUseBlock>(({ input, signal, self }) => {
    const window = windowOf(self);
    return runCall(path, window, input, window.turn(), signal);
  });
