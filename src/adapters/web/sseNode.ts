/**
 * Server-sent events written straight to Node's response, when the handler
 * is served on `node:http` (`toNodeListener`): each pulled piece of frames
 * (at most about `SSE_CHUNK_CHARS`) is one `write` of a string, with no web
 * stream or `TextEncoder` on the way. The same frames and backpressure as {@link sseResponse}: the source is
 * pulled again only once the response has room (`drain`), the heartbeat goes
 * out only while the response is not backed up, and the source is let go when
 * the client leaves or the source ends.
 */
import type { ServerResponse } from "node:http";
import { Either } from "effect";
import type { Observable } from "rxjs";
import { flushHeadersSoon } from "./nodeAnswer.ts";
import {
  framesOf,
  isFault,
  type PullSource,
  SSE_HEADERS,
  SSE_HEARTBEAT,
  type SseOptions,
  sseSource,
} from "./sse.ts";

/**
 * Answers with `source`'s values as SSE written to `out`, as
 * {@link sseResponse} answers with a `Response`: an observable is subscribed
 * now, and an error it gives while subscribing (a refusal) comes back as
 * `Left` before anything is written, so it can be answered as JSON. On
 * `Right` the stream has opened: it is written until the source ends (then
 * `out` is ended) or the client leaves.
 */
export const sseOnNode = <T>(
  source: Observable<T> | PullSource<T>,
  options: SseOptions<T>,
  out: ServerResponse,
): Either.Either<undefined, unknown> => {
  const pulled = sseSource(source, options);
  if (Either.isLeft(pulled)) return Either.left(pulled.left);
  writeStream(pulled.right, options, out);
  return Either.right(undefined);
};

/** Writes `source` to `out` a batch at a time, waiting for `drain` when `out` is full. */
const writeStream = <T>(values: PullSource<T>, options: SseOptions<T>, out: ServerResponse) => {
  const source = framesOf(values, options);
  let open = true;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  /** Resolves the wait for `drain`, when the stream ends meanwhile. */
  let wake: (() => void) | undefined;
  const finish = () => {
    if (!open) return;
    open = false;
    source.cancel();
    if (heartbeat !== undefined) clearInterval(heartbeat);
    options.signal.removeEventListener("abort", finish);
    out.off("close", finish);
    wake?.();
    if (!out.writableEnded && !out.destroyed) out.end();
  };
  const drained = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        out.off("drain", done);
        wake = undefined;
        resolve();
      };
      wake = done;
      out.once("drain", done);
    });
  const run = async () => {
    while (open) {
      let frames: ReadonlyArray<string> | undefined;
      try {
        frames = await source.next();
      } catch (error) {
        if (!open) return;
        if (isFault(error, options)) options.onError(error);
        return finish();
      }
      if (!open) return;
      if (frames === undefined) return finish();
      // Called again only when the client has room: one piece of frames per pull.
      if (frames.length > 0 && !out.write(frames.join(""))) await drained();
    }
  };

  out.writeHead(200, SSE_HEADERS);
  if (options.preface !== undefined) out.write(options.preface);
  // The client has its headers at once: with the first frames when they are here already.
  flushHeadersSoon(out);
  out.on("close", finish);
  if (options.signal.aborted) return finish();
  options.signal.addEventListener("abort", finish, { once: true });
  // A comment keeps proxies from closing a quiet stream; a client that is not reading needs none.
  heartbeat = setInterval(() => {
    if (open && !out.writableNeedDrain) out.write(SSE_HEARTBEAT);
  }, options.heartbeatMs);
  run().catch((error: unknown) => {
    // A write that threw (the response broke): told as the source's error would be.
    if (!open) return;
    options.onError(error);
    finish();
  });
};
