/**
 * The default way upstream on Node: undici's `request()` over kept-alive
 * connections, without fetch's WHATWG streams, `Request` and `Headers` on
 * either side; the answer's Node stream is read as it is (its chunks pushed
 * to a sink, paused and resumed), so that a proxy served on `node:http`
 * pipes it into Node's response. undici is loaded when a proxy without a
 * `fetch` is made, not when the module is imported. It is an optional peer:
 * without it the proxy goes by the platform's `fetch`, slower (about half
 * the requests a second on the proxy bench) and otherwise the same.
 */
import type { Dispatcher } from "undici";
import {
  type ChunkSink,
  fetchTransport,
  type Transport,
  type UpstreamAnswer,
  type UpstreamBody,
} from "./transport.ts";

type Undici = typeof import("undici");

let undici: Undici | undefined;
let loading: Promise<Undici> | undefined;
const loadUndici = async (): Promise<Undici> => {
  loading ??= import("undici").then((module) => {
    undici = module;
    return module;
  });
  return loading;
};

/** Starts loading undici, so the first request doesn't wait for it. */
export const preloadUndici = (): void => {
  loadUndici().catch(() => undefined);
};

let ownAgent: Dispatcher | undefined;
let seen: Dispatcher | undefined;
let chosen: Dispatcher | undefined;

/**
 * The dispatcher a call goes by: the global one when the app set it
 * (`setGlobalDispatcher`: an egress proxy, a mock, an agent of its own), as
 * the platform's `fetch` would; in place of Node's own default agent (the
 * copy bundled with Node, which this undici drives through a layer of
 * compatibility), a kept-alive `Agent` of this undici, one per process.
 */
const dispatcherOf = (from: Undici): Dispatcher => {
  const global = from.getGlobalDispatcher();
  if (global !== seen || chosen === undefined) {
    seen = global;
    const nodesDefault =
      !(global instanceof from.Dispatcher) && (global as object).constructor.name === "Agent";
    if (nodesDefault && ownAgent === undefined) ownAgent = new from.Agent();
    chosen = nodesDefault && ownAgent !== undefined ? ownAgent : global;
  }
  return chosen;
};

let parsed: { readonly url: string; readonly origin: string; readonly path: string } | undefined;
/** The origin and path of the URL a call goes to, parsed once for a proxy's one upstream. */
const targetOf = (url: string): { readonly origin: string; readonly path: string } => {
  if (parsed?.url !== url) {
    const { origin, pathname, search } = new URL(url);
    parsed = { url, origin, path: `${pathname}${search}` };
  }
  return parsed;
};

/** The statuses whose answer has no body, as `fetch` reads them. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** A destroyed body ends its iterator with an error; none must go unhandled. */
const ignore = (): void => undefined;

/** undici's answer, its body read as its Node stream: chunks, pause and resume, as they are. */
class UndiciAnswer implements UpstreamAnswer, UpstreamBody {
  readonly status: number;
  readonly body: UpstreamBody | null;
  private readonly stream: Dispatcher.ResponseData["body"];
  private chunks: AsyncIterator<Uint8Array> | undefined;

  constructor(private readonly answer: Dispatcher.ResponseData) {
    this.status = answer.statusCode;
    this.stream = answer.body;
    this.stream.on("error", ignore);
    if (NULL_BODY.has(this.status)) {
      this.stream.destroy();
      this.body = null;
    } else this.body = this;
  }

  header(name: string): string | null {
    const value = this.answer.headers[name];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(", ") : value;
  }

  async read(): Promise<Uint8Array | undefined> {
    this.chunks ??= this.stream[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
    const next = await this.chunks.next();
    return next.done === true ? undefined : next.value;
  }

  whole(): Promise<Uint8Array<ArrayBuffer>> {
    return this.stream.bytes() as Promise<Uint8Array<ArrayBuffer>>;
  }

  flow(sink: ChunkSink): void {
    const stream = this.stream;
    let ended = false;
    stream.on("data", (chunk: Uint8Array) => {
      if (!sink.chunk(chunk)) stream.pause();
    });
    stream.once("end", () => {
      ended = true;
      sink.end();
    });
    // After an error, or a destroy without one (the call's wire tripped).
    stream.once("close", () => {
      if (!ended) sink.fail(stream.errored);
    });
  }

  resume(): void {
    this.stream.resume();
  }

  cancel(): void {
    this.stream.destroy();
  }
}

/** The platform's `fetch`: the way upstream when undici, an optional peer, is not installed. */
const platformFetch: Transport = fetchTransport((input, init) => globalThis.fetch(input, init));
/** Set once undici could not be loaded: every call goes by `fetch`, as before 0.3. */
let unavailable = false;

/** Through undici's `request()`, stopped by the call's wire; by `fetch` without undici. */
export const undiciTransport: Transport = async (call) => {
  if (unavailable) return platformFetch(call);
  let from: Undici;
  try {
    from = undici ?? (await loadUndici());
  } catch {
    unavailable = true;
    return platformFetch(call);
  }
  const { origin, path } = targetOf(call.url);
  // undici's request() on the dispatcher, as its top-level request() calls it (any dispatcher,
  // one with dispatch() alone too), without parsing the URL again each call.
  const request = from.Dispatcher.prototype.request as (
    this: Dispatcher,
    options: Dispatcher.RequestOptions,
  ) => Promise<Dispatcher.ResponseData>;
  const answer = await request.call(dispatcherOf(from), {
    origin,
    path,
    method: "POST",
    headers: call.headers,
    body: call.body,
    // An emitter undici listens on (`once("abort")`), so no AbortSignal is made per call.
    signal: call.wire as unknown as NonNullable<Dispatcher.RequestOptions["signal"]>,
  });
  return new UndiciAnswer(answer);
};

/** Whether this runtime is Node itself (not Bun or Deno, which have Node's modules too). */
const onNode = (): boolean =>
  typeof process !== "undefined" &&
  typeof process.versions?.node === "string" &&
  !("Bun" in globalThis) &&
  !("Deno" in globalThis);

/**
 * The transport for `fetch` as the app set it: that `fetch` when given;
 * undici's `request()` on Node; the platform's `fetch` elsewhere.
 */
export const transportFor = (fetch: typeof globalThis.fetch | undefined): Transport => {
  if (fetch !== undefined) return fetchTransport(fetch);
  if (!onNode()) return fetchTransport((input, init) => globalThis.fetch(input, init));
  preloadUndici();
  return undiciTransport;
};
