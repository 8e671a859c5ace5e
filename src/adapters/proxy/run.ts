/**
 * One forwarded request under way, whichever way its answer goes back: the
 * idle timer on the injected clock, why it stopped (the timer, the client
 * leaving), the wire that drops its call upstream, and the one settling of
 * its usage. What both ways of answering share is here too.
 */
import type { ServerResponse } from "node:http";
import type { Clock } from "../../runtime/ports/clock.ts";
import { errorResponse, upstreamTimeout, upstreamUnreachable } from "./errors.ts";
import { type Transport, Tripwire, type UpstreamAnswer, type UpstreamBody } from "./transport.ts";
import type { UsageMeter } from "./usageMeter.ts";

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
  readonly meter: UsageMeter;
  /** Headers of the proxy's own the answer carries, whichever way it goes (the budget's). */
  readonly headers?: Readonly<Record<string, string>>;
}

const ignore = (): void => undefined;

/** Why a run stopped before its end. */
type Stop = "timeout" | "client";

/**
 * A trip under way. The idle timer is one pending timer at a time: a sign
 * of life moves the deadline on, and the timer, when it fires early, waits
 * out the rest (no timer is set per chunk). Methods, not closures, so a
 * request makes few functions.
 */
export class Run {
  readonly wire = new Tripwire();
  /** Rejects when the run stops; every wait races it. */
  readonly stopped: Promise<never>;
  stopReason: Stop | undefined;
  /** Told once, when the run stops, after the wire trips. */
  onStop: { runStopped(): void } | undefined;
  private stopWith: ((why: Stop) => void) | undefined;
  private timer: unknown;
  private deadline = 0;
  private finished = false;
  private signal: AbortSignal | undefined;
  private node: ServerResponse | undefined;

  constructor(readonly trip: Trip) {
    this.stopped = new Promise<never>((_, reject) => {
      this.stopWith = reject;
    });
    this.stopped.catch(ignore);
  }

  /**
   * Watches the client: the request's signal, or Node's response closing
   * before it is finished. False when the client has left already.
   */
  watch(request: Request, node: ServerResponse | undefined): boolean {
    if (node !== undefined) {
      if (node.destroyed) return false;
      this.node = node;
      node.on("close", this.clientGone);
      return true;
    }
    const signal = request.signal;
    if (signal.aborted) return false;
    this.signal = signal;
    signal.addEventListener("abort", this.clientGone, { once: true });
    return true;
  }

  /** Starts (or moves on) the idle deadline. */
  arm(): void {
    this.deadline = this.trip.clock.now() + this.trip.timeoutMs;
    this.timer ??= this.trip.clock.setTimeout(this.due, this.trip.timeoutMs);
  }

  /** Stops the run, once: its call and the reading of its answer are dropped. */
  stop(why: Stop): void {
    if (this.stopReason !== undefined) return;
    this.stopReason = why;
    this.wire.trip();
    this.stopWith?.(why);
    this.onStop?.runStopped();
  }

  /** Ends the run: the timer cleared, the client no longer watched, usage settled. Once. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.timer !== undefined) this.trip.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.signal?.removeEventListener("abort", this.clientGone);
    this.node?.removeListener("close", this.clientGone);
    this.trip.meter.settle();
  }

  /** The answer to a run that failed before the client got any of upstream's answer. */
  failed(): Response {
    this.finish();
    if (this.stopReason === "timeout") return upstreamTimeout(this.trip.timeoutMs).toResponse();
    if (this.stopReason === "client") return errorResponse(499, "api_error", "the client left");
    return upstreamUnreachable().toResponse();
  }

  private readonly due = () => {
    this.timer = undefined;
    const left = this.deadline - this.trip.clock.now();
    if (left > 0) this.timer = this.trip.clock.setTimeout(this.due, left);
    else this.stop("timeout");
  };

  private readonly clientGone = () => {
    if (this.node === undefined || !this.node.writableFinished) this.stop("client");
  };
}

/** Whether an answer with these headers is an event stream, passed on as it arrives. */
export const isEventStream = (headers: Readonly<Record<string, string>>): boolean =>
  (headers["content-type"] ?? "").startsWith("text/event-stream");

const text = new TextDecoder();

/**
 * A whole answer's bytes, read under one more timeout window (a JSON answer
 * comes at once or not at all), its usage read when it succeeded;
 * `undefined` when the run stopped or the body broke off.
 */
export const readWhole = async (
  run: Run,
  answer: UpstreamAnswer,
  body: UpstreamBody,
): Promise<Uint8Array<ArrayBuffer> | undefined> => {
  run.arm();
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = await Promise.race([body.whole(), run.stopped]);
  } catch {
    body.cancel();
    return undefined;
  }
  if (answer.status >= 200 && answer.status < 300) {
    try {
      run.trip.meter.message(JSON.parse(text.decode(bytes)));
    } catch {
      // Not JSON: passed on as it is, with no usage to read.
    }
  }
  return bytes;
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

/** How an event stream the run stopped ends for its client. */
export type Ending =
  /** The client left: nothing more is written. */
  | { readonly _tag: "Left" }
  /** Upstream fell silent between events: the API's timeout event, then the end. */
  | { readonly _tag: "TimeoutEvent"; readonly bytes: Uint8Array }
  /** Cut mid-event or broken: the stream is cut with `error`. */
  | { readonly _tag: "Cut"; readonly error: unknown };

const LEFT: Ending = { _tag: "Left" };

/**
 * How an event stream ends that stopped with `error` after the text whose
 * last characters are `tail` was passed: the same for either way of
 * answering (answerWeb.ts, answerNode.ts).
 */
export const endingOf = (run: Run, tail: string, error: unknown): Ending => {
  if (run.stopReason === "client") return LEFT;
  if (run.stopReason !== "timeout") return { _tag: "Cut", error };
  const { timeoutMs } = run.trip;
  return atBoundary(tail)
    ? { _tag: "TimeoutEvent", bytes: timeoutEvent(timeoutMs) }
    : { _tag: "Cut", error: upstreamTimeout(timeoutMs) };
};
