/**
 * One server-sent event stream over `fetch`, kept open: a dropped connection
 * is opened again after a wait that doubles from `firstMs` to `maxMs`, telling
 * the host the last id seen (`Last-Event-ID`) when there is one.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { LAST_EVENT_ID_HEADER } from "../web/wire.ts";
import {
  type AssistantError,
  ConnectionError,
  connectionErrorOf,
  type HostError,
  hostErrorOf,
} from "./errors.ts";

/** How long to wait before opening a dropped stream again. */
export interface Backoff {
  /** The first wait, in milliseconds (500). */
  readonly firstMs: number;
  /** The longest wait (5 000). */
  readonly maxMs: number;
}

/** 0.5 s, then 1 s, 2 s, 4 s, 5 s, 5 s, … */
export const DEFAULT_BACKOFF: Backoff = { firstMs: 500, maxMs: 5_000 };

export interface EventStreamOptions {
  readonly fetch: typeof globalThis.fetch;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly backoff: Backoff;
  /** The id to resume after, read at each (re)connection; undefined sends none. */
  readonly lastEventId: () => string | undefined;
  readonly onMessage: (message: EventSourceMessage) => void;
  /** The stream is open (again). */
  readonly onOpen?: (() => void) | undefined;
  /** It failed or dropped; a refusal that asking again will not change ends it. */
  readonly onError?: ((error: AssistantError) => void) | undefined;
}

/** A listener's exception must not break the stream: it is thrown again on its own. */
const guarded =
  <A extends unknown[]>(listener: ((...args: A) => void) | undefined) =>
  (...args: A): void => {
    try {
      listener?.(...args);
    } catch (error) {
      queueMicrotask(() => {
        throw error;
      });
    }
  };

/** Opens the stream; the function returned closes it for good. */
export const openEventStream = (options: EventStreamOptions): (() => void) => {
  const controller = new AbortController();
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onMessage = guarded(options.onMessage);
  const onOpen = guarded(options.onOpen);
  const onError = guarded(options.onError);
  const parser = createParser({
    onEvent: (message) => {
      if (!closed) onMessage(message);
    },
  });

  const read = async (body: ReadableStream<Uint8Array>): Promise<void> => {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done || closed) return;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } finally {
      reader.releaseLock();
    }
  };

  /** One connection: how it ended, or `"refused"` when it must not be opened again. */
  const connect = async (): Promise<AssistantError | "refused"> => {
    const id = options.lastEventId();
    try {
      const response = await options.fetch(options.url, {
        headers: {
          ...options.headers,
          accept: "text/event-stream",
          ...(id === undefined ? {} : { [LAST_EVENT_ID_HEADER]: id }),
        },
        signal: controller.signal,
      });
      if (!response.ok) {
        const refused: HostError = await hostErrorOf(response);
        if (refused.isRetryable) return refused;
        if (!closed) onError(refused);
        return "refused";
      }
      if (response.body === null) return new ConnectionError({ message: "the stream had no body" });
      parser.reset();
      onOpen();
      await read(response.body);
      return new ConnectionError({ message: "the event stream ended" });
    } catch (cause) {
      return connectionErrorOf(cause);
    }
  };

  const run = async (): Promise<void> => {
    let wait = options.backoff.firstMs;
    while (!closed) {
      const opened = Date.now();
      const ended = await connect();
      if (closed || ended === "refused") return;
      onError(ended);
      // A connection that stayed up a while starts the waits over.
      if (Date.now() - opened > options.backoff.maxMs) wait = options.backoff.firstMs;
      await new Promise<void>((resolve) => {
        timer = setTimeout(resolve, wait);
      });
      wait = Math.min(wait * 2, options.backoff.maxMs);
    }
  };
  void run();

  return () => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    controller.abort();
  };
};
