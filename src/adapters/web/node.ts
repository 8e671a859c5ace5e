/**
 * A fetch handler on `node:http`, through `@hono/node-server`: the request as
 * a `Request` (its body streamed, its signal aborted when the client goes),
 * the `Response` streamed back as it is written, waiting when the socket is
 * full. Node's own `Request` and `Response` are left as they are.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { getRequestListener } from "@hono/node-server";
import { refusalResponse } from "./errorAnswer.ts";
import type { FetchHandler } from "./fetchHandler.ts";

/** Options of {@link toNodeListener}. */
export interface NodeListenerOptions {
  /** Told of an error the handler threw, answered 500 with nothing of it: `console.error` by default. */
  readonly onError?: (error: unknown) => void;
}

/**
 * A `node:http` request listener serving a fetch handler: the request's
 * signal aborts when the client disconnects (ending its event streams), and
 * the response is streamed back as it is written.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * const handle = assistantHttp(host, { token, authenticate });
 * createServer(toNodeListener(handle)).listen(3000);
 * ```
 */
export const toNodeListener = (
  handle: FetchHandler,
  options: NodeListenerOptions = {},
  // Typed with node:http's types alone, so a consumer's compiler never loads @hono/node-server's.
): ((message: IncomingMessage, out: ServerResponse) => Promise<void>) => {
  const report =
    options.onError ??
    ((error: unknown) => console.error("elyra-assistant/http: a response failed", error));
  return getRequestListener((request) => handle(request), {
    overrideGlobalObjects: false,
    errorHandler: (error) => {
      report(error);
      return refusalResponse(500, "internal", "internal error");
    },
  });
};
