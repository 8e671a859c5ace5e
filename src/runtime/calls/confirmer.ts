/**
 * The confirmation port. The call path mints a single-use id, binds it to the
 * tool and a digest of the arguments' canonical JSON, and asks a `Confirmer`
 * (the window's dialog, or an MCP client by elicitation). It runs the command
 * only when the reply names the same id, tool and digest and says accepted.
 */

import type { EditableField } from "../commands/confirmation.ts";
import type { Issue } from "../commands/issues.ts";

export type { EditableField };

/**
 * What the user is asked to confirm. `args` are the arguments as the model sent
 * them (their encoded, JSON form), after they decoded: what the dialog shows.
 */
export interface ConfirmRequest {
  readonly confirmId: string;
  readonly callId: string;
  readonly tool: string;
  /** The model's description of the tool: not for people (show `title` and `summary`). */
  readonly description: string;
  /** The command's title for people ("Delete customer"), or its name in words. */
  readonly title?: string;
  /** What the command does, for people, when it says (`summary`). */
  readonly summary?: string;
  readonly args: unknown;
  /** SHA-256 of the canonical JSON of `args`. */
  readonly digest: string;
  /** The window (or MCP session) the call belongs to. */
  readonly scope: string;
  /** The command's `confirmLabel` sentence, when it gave one in time: shown first. */
  readonly label?: string;
  /** The accept button is destructive: styled so, and never focused first. */
  readonly destructive: boolean;
  /** The accept button's word (`Delete`, `Confirm`, …). */
  readonly action: string;
  /** The arguments the user may change before approving (none: the arguments are shown only). */
  readonly editable: ReadonlyArray<EditableField>;
  /**
   * Decodes arguments the user edited with the command's schema: the
   * problems, or none. Lets a dialog be told what to fix while the question
   * still waits. Not sent anywhere.
   */
  readonly checkEdit?: (edited: unknown) => ReadonlyArray<Issue>;
}

/** How a confirmation ended. */
export type ConfirmAnswer = "accepted" | "declined" | "timedOut";

/** A confirmer's reply: the answer and what it was an answer to. */
export interface ConfirmReply {
  readonly confirmId: string;
  readonly tool: string;
  readonly digest: string;
  readonly answer: ConfirmAnswer;
  /**
   * Accepted with changes: the whole arguments as the user left them (only
   * editable ones differ). The call path checks them again and runs them
   * instead of the model's.
   */
  readonly edited?: unknown;
}

/**
 * Asks the user. `signal` aborts when the call path gives up waiting (the
 * 5-minute timeout, or Stop); the confirmer should then forget the request so
 * a late answer to its id is refused.
 */
export interface Confirmer {
  readonly ask: (request: ConfirmRequest, signal: AbortSignal) => Promise<ConfirmReply>;
}

/**
 * How long a confirmation waits for its answer: 5 minutes, unless the call
 * path is given `confirmTimeoutMs`. Past it the call ends `NotConfirmed`
 * (`timedOut`) and a late answer is refused.
 *
 * @example
 * ```ts
 * // A dialog that shows how long it stays open.
 * const confirmer: Confirmer = {
 *   ask: (request, signal) =>
 *     dialog.open(request, { closesAt: Date.now() + CONFIRM_TIMEOUT_MS, signal }),
 * };
 * ```
 */
export const CONFIRM_TIMEOUT_MS = 5 * 60 * 1000;
