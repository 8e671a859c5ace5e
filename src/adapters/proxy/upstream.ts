/**
 * The trip upstream: the request sent with the server's key and nothing of
 * the client's, the answer passed back (the event stream as it arrives, byte
 * for byte; anything else whole), under an idle timeout on the injected clock.
 */
import type { Clock } from "../../runtime/ports/clock.ts";
import { errorResponse, upstreamTimeout, upstreamUnreachable } from "./errors.ts";
import { type Transport, tripwire, type UpstreamAnswer } from "./transport.ts";
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
  /** How the request goes: the app's `fetch`, or undici by default. */
  readonly transport: Transport;
  /** The client's request signal: aborted when it leaves. */
  readonly signal: AbortSignal;
  readonly meter: UsageMeter;
}

/** Why a trip stopped before its end. */
type Stop = "timeout" | "client";

/** The headers sent upstream: the server's key, the client's `anthropic-version` if it is a date. */
const upstreamHeaders = (trip: Trip): Record<string, string> => ({
  "content-type": "application/json",
  "x-api-key": trip.apiKey,
  "anthropic-version":
    trip.version !== null && VERSION.test(trip.version) ? trip.version : DEFAULT_ANTHROPIC_VERSION,
});

/** The headers of upstream's answer the client gets. */
const passedHeaders = (answer: UpstreamAnswer): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const name of PASSED_HEADERS) {
    const value = answer.header(name);
    if (value !== null) headers[name] = value;
  }
  return headers;
};

/**
 * Forwards the request and answers with upstream's answer. The meter is
 * settled exactly once, when the answer ends, fails, times out or the client
 * leaves.
 */
export const forward = async (trip: Trip): Promise<Response> => {
  const { clock, timeoutMs, meter } = trip;
  const upstream = tripwire();
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
    upstream.trip();
    stopWith?.(why);
  };

  // The idle timer: one pending at a time. A sign of life moves the deadline on; the
  // timer, when it fires early, waits out the rest (no timer is set per chunk).
  let timer: unknown;
  let deadline = 0;
  const due = () => {
    timer = undefined;
    const left = deadline - clock.now();
    if (left > 0) timer = clock.setTimeout(due, left);
    else stop("timeout");
  };
  const arm = () => {
    deadline = clock.now() + timeoutMs;
    timer ??= clock.setTimeout(due, timeoutMs);
  };
  const disarm = () => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
  };
  const onClientGone = () => stop("client");
  const finish = () => {
    disarm();
    trip.signal.removeEventListener("abort", onClientGone);
    meter.settle();
  };
  /** The answer to a trip that failed before the client got any of upstream's answer. */
  const failed = (): Response => {
    finish();
    if (stopReason === "timeout") return upstreamTimeout(timeoutMs).toResponse();
    if (stopReason === "client") return errorResponse(499, "api_error", "the client left");
    return upstreamUnreachable().toResponse();
  };

  if (trip.signal.aborted) {
    // Gone already: nothing goes upstream.
    stop("client");
    return failed();
  }
  trip.signal.addEventListener("abort", onClientGone, { once: true });
  arm();

  let answer: UpstreamAnswer;
  try {
    answer = await Promise.race([
      trip.transport({
        url: trip.url,
        headers: upstreamHeaders(trip),
        body: trip.body,
        wire: upstream,
      }),
      stopped,
    ]);
  } catch {
    return failed();
  }

  const headers = passedHeaders(answer);
  const body = answer.body;
  if (body === null) {
    finish();
    return new Response(null, { status: answer.status, headers });
  }
  if (!(headers["content-type"] ?? "").startsWith("text/event-stream")) {
    // Read whole under one more timeout window: a JSON answer comes at once or not at all.
    arm();
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = await Promise.race([body.whole(), stopped]);
    } catch {
      body.cancel();
      return failed();
    }
    if (answer.status >= 200 && answer.status < 300) {
      try {
        meter.message(JSON.parse(new TextDecoder().decode(bytes)));
      } catch {
        // Not JSON: passed on as it is, with no usage to read.
      }
    }
    finish();
    return new Response(bytes, { status: answer.status, headers });
  }

  const read = () => Promise.race([body.read(), stopped]);
  headers["cache-control"] = "no-cache";
  headers["x-accel-buffering"] = "no";
  const decoder = new TextDecoder();
  let tail = "";
  arm();
  const stream = new ReadableStream<Uint8Array>({
    pull: async (out) => {
      let next: Uint8Array | undefined;
      try {
        next = await read();
      } catch (error) {
        body.cancel();
        finish();
        if (stopReason === "client") return;
        if (stopReason === "timeout" && atBoundary(tail)) {
          out.enqueue(timeoutEvent(timeoutMs));
          out.close();
        } else out.error(stopReason === "timeout" ? upstreamTimeout(timeoutMs) : error);
        return;
      }
      if (next === undefined) {
        finish();
        out.close();
        return;
      }
      arm();
      // The bytes go first; the meter reads a copy of the text after.
      out.enqueue(next);
      const text = decoder.decode(next, { stream: true });
      tail = (tail + text).slice(-4);
      meter.feed(text);
    },
    cancel: () => {
      stop("client");
      body.cancel();
      finish();
    },
  });
  return new Response(stream, { status: answer.status, headers });
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
