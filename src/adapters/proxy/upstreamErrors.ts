/**
 * Upstream's refusals in the proxy's own words: an error answer from the
 * Messages API keeps its status and its error type (when it is one the API
 * documents), but its message is the proxy's, so nothing upstream says of
 * the server's account, key or organisation reaches a client. Its
 * `request-id` passes for support, and `retry-after`, `retry-after-ms` and
 * `x-should-retry`, so the client's SDK backs off as upstream asks.
 */
import type { ServerResponse } from "node:http";
import { type ProxyErrorType, proxyErrorBody } from "./errors.ts";
import { type Run, readWhole } from "./run.ts";
import type { UpstreamAnswer } from "./transport.ts";

/** What the proxy says for each error type the API documents. */
const WORDS: Readonly<Record<ProxyErrorType, string>> = {
  invalid_request_error: "the Messages API refused the request as invalid",
  authentication_error: "the Messages API refused this proxy's credentials",
  permission_error: "this proxy's credentials may not do this",
  not_found_error: "the Messages API found no such model or resource",
  request_too_large: "the request is too large for the Messages API",
  rate_limit_error: "this proxy is rate limited by the Messages API; try again later",
  overloaded_error: "the Messages API is overloaded; try again shortly",
  api_error: "the Messages API failed to answer",
  timeout_error: "the Messages API took too long to answer",
};

const isKnown = (type: unknown): type is ProxyErrorType =>
  typeof type === "string" && Object.hasOwn(WORDS, type);

/** The error type upstream's body names, when it is the API's error JSON with a known type. */
const typeOf = (bytes: Uint8Array): ProxyErrorType => {
  try {
    const type = (JSON.parse(new TextDecoder().decode(bytes)) as { error?: { type?: unknown } })
      ?.error?.type;
    return isKnown(type) ? type : "api_error";
  } catch {
    return "api_error";
  }
};

/** The headers of an upstream refusal that reach the client. */
const PASSED = ["request-id", "retry-after", "retry-after-ms", "x-should-retry"] as const;

/**
 * Upstream's error answer (status ≥ 400), read whole and answered in the
 * proxy's words: as a `Response`, or written to Node's `node` (resolving
 * `undefined`). A body that could not be read is the run's failure.
 */
export const answerRefusal = async (
  run: Run,
  answer: UpstreamAnswer,
  node?: ServerResponse,
): Promise<Response | undefined> => {
  const bytes = answer.body === null ? new Uint8Array() : await readWhole(run, answer, answer.body);
  if (bytes === undefined) return run.failed();
  run.finish();
  const type = typeOf(bytes);
  const body = JSON.stringify(proxyErrorBody(type, WORDS[type]));
  const headers: Record<string, string> = {
    ...run.trip.headers,
    "content-type": "application/json",
  };
  for (const name of PASSED) {
    const value = answer.header(name);
    if (value !== null) headers[name] = value;
  }
  if (node === undefined) return new Response(body, { status: answer.status, headers });
  headers["content-length"] = String(Buffer.byteLength(body));
  node.writeHead(answer.status, headers);
  node.end(body);
  return undefined;
};
