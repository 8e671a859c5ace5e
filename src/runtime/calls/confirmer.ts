/**
 * The confirmation port. The call path mints a single-use id, binds it to the
 * tool and a digest of the arguments' canonical JSON, and asks a `Confirmer`
 * (the window's dialog, or an MCP client by elicitation). It runs the command
 * only when the reply names the same id, tool and digest and says accepted.
 */

/**
 * What the user is asked to confirm. `args` are the arguments as the model sent
 * them (their encoded, JSON form), after they decoded: what the dialog shows.
 */
export interface ConfirmRequest {
  readonly confirmId: string;
  readonly callId: string;
  readonly tool: string;
  readonly description: string;
  readonly args: unknown;
  /** SHA-256 of the canonical JSON of `args`. */
  readonly digest: string;
  /** The window (or MCP session) the call belongs to. */
  readonly scope: string;
}

/** How a confirmation ended. */
export type ConfirmAnswer = "accepted" | "declined" | "timedOut";

/** A confirmer's reply: the answer and what it was an answer to. */
export interface ConfirmReply {
  readonly confirmId: string;
  readonly tool: string;
  readonly digest: string;
  readonly answer: ConfirmAnswer;
}

/**
 * Asks the user. `signal` aborts when the call path gives up waiting (the
 * 5-minute timeout, or Stop); the confirmer should then forget the request so
 * a late answer to its id is refused.
 */
export interface Confirmer {
  readonly ask: (request: ConfirmRequest, signal: AbortSignal) => Promise<ConfirmReply>;
}

/** How long a confirmation waits for its answer: 5 minutes. */
export const CONFIRM_TIMEOUT_MS = 5 * 60 * 1000;
