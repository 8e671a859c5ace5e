/**
 * A fetch handler on `node:http`, through `@hono/node-server`: the request as
 * a `Request` (its body streamed, its signal aborted when the client goes),
 * the `Response` streamed back as it is written, waiting when the socket is
 * full. Node's own `Request` and `Response` are left as they are. A handler
 * with a {@link NodeAnswer} of its own (the proxy) is given Node's response to
 * write itself.
 */
import { type IncomingMessage, ServerResponse } from "node:http";
import { getRequestListener, type Http2Bindings, type HttpBindings } from "@hono/node-server";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { refusalResponse } from "./errorAnswer.ts";
import type { FetchHandler } from "./fetchHandler.ts";
import { ANSWER_ON_NODE, type AnswersOnNode, type NodeAnswer } from "./nodeAnswer.ts";

/** Options of {@link toNodeListener}. */
export interface NodeListenerOptions {
  /** Told of an error the handler threw, answered 500 with nothing of it: `console.error` by default. */
  readonly onError?: (error: unknown) => void;
}

/**
 * An answer given before the request's body all arrived (a refusal that
 * read none of it, or stopped reading: too large, too slow) closes the
 * connection once it is sent, and says so (`connection: close`): the
 * rest of the body can't be told from a next request, and a client that
 * kept the connection alive would send its next request on one that is
 * then torn down.
 */
const closeIfUnread = (env: HttpBindings | Http2Bindings): void => {
  const { incoming, outgoing } = env;
  if (!(outgoing instanceof ServerResponse) || incoming.complete || outgoing.headersSent) return;
  outgoing.setHeader("connection", "close");
};

/** The handler as the listener calls it: by its own {@link NodeAnswer} on an HTTP/1 response, if it has one. */
const callbackOf = (handle: FetchHandler) => {
  const onNode: NodeAnswer | undefined = (handle as AnswersOnNode)[ANSWER_ON_NODE];
  return async (request: Request, env: HttpBindings | Http2Bindings): Promise<Response> => {
    // An HTTP/2 compatibility response is answered the web way.
    if (onNode === undefined || !(env.outgoing instanceof ServerResponse)) {
      const response = await handle(request);
      closeIfUnread(env);
      return response;
    }
    const answered = await onNode(request, env.outgoing);
    if (answered === undefined) return RESPONSE_ALREADY_SENT; // the listener writes nothing more
    closeIfUnread(env);
    return answered;
  };
};

/**
 * A `node:http` request listener serving a fetch handler: the request's
 * signal aborts when the client disconnects (ending its event streams), and
 * the response is streamed back as it is written. A handler that answers on
 * Node itself (the proxy) is given the response to write.
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
  return getRequestListener(callbackOf(handle), {
    overrideGlobalObjects: false,
    errorHandler: (error) => {
      report(error);
      return refusalResponse(500, "internal", "internal error");
    },
  });
};
