/**
 * A fetch handler on `node:http`: the request as a `Request` (its body
 * streamed, its signal aborted when the client goes), the `Response` streamed
 * back as it is written. Only types are taken from Node.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { FetchHandler } from "./fetchHandler.ts";

/** Options of {@link toNodeListener}. */
export interface NodeListenerOptions {
  /** Told when writing a response fails: `console.error` by default. */
  readonly onError?: (error: unknown) => void;
}

/**
 * The body of an incoming message as a stream that reads no faster than it is
 * consumed, and a way to drop what the handler left unread.
 */
const bodyOf = (message: IncomingMessage) => {
  let done = false;
  let body: ReadableStreamDefaultController<Uint8Array> | undefined;
  // Read to its end and dropped, so the connection can carry the next request. A body still
  // being read when the client leaves ends in an error, so no reader waits for it forever.
  const discard = () => {
    if (!done)
      body?.error(new DOMException("the client left before the body was sent", "AbortError"));
    done = true;
    message.resume();
  };
  const stream = new ReadableStream<Uint8Array>({
    start: (controller) => {
      body = controller;
      message.on("data", (chunk: Uint8Array) => {
        if (done) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) message.pause();
      });
      message.on("end", () => {
        if (done) return;
        done = true;
        controller.close();
      });
      message.on("error", (error) => {
        if (done) return;
        done = true;
        controller.error(error);
      });
    },
    pull: () => {
      message.resume();
    },
    cancel: () => {
      done = true;
      message.resume();
    },
  });
  return { stream, discard };
};

/** The request a fetch handler is given for an incoming message. */
const requestOf = (
  message: IncomingMessage,
  body: ReadableStream<Uint8Array> | undefined,
  signal: AbortSignal,
): Request => {
  const headers = new Headers();
  const raw = message.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    if (!name.startsWith(":")) headers.append(name, raw[i + 1] as string);
  }
  const secure = (message.socket as { encrypted?: boolean } | null)?.encrypted === true;
  const url = new URL(
    message.url ?? "/",
    `${secure ? "https" : "http"}://${headers.get("host") ?? "localhost"}`,
  );
  // `duplex` is what Node's fetch needs for a streamed body; the DOM types don't have it yet.
  const init = { method: message.method, headers, signal, body, duplex: "half" };
  return new Request(url, init as RequestInit);
};

/** Writes a response, its body as it comes, waiting when the socket is full. */
const write = async (response: Response, out: ServerResponse): Promise<void> => {
  out.statusCode = response.status;
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") out.setHeader(name, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) out.setHeader("set-cookie", cookies);
  if (response.body === null) {
    out.end();
    return;
  }
  // Headers go now: an event stream's first event may be a while away.
  out.flushHeaders();
  const reader = response.body.getReader();
  const gone = () => void reader.cancel().catch(() => undefined);
  out.on("close", gone);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || out.destroyed) break;
      if (!out.write(value)) {
        await new Promise<void>((resolve) => {
          const go = () => {
            out.off("drain", go);
            out.off("close", go);
            resolve();
          };
          out.on("drain", go);
          out.on("close", go);
        });
      }
    }
  } finally {
    out.off("close", gone);
    out.end();
  }
};

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
export const toNodeListener =
  (handle: FetchHandler, options: NodeListenerOptions = {}) =>
  (message: IncomingMessage, out: ServerResponse): void => {
    const report =
      options.onError ??
      ((error: unknown) => console.error("elyra-assistant/http: a response failed", error));
    const controller = new AbortController();
    const method = message.method ?? "GET";
    const body = method === "GET" || method === "HEAD" ? undefined : bodyOf(message);
    out.on("close", () => {
      body?.discard();
      if (!out.writableFinished) controller.abort();
    });
    Promise.resolve()
      .then(() => handle(requestOf(message, body?.stream, controller.signal)))
      .then((response) => write(response, out))
      .catch((error: unknown) => {
        report(error);
        if (!out.headersSent) {
          out.statusCode = 500;
          out.setHeader("content-type", "application/json");
          out.end(JSON.stringify({ error: { type: "internal", message: "internal error" } }));
        } else out.destroy();
      });
  };
