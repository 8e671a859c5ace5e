/**
 * A stand-in for the Messages API on loopback, so the real SDK (its headers,
 * retries, errors, timeouts) is tested with no network.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Ids } from "../runtime/ports/ids.ts";
import {
  CacheRequestError,
  type PromptCache,
  type PromptCacheOptions,
  promptBlocks,
  promptCache,
} from "./promptCache.ts";
import {
  fails,
  isFailure,
  type ScriptedFailure,
  type ScriptedReply,
  type ScriptedResponse,
  toErrorBody,
  toMessage,
} from "./script.ts";
import { checkCodePause } from "./standInCodePause.ts";
import { playToolSearch, type SearchedRequest, toolSearchProblem } from "./standInToolSearch.ts";
import { encodeEvent, toStreamEvents, type WireStreamEvent } from "./streamEvents.ts";

/** A request the stand-in received: headers lower-cased, the body parsed (or `undefined`). */
export interface StandInRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/** A running stand-in for the Messages API: its URL for the SDK, what it received, and how to stop it. */
export interface StandInMessagesApi {
  /** The base URL to give the SDK (`baseURL`). */
  readonly url: string;
  /** Every request received, in order, including those answered with an error. */
  readonly requests: ReadonlyArray<StandInRequest>;
  /**
   * Indexes into `requests` of answers whose connection closed before they
   * were finished: the client left (an abort, a watchdog), or a scripted reset.
   */
  readonly abandoned: ReadonlyArray<number>;
  /** Stops listening and drops open connections. */
  readonly close: () => Promise<void>;
}

/** How a stand-in makes its ids. */
export interface StandInOptions {
  /** Ids for messages, tool calls and `request-id`s; counting from 1 unless given. */
  readonly ids?: Ids;
  /**
   * Whether it caches prompts as the API does (see {@link promptCache}):
   * then each reply's input tokens, cache reads and cache writes are
   * counted from the request and its breakpoints, over the script's own.
   * Off unless given.
   */
  readonly promptCache?: boolean | PromptCacheOptions;
  /**
   * The model's context window, in tokens as the stand-in estimates them
   * (its prompt: the tools not deferred, the system prompt, the messages): a
   * request over it is refused with the API's 400, "prompt is too long: N
   * tokens > M maximum", and uses no script entry. 200 000 unless given.
   */
  readonly contextWindow?: number;
}

/** The context window of a stand-in not told one: the standard window of Claude's models. */
export const STAND_IN_CONTEXT_WINDOW = 200_000;

/** Statuses the SDK retries on its own. */
const retryable = (status: number): boolean =>
  status === 408 || status === 409 || status === 429 || status >= 500;

/**
 * Starts a Messages API on `127.0.0.1` (a free port) that answers
 * `POST /v1/messages` from a script: the next response of a list per request,
 * or what a function of the request returns. A request with `stream: true`
 * is answered with `text/event-stream` as the API streams it (see
 * {@link toStreamEvents}), with the reply's streaming faults applied; others
 * with the whole JSON message. Requests without credentials get a 401,
 * malformed ones a 400, as the API does, and use no script entry. A reply's
 * `searchTools` is played over the request's deferred tools as the API's
 * tool search (see {@link playToolSearch}).
 *
 * @example
 * ```ts
 * const api = await standInMessagesApi([overloaded(), says("Hello")]);
 * const client = new Anthropic({ baseURL: api.url, apiKey: "test-key" });
 * // … client.messages.create(…) retries the 529 and resolves to "Hello"
 * await api.close();
 * ```
 */
export const standInMessagesApi = async (
  script: ReadonlyArray<ScriptedResponse> | ((request: StandInRequest) => ScriptedResponse),
  options: StandInOptions = {},
): Promise<StandInMessagesApi> => {
  const ids = options.ids ?? counting();
  const cache: PromptCache | undefined =
    options.promptCache === undefined || options.promptCache === false
      ? undefined
      : promptCache(options.promptCache === true ? {} : options.promptCache);
  const contextWindow = options.contextWindow ?? STAND_IN_CONTEXT_WINDOW;
  const requests: StandInRequest[] = [];
  const abandoned: number[] = [];
  let played = 0;

  const next = (request: StandInRequest): ScriptedResponse => {
    if (typeof script === "function") return script(request);
    const response = script[played++];
    return (
      response ?? {
        error: {
          status: 500,
          type: "api_error",
          message: `the stand-in's script has ${script.length} responses and this is request ${played}`,
          shouldRetry: false,
        },
      }
    );
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    res.setHeader("request-id", `req_${ids.next()}`);
    const raw = await readBody(req);
    const request: StandInRequest = {
      method: req.method ?? "GET",
      path: new URL(req.url ?? "/", "http://stand-in").pathname,
      headers: flatten(req.headers),
      body: parseJson(raw),
    };
    const index = requests.push(request) - 1;
    res.once("close", () => {
      if (!res.writableFinished) abandoned.push(index);
    });

    if (request.path !== "/v1/messages" || request.method !== "POST") {
      return sendError(res, fails(404, "not_found_error", `${request.method} ${request.path}`));
    }
    const problem =
      check(request) ??
      toolSearchProblem(request.body as SearchedRequest) ??
      tooLong(request.body as Record<string, unknown>, contextWindow);
    if (problem !== undefined) return sendError(res, problem);

    const scripted = next(request);
    if (!(await delay(scripted.delayMs ?? 0, res))) return;
    if (isFailure(scripted)) return sendError(res, scripted);
    const searched = playToolSearch(request.body as SearchedRequest, scripted, ids);
    if (isFailure(searched)) return sendError(res, searched);
    let response = searched;
    if (cache !== undefined) {
      try {
        response = withCachedUsage(response, cache.usage(request.body as Record<string, unknown>));
      } catch (error) {
        if (error instanceof CacheRequestError) {
          return sendError(res, fails(400, "invalid_request_error", error.message));
        }
        throw error;
      }
    }
    const { model, stream } = request.body as { model: string; stream?: unknown };
    if (stream !== true || response.jsonToStream === true) {
      return send(res, 200, toMessage(response, ids, model));
    }
    await sendStream(res, response, toStreamEvents(response, ids, model));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((cause: unknown) => {
      if (!res.headersSent) {
        sendError(res, {
          error: { status: 500, type: "api_error", message: String(cause), shouldRetry: false },
        });
      } else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    abandoned,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
};

/** The API's refusal of a prompt over the context window, or nothing. */
const tooLong = (body: Record<string, unknown>, window: number): ScriptedFailure | undefined => {
  let tokens = 0;
  try {
    for (const block of promptBlocks(body)) tokens += block.tokens;
  } catch (error) {
    // A prompt the cache can't lay out is refused by the cache, with its own words.
    if (error instanceof CacheRequestError) return undefined;
    throw error;
  }
  return tokens > window
    ? fails(
        400,
        "invalid_request_error",
        `prompt is too long: ${tokens} tokens > ${window} maximum`,
      )
    : undefined;
};

/** A reply with the input side of its usage as the prompt cache counted it. */
const withCachedUsage = (
  reply: ScriptedReply,
  usage: ReturnType<PromptCache["usage"]>,
): ScriptedReply => ({
  ...reply,
  usage: {
    ...reply.usage,
    inputTokens: usage.input_tokens,
    cacheReadTokens: usage.cache_read_input_tokens,
    cacheWriteTokens: usage.cache_creation_input_tokens,
    cacheWrite1hTokens: usage.cache_creation.ephemeral_1h_input_tokens,
  },
});

/** Why the API would refuse this request before the model sees it, if it would. */
const check = (request: StandInRequest): ScriptedFailure | undefined => {
  const { headers, body } = request;
  if (!headers.authorization && !headers["x-api-key"]) {
    return fails(401, "authentication_error", "x-api-key or authorization header is required");
  }
  if (!headers["anthropic-version"]) {
    return fails(400, "invalid_request_error", "anthropic-version: header is required");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return fails(400, "invalid_request_error", "the request body is not a JSON object");
  }
  const fields = body as Record<string, unknown>;
  for (const field of ["model", "max_tokens", "messages"]) {
    if (fields[field] === undefined) {
      return fails(400, "invalid_request_error", `${field}: Field required`);
    }
  }
  return checkCodePause(fields);
};

const sendError = (res: ServerResponse, failure: ScriptedFailure): void => {
  const { status, shouldRetry, retryAfterMs } = failure.error;
  if (shouldRetry !== undefined) res.setHeader("x-should-retry", String(shouldRetry));
  if (retryable(status) && shouldRetry !== false) {
    res.setHeader("retry-after-ms", String(retryAfterMs ?? 1));
  }
  send(res, status, toErrorBody(failure));
};

const send = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

/**
 * Streams `events` with the reply's fault applied (one of `errorAfter`,
 * `cutAfter`, `stallAfter`, in that order of precedence), an event a write or
 * in `chunkBytes` chunks, `paceMs` apart. Faults land before `message_stop`.
 */
const sendStream = async (
  res: ServerResponse,
  reply: ScriptedReply,
  events: ReadonlyArray<WireStreamEvent>,
): Promise<void> => {
  const beforeStop = (n: number) => Math.max(0, Math.min(Math.floor(n), events.length - 1));
  let sent = events;
  let ending: "end" | "reset" | "stall" = "end";
  if (reply.errorAfter !== undefined) {
    const fault =
      typeof reply.errorAfter === "number" ? { events: reply.errorAfter } : reply.errorAfter;
    const error = {
      type: "error",
      error: { type: fault.type ?? "overloaded_error", message: fault.message ?? "Overloaded" },
    };
    sent = [...events.slice(0, beforeStop(fault.events)), error];
  } else if (reply.cutAfter !== undefined) {
    sent = events.slice(0, beforeStop(reply.cutAfter));
    ending = reply.cutHow ?? "end";
  } else if (reply.stallAfter !== undefined) {
    sent = events.slice(0, beforeStop(reply.stallAfter));
    ending = "stall";
  } else if (reply.lingerAfterStop === true) {
    ending = "stall";
  }

  res.on("error", () => {});
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
  });
  res.flushHeaders();
  const writes =
    reply.chunkBytes === undefined
      ? sent.map(encodeEvent)
      : chunks(Buffer.from(sent.map(encodeEvent).join("")), reply.chunkBytes);
  const paceMs = reply.paceMs ?? 0;
  for (const [i, write] of writes.entries()) {
    if (i > 0 && !(await pause(paceMs, res))) return;
    if (res.destroyed) return;
    if (!res.write(write) && !(await drained(res))) return;
  }
  if (ending === "stall") return closed(res);
  // Half-closing the socket without the chunked body's last chunk: the client's read breaks.
  if (ending === "reset") return void res.socket?.end();
  res.end();
};

/** `body` cut into chunks of `sizes` bytes, cycled. */
const chunks = (body: Buffer, sizes: ReadonlyArray<number>): Buffer[] => {
  const out: Buffer[] = [];
  for (let at = 0, i = 0; at < body.length; i++) {
    const size = Math.max(1, Math.floor(sizes[i % Math.max(1, sizes.length)] ?? body.length));
    out.push(body.subarray(at, at + size));
    at += size;
  }
  return out;
};

/** A turn of the event loop (so each write goes out on its own), or `ms`; false if the client left. */
const pause = (ms: number, res: ServerResponse): Promise<boolean> =>
  ms > 0 ? delay(ms, res) : new Promise((resolve) => setImmediate(() => resolve(!res.destroyed)));

const drained = (res: ServerResponse): Promise<boolean> =>
  new Promise((resolve) => {
    const done = (ok: boolean) => () => {
      res.off("drain", onDrain);
      res.off("close", onClose);
      resolve(ok);
    };
    const onDrain = done(true);
    const onClose = done(false);
    res.once("drain", onDrain);
    res.once("close", onClose);
  });

/** Resolves when the connection closes: a stalled answer waits for the client to leave. */
const closed = (res: ServerResponse): Promise<void> =>
  res.destroyed ? Promise.resolve() : new Promise((resolve) => res.once("close", () => resolve()));

/** Waits `ms`; false if the client went away meanwhile. */
const delay = (ms: number, res: ServerResponse): Promise<boolean> =>
  ms <= 0
    ? Promise.resolve(true)
    : new Promise((resolve) => {
        const timer = setTimeout(() => {
          res.off("close", gone);
          resolve(true);
        }, ms);
        function gone() {
          clearTimeout(timer);
          resolve(false);
        }
        res.once("close", gone);
      });

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

const parseJson = (raw: string): unknown => {
  if (raw === "") return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
};

const flatten = (headers: IncomingMessage["headers"]): Record<string, string> => {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
};

const counting = (): Ids => {
  let n = 0;
  return { next: () => `stand-in-${++n}` };
};
