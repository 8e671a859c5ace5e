/**
 * The default way upstream on Node: undici's `request()` over kept-alive
 * connections, without fetch's WHATWG streams, `Request` and `Headers` on
 * either side. undici is loaded when a proxy without a `fetch` is made, not
 * when the module is imported. It is an optional peer: without it the proxy
 * goes by the platform's `fetch`, slower (about half the requests a second
 * on the proxy bench) and otherwise the same.
 */
import type { Dispatcher } from "undici";
import { fetchTransport, type Transport } from "./transport.ts";

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

/** The statuses whose answer has no body, as `fetch` reads them. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

const headerOf =
  (headers: Dispatcher.ResponseData["headers"]) =>
  (name: string): string | null => {
    const value = headers[name];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(", ") : value;
  };

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
  const answer = await from.request(call.url, {
    dispatcher: dispatcherOf(from),
    method: "POST",
    headers: call.headers,
    body: call.body,
    // An emitter undici listens on (`once("abort")`), so no AbortSignal is made per call.
    signal: call.wire as unknown as NonNullable<Dispatcher.RequestOptions["signal"]>,
  });
  const { body } = answer;
  // A destroyed body ends its iterator with an error; none must go unhandled.
  body.on("error", () => undefined);
  if (NULL_BODY.has(answer.statusCode)) {
    body.destroy();
    return { status: answer.statusCode, header: headerOf(answer.headers), body: null };
  }
  let chunks: AsyncIterator<Uint8Array> | undefined;
  return {
    status: answer.statusCode,
    header: headerOf(answer.headers),
    body: {
      read: async () => {
        chunks ??= body[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
        const next = await chunks.next();
        return next.done === true ? undefined : next.value;
      },
      whole: () => body.bytes() as Promise<Uint8Array<ArrayBuffer>>,
      cancel: () => void body.destroy(),
    },
  };
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
