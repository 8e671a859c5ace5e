/**
 * The trip upstream: the request sent with the server's key and nothing of
 * the client's, the answer passed back (the event stream as it arrives, byte
 * for byte; anything else whole; a refusal in the proxy's words), under an idle timeout on the injected
 * clock. The answer goes back as a `Response` (answerWeb.ts), or, when the
 * proxy is served on `node:http`, straight into Node's response
 * (answerNode.ts).
 */
import type { ServerResponse } from "node:http";
import { answerNode } from "./answerNode.ts";
import { answerWeb } from "./answerWeb.ts";
import { Run, type Trip } from "./run.ts";
import type { UpstreamAnswer } from "./transport.ts";
import { answerRefusal } from "./upstreamErrors.ts";

/** The headers of upstream's answer that reach the client; every other is dropped. */
const PASSED_HEADERS = ["content-type", "request-id"] as const;

/**
 * The `anthropic-version` sent when the client's is missing or not a date.
 *
 * @example
 * ```ts
 * const headers = { "anthropic-version": DEFAULT_ANTHROPIC_VERSION, "content-type": "application/json" };
 * ```
 */
export const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";

const VERSION = /^\d{4}-\d{2}-\d{2}$/;

/** The headers sent upstream: the server's key, the client's `anthropic-version` if it is a date. */
const upstreamHeaders = (trip: Trip): Record<string, string> => ({
  "content-type": "application/json",
  "x-api-key": trip.apiKey,
  "anthropic-version":
    trip.version !== null && VERSION.test(trip.version) ? trip.version : DEFAULT_ANTHROPIC_VERSION,
});

/** The headers of upstream's answer the client gets, after the proxy's own. */
const passedHeaders = (answer: UpstreamAnswer, own: Trip["headers"]): Record<string, string> => {
  const headers: Record<string, string> = { ...own };
  for (const name of PASSED_HEADERS) {
    const value = answer.header(name);
    if (value !== null) headers[name] = value;
  }
  return headers;
};

/**
 * Forwards the request and answers with upstream's answer: as a `Response`,
 * or, given Node's response `node`, written there (resolving `undefined`;
 * a failure before upstream's answer still resolves its `Response`). The
 * meter is settled exactly once, when the answer ends, fails, times out or
 * the client leaves (the request's signal; Node's response closing, when
 * given).
 */
export const forward = async (
  trip: Trip,
  request: Request,
  node?: ServerResponse,
): Promise<Response | undefined> => {
  const run = new Run(trip);
  if (!run.watch(request, node)) {
    // Gone already: nothing goes upstream.
    run.stop("client");
    return run.failed();
  }
  run.arm();
  let answer: UpstreamAnswer;
  try {
    answer = await Promise.race([
      trip.transport({
        url: trip.url,
        headers: upstreamHeaders(trip),
        body: trip.body,
        wire: run.wire,
      }),
      run.stopped,
    ]);
  } catch {
    return run.failed();
  }
  // Upstream's refusals are answered in the proxy's own words (upstreamErrors.ts).
  if (answer.status >= 400) return answerRefusal(run, answer, node);
  const headers = passedHeaders(answer, trip.headers);
  return node === undefined
    ? answerWeb(run, answer, headers)
    : answerNode(run, answer, headers, node);
};
