/**
 * The trip upstream: the request sent with the server's key and nothing of
 * the client's, the answer passed back (the event stream as it arrives, byte
 * for byte; anything else whole), under an idle timeout on the injected clock.
 */
import type { Clock } from "../../runtime/ports/clock.ts";
import { errorResponse, upstreamTimeout, upstreamUnreachable } from "./errors.ts";
import type { UsageMeter } from "./usageMeter.ts";

/** The headers of upstream's answer that reach the client; every other is dropped. */
const PASSED_HEADERS = ["content-type", "request-id"] as const;

/** The `anthropic-version` sent when the client's is missing or not a date. */
export const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";

const VERSION = /^\d{4}-\d{2}-\d{2}$/;

/** One request to forward. */
export interface Trip {
  readonly url: string;
  readonly apiKey: string;
  /** The client's `anthropic-version` header, if it sent one. */
  readonly version: string | null;
  readonly body: string;
  readonly timeoutMs: number;
  readonly clock: Clock;
  readonly fetch: typeof globalThis.fetch;
  /** The client's request signal: aborted when it leaves. */
  readonly signal: AbortSignal;
  readonly meter: UsageMeter;
}

/** Why a trip stopped before its end. */
type Stop = "timeout" | "client";

/**
 * Forwards the request and answers with upstream's answer. The meter is
 * settled exactly once, when the answer ends, fails, times out or the client
 * leaves.
 */
export const forward = async (trip: Trip): Promise<Response> => {
  const { clock, timeoutMs, meter } = trip;
  const upstream = new AbortController();
  let stopWith: ((why: Stop) => void) | undefined;
  // Rejects when the idle timer fires or the client leaves; every wait races it.
  const stopped = new Promise<never>((_, reject) => {
    stopWith = reject;
  });
  stopped.catch(() => undefined);
  let stopReason: Stop | undefined;
  const stop = (why: Stop) => {
    if (stopReason !== undefined) return;
    stopReason = why;
    upstream.abort();
    stopWith?.(why);
  };

  let timer: unknown;
  const disarm = () => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
  };
  const arm = () => {
    disarm();
    timer = clock.setTimeout(() => stop("timeout"), timeoutMs);
  };
  const onClientGone = () => stop("client");
  const finish = () => {
    disarm();
    trip.signal.removeEventListener("abort", onClientGone);
    meter.settle();
  };

  if (trip.signal.aborted) stop("client");
  else trip.signal.addEventListener("abort", onClientGone, { once: true });
  arm();

  let response: Response;
  try {
    response = await Promise.race([
      trip.fetch(trip.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-api-key": trip.apiKey,
          "anthropic-version":
            trip.version !== null && VERSION.test(trip.version)
              ? trip.version
              : DEFAULT_ANTHROPIC_VERSION,
        },
        body: trip.body,
        signal: upstream.signal,
      }),
      stopped,
    ]);
  } catch {
    finish();
    if (stopReason === "timeout") return upstreamTimeout(timeoutMs).toResponse();
    if (stopReason === "client") return errorResponse(499, "api_error", "the client left");
    return upstreamUnreachable().toResponse();
  }

  const headers = new Headers();
  for (const name of PASSED_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  const body = response.body;
  if (body === null) {
    finish();
    return new Response(null, { status: response.status, headers });
  }
  if (!(headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    // Read whole under one more timeout window: a JSON answer comes at once or not at all.
    arm();
    let bytes: ArrayBuffer;
    try {
      bytes = await Promise.race([response.arrayBuffer(), stopped]);
    } catch {
      finish();
      if (stopReason === "timeout") return upstreamTimeout(timeoutMs).toResponse();
      if (stopReason === "client") return errorResponse(499, "api_error", "the client left");
      return upstreamUnreachable().toResponse();
    }
    if (response.ok) {
      try {
        meter.message(JSON.parse(new TextDecoder().decode(bytes)));
      } catch {
        // Not JSON: passed on as it is, with no usage to read.
      }
    }
    finish();
    return new Response(bytes, { status: response.status, headers });
  }

  const reader = body.getReader();
  const read = () => Promise.race([reader.read(), stopped]);
  const drop = () => void reader.cancel().catch(() => undefined);
  headers.set("cache-control", "no-cache");
  headers.set("x-accel-buffering", "no");
  const decoder = new TextDecoder();
  let tail = "";
  arm();
  const stream = new ReadableStream<Uint8Array>({
    pull: async (out) => {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await read();
      } catch (error) {
        drop();
        finish();
        if (stopReason === "client") return;
        if (stopReason === "timeout" && atBoundary(tail)) {
          out.enqueue(timeoutEvent(timeoutMs));
          out.close();
        } else out.error(stopReason === "timeout" ? upstreamTimeout(timeoutMs) : error);
        return;
      }
      if (next.done) {
        finish();
        out.close();
        return;
      }
      arm();
      // The bytes go first; the meter reads a copy of the text after.
      out.enqueue(next.value);
      const text = decoder.decode(next.value, { stream: true });
      tail = (tail + text).slice(-4);
      meter.feed(text);
    },
    cancel: () => {
      stop("client");
      drop();
      finish();
    },
  });
  return new Response(stream, { status: response.status, headers });
};

/** Whether the text passed so far ends between events, where another event can follow. */
const atBoundary = (tail: string): boolean =>
  tail === "" || tail.endsWith("\n\n") || tail.endsWith("\r\r") || tail.endsWith("\r\n\r\n");

/** The API's mid-stream error event, for a stream cut at the timeout. */
const timeoutEvent = (timeoutMs: number): Uint8Array =>
  new TextEncoder().encode(
    `event: error\ndata: ${JSON.stringify({
      type: "error",
      error: {
        type: "timeout_error",
        message: `the Messages API sent nothing for ${timeoutMs / 1000} s`,
      },
    })}\n\n`,
  );
