/**
 * What a request to the host can fail with, as tagged errors a program can
 * test. Plain classes, not effect's `Data.TaggedError`: the browser bundle
 * stays small.
 */
import type { ErrorBody } from "../web/wire.ts";

/**
 * The host answered with an error: its status and the `{error: {type, message}}`
 * of its body (`type` is `HttpStatus` when the body said nothing readable).
 *
 * @example
 * ```ts
 * const failed = new HostError({ status: 409, type: "turnInProgress", message: "a turn is already running in this window" });
 * failed._tag; // "HostError"
 * ```
 */
export class HostError extends Error {
  readonly _tag = "HostError" as const;
  readonly status: number;
  readonly type: string;

  constructor(fields: {
    readonly status: number;
    readonly type: string;
    readonly message: string;
  }) {
    super(fields.message);
    this.name = "HostError";
    this.status = fields.status;
    this.type = fields.type;
  }

  /** Whether asking again later may work: the host is busy, limited or down, not refusing. */
  get isRetryable(): boolean {
    return this.status === 408 || this.status === 429 || this.status >= 500;
  }
}

/**
 * The host could not be reached, or an event stream dropped.
 *
 * @example
 * ```ts
 * const lost = new ConnectionError({ message: "the event stream ended" });
 * lost._tag; // "ConnectionError"
 * ```
 */
export class ConnectionError extends Error {
  readonly _tag = "ConnectionError" as const;

  constructor(fields: { readonly message: string; readonly cause?: unknown }) {
    super(fields.message, "cause" in fields ? { cause: fields.cause } : undefined);
    this.name = "ConnectionError";
  }
}

/** Either failure of the client. */
export type AssistantError = HostError | ConnectionError;

const isErrorBody = (value: unknown): value is ErrorBody => {
  if (typeof value !== "object" || value === null || !("error" in value)) return false;
  const error = (value as { error: unknown }).error;
  return (
    typeof error === "object" &&
    error !== null &&
    typeof (error as { type?: unknown }).type === "string" &&
    typeof (error as { message?: unknown }).message === "string"
  );
};

/** The error a failed response carries, read from its body when the body is the contract's. */
export const hostErrorOf = async (response: Response): Promise<HostError> => {
  let body: unknown;
  try {
    body = JSON.parse(await response.text());
  } catch {
    body = undefined;
  }
  return isErrorBody(body)
    ? new HostError({ status: response.status, type: body.error.type, message: body.error.message })
    : new HostError({
        status: response.status,
        type: "HttpStatus",
        message: `the host answered ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`,
      });
};

/** A rejection of `fetch` (or of reading a body) as a connection error. */
export const connectionErrorOf = (cause: unknown): ConnectionError =>
  new ConnectionError({
    message: cause instanceof Error ? cause.message : "the host could not be reached",
    cause,
  });
