/**
 * What the proxy answers instead of forwarding, as tagged values: each
 * becomes the Messages API's own error shape, `{type: "error", error: {type,
 * message}}`, so the SDK on the client reads it as it reads the API's.
 */
import { Data } from "effect";

/** The API's error types the proxy answers with. */
export type ProxyErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "request_too_large"
  | "rate_limit_error"
  | "overloaded_error"
  | "api_error"
  | "timeout_error";

/** The Messages API's error body. */
export interface ProxyErrorBody {
  readonly type: "error";
  readonly error: { readonly type: ProxyErrorType; readonly message: string };
}

/**
 * A request answered by the proxy itself: refused, or failed upstream. Never a bug.
 *
 * @example
 * ```ts
 * const response = await fetch("http://localhost:3000/claude/v1/messages", { method: "POST", headers, body });
 * if (response.status === 429) console.log(response.headers.get("retry-after")); // a ProxyRefusal, as the API's error body
 * ```
 */
export class ProxyRefusal extends Data.TaggedError("ProxyRefusal")<{
  readonly status: 400 | 401 | 404 | 405 | 408 | 413 | 422 | 429 | 502 | 503 | 504;
  readonly type: ProxyErrorType;
  readonly message: string;
  /** Headers the answer carries (`retry-after` on a 429, `allow` on a 405). */
  readonly headers?: Readonly<Record<string, string>>;
}> {
  /** The answer, as the API's error JSON. */
  toResponse(): Response {
    return errorResponse(this.status, this.type, this.message, this.headers);
  }
}

/** The API's error body, of `type`, saying `message`. */
export const proxyErrorBody = (type: ProxyErrorType, message: string): ProxyErrorBody => ({
  type: "error",
  error: { type, message },
});

export const errorResponse = (
  status: number,
  type: ProxyErrorType,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): Response => Response.json(proxyErrorBody(type, message), { status, headers });

/** The one answer to a bug: no message, no stack. */
export const internalError = (): Response => errorResponse(500, "api_error", "internal error");

export const unauthenticated = () =>
  new ProxyRefusal({ status: 401, type: "authentication_error", message: "no signed-in user" });

export const notFound = () =>
  new ProxyRefusal({
    status: 404,
    type: "not_found_error",
    message: "only POST …/v1/messages is proxied",
  });

export const methodNotAllowed = () =>
  new ProxyRefusal({
    status: 405,
    type: "invalid_request_error",
    message: "…/v1/messages takes POST",
    headers: { allow: "POST" },
  });

export const invalid = (message: string) =>
  new ProxyRefusal({ status: 400, type: "invalid_request_error", message });

export const tooLarge = (limit: number) =>
  new ProxyRefusal({
    status: 413,
    type: "request_too_large",
    message: `the body is over ${limit} bytes`,
  });

/** The body had not all arrived in time: 408 (and the connection is closed). */
export const bodyTooSlow = (limitMs: number) =>
  new ProxyRefusal({
    status: 408,
    type: "timeout_error",
    message: `the body took over ${limitMs / 1000} s to arrive`,
  });

/** A request the API would take but this proxy does not: 422, naming what. */
export const unprocessable = (message: string) =>
  new ProxyRefusal({ status: 422, type: "invalid_request_error", message });

/**
 * The message of the refusal a client that streams should fall back on (the adapter reads "Streaming").
 *
 * @example
 * ```ts
 * const body = await response.json();
 * if (body.error?.message === STREAMING_REFUSED) await sendWithoutStreaming();
 * ```
 */
export const STREAMING_REFUSED = "Streaming isn't proxied";

export const rateLimited = (retryAfterMs: number, calls: number, perSeconds: number) => {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new ProxyRefusal({
    status: 429,
    type: "rate_limit_error",
    message: `at most ${calls} requests per ${perSeconds} s for a user; retry in ${seconds} s`,
    headers: { "retry-after": String(seconds) },
  });
};

/** An amount of money as people read it: cents from a dollar up, else two significant digits. */
export const dollarsText = (dollars: number): string => {
  if (!(dollars > 0)) return "$0";
  return dollars >= 1 ? `$${dollars.toFixed(2)}` : `$${Number(dollars.toPrecision(2))}`;
};

/** An amount of money as the `elyra-budget-remaining` header says it: dollars, rounded down to the millionth. */
export const dollarsHeader = (dollars: number): string =>
  // By whole nano-dollars first, so 0.989738 (0.98973799… as a float) stays 0.989738.
  String(Math.floor(Math.round(Math.max(0, dollars) * 1e9) / 1000) / 1e6);

/** What a budget refusal says: the budget, what is left of it, what the request needed at least. */
export interface BudgetShortfall {
  readonly retryAfterMs: number;
  readonly budget: number;
  readonly perSeconds: number;
  readonly left: number;
  readonly least: number;
  /** Whether requests under way hold some of the budget, which they may give back. */
  readonly held: boolean;
}

/**
 * Too little of a user's money budget is left for even a short answer: 429
 * until the period ends, refused before anything goes upstream. With
 * nothing held by requests under way, no retry before then can pass, so the
 * SDK is told not to retry (`x-should-retry: false`).
 */
export const budgetSpent = (shortfall: BudgetShortfall) => {
  const seconds = Math.max(1, Math.ceil(shortfall.retryAfterMs / 1000));
  return new ProxyRefusal({
    status: 429,
    type: "rate_limit_error",
    message: `${dollarsText(shortfall.left)} is left of a user's budget of ${dollarsText(shortfall.budget)} per ${shortfall.perSeconds} s, too little for this request (at least ${dollarsText(shortfall.least)}); retry in ${seconds} s`,
    headers: {
      "retry-after": String(seconds),
      "elyra-budget-remaining": dollarsHeader(shortfall.left),
      ...(shortfall.held ? {} : { "x-should-retry": "false" }),
    },
  });
};

/** The usage store failed to reserve a request's money: refused, not passed (fail closed). */
export const budgetUnavailable = () =>
  new ProxyRefusal({
    status: 503,
    type: "api_error",
    message: "the budget can't be checked just now",
  });

/** The rate-limit store failed: refused, not passed (fail closed). */
export const limitUnavailable = () =>
  new ProxyRefusal({
    status: 503,
    type: "api_error",
    message: "the rate limit can't be checked just now",
  });

export const upstreamUnreachable = () =>
  new ProxyRefusal({
    status: 502,
    type: "api_error",
    message: "the Messages API can't be reached",
  });

export const upstreamTimeout = (timeoutMs: number) =>
  new ProxyRefusal({
    status: 504,
    type: "timeout_error",
    message: `the Messages API sent nothing for ${timeoutMs / 1000} s`,
  });

/**
 * Settings `createProxy` cannot run with (a cap, a rate limit or a budget that would let everything through): thrown when it is called.
 *
 * @example
 * ```ts
 * try {
 *   createProxy({ apiKey, authenticate, models: ["claude-sonnet-4-5"], maxTokens: 0 });
 * } catch (error) {
 *   if (error instanceof ProxyConfigError) console.error(error.message); // createProxy: …
 * }
 * ```
 */
export class ProxyConfigError extends Data.TaggedError("ProxyConfigError")<{
  readonly reason: string;
}> {
  override get message(): string {
    return `createProxy: ${this.reason}`;
  }
}
