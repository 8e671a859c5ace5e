/**
 * An observable as a server-sent event stream: one frame per value, a comment
 * line every so often so proxies keep the connection, and the subscription
 * ended when the client goes (the request's signal) or the stream is cancelled.
 */
import { Either } from "effect";
import type { Observable, Subscription } from "rxjs";

export interface SseOptions<T> {
  /** The request's signal: when it aborts, the stream ends and the source is unsubscribed. */
  readonly signal: AbortSignal;
  /** How often a comment line is sent while nothing else is. */
  readonly heartbeatMs: number;
  /** The frame's `id:`, when values have one. */
  readonly id?: (value: T) => string;
  /** Told of an error the source ends with after the stream has opened. */
  readonly onError: (error: unknown) => void;
}

const HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
} as const;

/**
 * Subscribes to `source` and answers with its values as SSE. An error the
 * source gives while subscribing (a refusal) comes back as `Left`, before any
 * byte is sent, so it can be answered as JSON.
 */
export const sseResponse = <T>(
  source: Observable<T>,
  options: SseOptions<T>,
): Either.Either<Response, unknown> => {
  const encoder = new TextEncoder();
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let open = true;
  let subscription: Subscription | undefined;
  let heartbeat: ReturnType<typeof setInterval> | undefined;

  const finish = () => {
    if (!open) return;
    open = false;
    subscription?.unsubscribe();
    if (heartbeat !== undefined) clearInterval(heartbeat);
    options.signal.removeEventListener("abort", finish);
    try {
      controller?.close();
    } catch {
      // Already closed: the client cancelled the stream.
    }
  };
  const send = (text: string) => {
    if (open) controller?.enqueue(encoder.encode(text));
  };

  // `start` runs within the constructor, so the controller is there before the first value.
  const body = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
    cancel: finish,
  });

  let opening = true;
  let refused: { readonly error: unknown } | undefined;
  subscription = source.subscribe({
    next: (value) => {
      const id = options.id?.(value);
      send(`${id === undefined ? "" : `id: ${id}\n`}data: ${JSON.stringify(value)}\n\n`);
    },
    error: (error: unknown) => {
      if (opening) refused = { error };
      else {
        options.onError(error);
        finish();
      }
    },
    complete: finish,
  });
  opening = false;
  if (refused !== undefined) {
    finish();
    return Either.left(refused.error);
  }
  if (options.signal.aborted) finish();
  else options.signal.addEventListener("abort", finish, { once: true });
  if (open) heartbeat = setInterval(() => send(": ping\n\n"), options.heartbeatMs);
  return Either.right(new Response(body, { status: 200, headers: HEADERS }));
};
