/**
 * How a request reaches upstream, whatever carries it: the call, the answer
 * as the trip reads it, the wire that stops it, and the way through a
 * `fetch` (the app's, or the platform's off Node). The default way on Node
 * is undiciTransport.ts.
 */

/** One call upstream: always a POST. */
export interface UpstreamCall {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Tripped when the trip stops: the call, or the reading of its answer, is dropped. */
  readonly wire: Tripwire;
}

/** An answer's body, read once: chunk by chunk or whole. */
export interface UpstreamBody {
  /** The next chunk as it arrives; `undefined` at the end. */
  readonly read: () => Promise<Uint8Array | undefined>;
  /** What is left, whole. */
  readonly whole: () => Promise<Uint8Array<ArrayBuffer>>;
  /** Stops reading and drops the connection's answer. Never throws. */
  readonly cancel: () => void;
}

/** Upstream's answer: its status, its headers by (lower-case) name, its body if it has one. */
export interface UpstreamAnswer {
  readonly status: number;
  /** A header's value (several joined by ", ", as `Headers.get` does), or `null`. */
  readonly header: (name: string) => string | null;
  readonly body: UpstreamBody | null;
}

/**
 * What stops a call, tripped once when the trip stops. undici listens on it
 * as an emitter (`once("abort")`); `fetch` gets an `AbortSignal`, made only
 * when asked for, as Node's cost some microseconds each.
 */
export interface Tripwire {
  readonly aborted: boolean;
  readonly signal: AbortSignal;
  readonly once: (event: "abort", listener: () => void) => Tripwire;
  readonly on: (event: "abort", listener: () => void) => Tripwire;
  readonly removeListener: (event: "abort", listener: () => void) => Tripwire;
  readonly trip: () => void;
}

export const tripwire = (): Tripwire => {
  let aborted = false;
  let listeners: Array<() => void> = [];
  let controller: AbortController | undefined;
  const wire: Tripwire = {
    get aborted() {
      return aborted;
    },
    get signal() {
      if (controller === undefined) {
        controller = new AbortController();
        if (aborted) controller.abort();
      }
      return controller.signal;
    },
    // Every listener is told once: the wire trips once.
    once: (_, listener) => wire.on("abort", listener),
    on: (_, listener) => {
      listeners.push(listener);
      return wire;
    },
    removeListener: (_, listener) => {
      const at = listeners.indexOf(listener);
      if (at >= 0) listeners.splice(at, 1);
      return wire;
    },
    trip: () => {
      if (aborted) return;
      aborted = true;
      controller?.abort();
      const told = listeners;
      listeners = [];
      for (const listener of told) listener();
    },
  };
  return wire;
};

/** Sends one call; rejects when upstream can't be reached or the call is aborted. */
export type Transport = (call: UpstreamCall) => Promise<UpstreamAnswer>;

/** Through a `fetch`: the app's, or the platform's off Node. */
export const fetchTransport =
  (fetch: typeof globalThis.fetch): Transport =>
  async (call) => {
    const response = await fetch(call.url, {
      method: "POST",
      headers: call.headers,
      body: call.body,
      signal: call.wire.signal,
    });
    const body = response.body;
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    return {
      status: response.status,
      header: (name) => response.headers.get(name),
      body:
        body === null
          ? null
          : {
              read: async () => {
                reader ??= body.getReader();
                const next = await reader.read();
                return next.done ? undefined : next.value;
              },
              whole: async () => new Uint8Array(await response.arrayBuffer()),
              cancel: () => void (reader ?? body).cancel().catch(() => undefined),
            },
    };
  };
