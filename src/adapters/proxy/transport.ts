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

/** Where {@link UpstreamBody.flow} delivers an answer's chunks, as they arrive. */
export interface ChunkSink {
  /** A chunk; `false` pauses the flow until the body's `resume()`. */
  chunk(bytes: Uint8Array): boolean;
  /** The body ended whole. */
  end(): void;
  /** The body broke off (or was cancelled) before its end: why, when known. */
  fail(error: unknown): void;
}

/** An answer's body, read once: chunk by chunk, whole, or pushed to a sink. */
export interface UpstreamBody {
  /** The next chunk as it arrives; `undefined` at the end. */
  read(): Promise<Uint8Array | undefined>;
  /** What is left, whole. */
  whole(): Promise<Uint8Array<ArrayBuffer>>;
  /**
   * Pushes every chunk to `sink` as it arrives, then its end or failure: no
   * promise per chunk, for piping into a Node response.
   */
  flow(sink: ChunkSink): void;
  /** Resumes a flow the sink paused. */
  resume(): void;
  /** Stops reading and drops the connection's answer. Never throws. */
  cancel(): void;
}

/** Upstream's answer: its status, its headers by (lower-case) name, its body if it has one. */
export interface UpstreamAnswer {
  readonly status: number;
  /** A header's value (several joined by ", ", as `Headers.get` does), or `null`. */
  header(name: string): string | null;
  readonly body: UpstreamBody | null;
}

/**
 * What stops a call, tripped once when the trip stops. undici listens on it
 * as an emitter (`once("abort")`); `fetch` gets an `AbortSignal`, made only
 * when asked for, as Node's cost some microseconds each. Methods, not
 * closures: one is made per call.
 */
export class Tripwire {
  private tripped = false;
  private listeners: Array<() => void> = [];
  private controller: AbortController | undefined;

  get aborted(): boolean {
    return this.tripped;
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.tripped) this.controller.abort();
    }
    return this.controller.signal;
  }

  /** Every listener is told once: the wire trips once. */
  once(event: "abort", listener: () => void): this {
    return this.on(event, listener);
  }

  /** Tells `listener` when the wire trips. */
  on(_event: "abort", listener: () => void): this {
    this.listeners.push(listener);
    return this;
  }

  /** Tells `listener` nothing more. */
  removeListener(_event: "abort", listener: () => void): this {
    const at = this.listeners.indexOf(listener);
    if (at >= 0) this.listeners.splice(at, 1);
    return this;
  }

  /** Trips the wire: every listener is told, the signal (if made) aborts. Once. */
  trip(): void {
    if (this.tripped) return;
    this.tripped = true;
    this.controller?.abort();
    const told = this.listeners;
    this.listeners = [];
    for (const listener of told) listener();
  }
}

/** Sends one call; rejects when upstream can't be reached or the call is aborted. */
export type Transport = (call: UpstreamCall) => Promise<UpstreamAnswer>;

/** A web stream's body: read by its reader, pushed to a sink by a loop of reads. */
class WebBody implements UpstreamBody {
  private reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  private paused: (() => void) | undefined;

  constructor(
    private readonly response: Response,
    private readonly stream: ReadableStream<Uint8Array>,
  ) {}

  async read(): Promise<Uint8Array | undefined> {
    this.reader ??= this.stream.getReader();
    const next = await this.reader.read();
    return next.done ? undefined : next.value;
  }

  async whole(): Promise<Uint8Array<ArrayBuffer>> {
    return new Uint8Array(await this.response.arrayBuffer());
  }

  flow(sink: ChunkSink): void {
    const pump = async () => {
      for (let next = await this.read(); next !== undefined; next = await this.read()) {
        if (!sink.chunk(next)) await new Promise<void>((resume) => (this.paused = resume));
      }
      sink.end();
    };
    pump().catch((error: unknown) => sink.fail(error));
  }

  resume(): void {
    const paused = this.paused;
    this.paused = undefined;
    paused?.();
  }

  cancel(): void {
    (this.reader ?? this.stream).cancel().catch(() => undefined);
  }
}

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
    return {
      status: response.status,
      header: (name) => response.headers.get(name),
      body: response.body === null ? null : new WebBody(response, response.body),
    };
  };
