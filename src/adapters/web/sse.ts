/**
 * Server-sent event streams with backpressure: frames are made only as the
 * client reads (the response body is pulled, and Node's adapter waits for the
 * socket to drain), a comment line goes out every so often while the client
 * keeps up, and the source is let go when the client leaves (the request's
 * signal) or the stream is cancelled. A stream whose client falls too far
 * behind is cut: it reconnects and resumes from the last id it has.
 */
import { Data, Either } from "effect";
import type { Observable, Subscription } from "rxjs";

export interface SseOptions<T> {
  /** The request's signal: when it aborts, the stream ends and the source is let go. */
  readonly signal: AbortSignal;
  /** How often a comment line is sent while nothing else is. */
  readonly heartbeatMs: number;
  /** The frame's `id:`, when values have one. */
  readonly id?: (value: T) => string;
  /** A value's JSON text, when its source has it already: `JSON.stringify` unless given. */
  readonly text?: (value: T) => string;
  /** Told of an error the source ends with after the stream has opened. */
  readonly onError: (error: unknown) => void;
  /** A frame sent before any value (e.g. `event: startOver`). */
  readonly preface?: string;
  /**
   * An observable source's frames kept for a client that has not read them:
   * past this many bytes (1 MiB) the stream is cut.
   */
  readonly maxBufferedBytes?: number;
  /** Whether an error the source ends with is the client's slowness, cut without being told. */
  readonly isCut?: (error: unknown) => boolean;
}

/** A source that gives values when pulled: the next ones (waiting for one), `undefined` at its end. */
export interface PullSource<T> {
  readonly next: () => Promise<ReadonlyArray<T> | undefined>;
  readonly cancel: () => void;
}

/**
 * The headers of an event stream, on every host. `no-transform` keeps a
 * compressor in front (Express's `compression`, Hono's `compress()`) from
 * holding the stream back to compress it; `x-accel-buffering` does the same
 * for nginx.
 */
export const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
} as const;

/** The comment sent every `heartbeatMs` while the client keeps up. */
export const SSE_HEARTBEAT = ": ping\n\n";

/** A client that fell more than `maxBytes` of frames behind an observable source: its stream is cut. */
export class SseBufferFull extends Data.TaggedError("SseBufferFull")<{
  readonly maxBytes: number;
}> {
  override get message(): string {
    return `the client fell more than ${this.maxBytes} bytes behind`;
  }
}

export const MAX_BUFFERED_BYTES = 1024 * 1024;

/** An observable, subscribed now, as a source pulled a batch at a time; a refusal at subscription is `Left`. */
const pullOf = <T>(
  source: Observable<T>,
  maxBytes: number,
  size: (value: T) => number,
): Either.Either<PullSource<T>, unknown> => {
  let waiting: T[] = [];
  let bytes = 0;
  let ended = false;
  let failure: { readonly error: unknown } | undefined;
  let wake: (() => void) | undefined;
  let subscription: Subscription | undefined;
  const fail = (error: unknown) => {
    failure = { error };
    waiting = [];
    subscription?.unsubscribe();
    wake?.();
  };
  subscription = source.subscribe({
    next: (value) => {
      if (failure !== undefined) return;
      try {
        bytes += size(value);
      } catch (error) {
        // A value JSON cannot hold ends the stream as an error, never as a throw in the source.
        fail(error);
        return;
      }
      if (bytes > maxBytes) fail(new SseBufferFull({ maxBytes }));
      else {
        waiting.push(value);
        wake?.();
      }
    },
    error: fail,
    complete: () => {
      ended = true;
      wake?.();
    },
  });
  if (failure !== undefined && waiting.length === 0) return Either.left(failure.error);
  return Either.right({
    next: async () => {
      if (waiting.length === 0 && failure === undefined && !ended)
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      wake = undefined;
      if (waiting.length > 0) {
        const values = waiting;
        waiting = [];
        bytes = 0;
        return values;
      }
      if (failure !== undefined) throw failure.error;
      return undefined;
    },
    cancel: () => {
      ended = true;
      subscription?.unsubscribe();
      wake?.();
    },
  });
};

/**
 * About how many characters of frames are sent at a time: a batch pulled
 * from the source is framed and sent in pieces of this size (one frame at
 * least), each only once the client has room, so a client that stops
 * reading holds about this much of the stream in the server's buffers.
 */
export const SSE_CHUNK_CHARS = 64 * 1024;

/**
 * `source` as its frames, pulled a piece at a time: each pull frames the
 * values left from the last batch up to {@link SSE_CHUNK_CHARS} (one frame
 * at least), pulling the source for more only when none are left.
 */
export const framesOf = <T>(source: PullSource<T>, options: SseOptions<T>): PullSource<string> => {
  const text = options.text ?? JSON.stringify;
  const frameOf = (value: T) => {
    const id = options.id?.(value);
    return `${id === undefined ? "" : `id: ${id}\n`}data: ${text(value)}\n\n`;
  };
  let left: ReadonlyArray<T> = [];
  let at = 0;
  return {
    next: async () => {
      if (at >= left.length) {
        const values = await source.next();
        if (values === undefined) return undefined;
        left = values;
        at = 0;
      }
      let frames = "";
      while (at < left.length && frames.length < SSE_CHUNK_CHARS)
        frames += frameOf(left[at++] as T);
      if (at >= left.length) left = [];
      return frames === "" ? [] : [frames];
    },
    cancel: () => {
      left = [];
      source.cancel();
    },
  };
};

/** Whether an error the source ended with is told to `onError`: not a client cut for its slowness. */
export const isFault = <T>(error: unknown, options: SseOptions<T>): boolean =>
  !(error instanceof SseBufferFull) && options.isCut?.(error) !== true;

/**
 * `source` as a pulled one: an observable is subscribed now, an error it
 * gives while subscribing (a refusal) coming back as `Left`; values the
 * client has not read wait, up to `maxBufferedBytes`.
 */
export const sseSource = <T>(
  source: Observable<T> | PullSource<T>,
  options: SseOptions<T>,
): Either.Either<PullSource<T>, unknown> => {
  if ("next" in source && typeof source.next === "function" && !("subscribe" in source))
    return Either.right(source);
  return pullOf(
    source as Observable<T>,
    options.maxBufferedBytes ?? MAX_BUFFERED_BYTES,
    (value) => JSON.stringify(value)?.length ?? 0,
  );
};

/** A pulled source as an SSE response. */
const streamOf = <T>(values: PullSource<T>, options: SseOptions<T>): Response => {
  const source = framesOf(values, options);
  const encoder = new TextEncoder();
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let open = true;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const finish = () => {
    if (!open) return;
    open = false;
    source.cancel();
    if (heartbeat !== undefined) clearInterval(heartbeat);
    options.signal.removeEventListener("abort", finish);
    try {
      controller?.close();
    } catch {
      // Already closed: the client cancelled the stream.
    }
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start: (c) => {
        controller = c;
        if (options.preface !== undefined) c.enqueue(encoder.encode(options.preface));
      },
      // Called only while the client has room: one piece of frames per pull.
      pull: async (c) => {
        try {
          const frames = await source.next();
          if (!open) return;
          if (frames === undefined) return finish();
          for (const piece of frames) c.enqueue(encoder.encode(piece));
        } catch (error) {
          if (!open) return;
          if (isFault(error, options)) options.onError(error);
          finish();
        }
      },
      cancel: finish,
    },
    { highWaterMark: 1 },
  );
  if (options.signal.aborted) finish();
  else options.signal.addEventListener("abort", finish, { once: true });
  // A comment keeps proxies from closing a quiet stream; a client that is not reading needs none.
  if (open)
    heartbeat = setInterval(() => {
      if (open && (controller?.desiredSize ?? 0) > 0)
        controller?.enqueue(encoder.encode(SSE_HEARTBEAT));
    }, options.heartbeatMs);
  return new Response(body, { status: 200, headers: SSE_HEADERS });
};

/**
 * Answers with `source`'s values as SSE. An observable is subscribed now: an
 * error it gives while subscribing (a refusal) comes back as `Left`, before
 * any byte is sent, so it can be answered as JSON; values the client has not
 * read wait, up to `maxBufferedBytes`. A pulled source is asked for values
 * only as the client reads.
 */
export const sseResponse = <T>(
  source: Observable<T> | PullSource<T>,
  options: SseOptions<T>,
): Either.Either<Response, unknown> =>
  Either.map(sseSource(source, options), (pull) => streamOf(pull, options));
