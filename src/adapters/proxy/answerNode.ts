/**
 * Upstream's answer written straight to Node's response, when the proxy is
 * served on `node:http` (`toNodeListener`): the whole body in one write with
 * its length, or the event stream piped chunk by chunk as undici reads it,
 * byte for byte, pausing upstream while the client's socket is full. No web
 * stream, `Response` or `Headers` on the way.
 */
import type { ServerResponse } from "node:http";
import { StringDecoder } from "node:string_decoder";
import { flushHeadersSoon } from "../web/nodeAnswer.ts";
import { endingOf, isEventStream, type Run, readWhole } from "./run.ts";
import type { ChunkSink, UpstreamAnswer, UpstreamBody } from "./transport.ts";

/**
 * The content type `@hono/node-server` gives a `Response` body that has
 * none: kept, so a body without one reaches the client as it did when the
 * proxy answered by `Response` there.
 */
const DEFAULT_CONTENT_TYPE = "text/plain; charset=UTF-8";

/**
 * Writes upstream's answer to `out` and resolves `undefined`; resolves the
 * failure's `Response` instead when the answer could not be read whole (the
 * run stopped, the body broke off) before anything was written.
 */
export const answerNode = async (
  run: Run,
  answer: UpstreamAnswer,
  headers: Record<string, string>,
  out: ServerResponse,
): Promise<Response | undefined> => {
  const body = answer.body;
  if (body === null) {
    run.finish();
    out.writeHead(answer.status, headers);
    out.end();
    return undefined;
  }
  if (!isEventStream(headers)) {
    const bytes = await readWhole(run, answer, body);
    if (bytes === undefined) return run.failed();
    run.finish();
    headers["content-type"] ??= DEFAULT_CONTENT_TYPE;
    headers["content-length"] = String(bytes.byteLength);
    out.writeHead(answer.status, headers);
    out.end(bytes);
    return undefined;
  }
  headers["cache-control"] = "no-cache";
  headers["x-accel-buffering"] = "no";
  out.writeHead(answer.status, headers);
  const pipe = new Pipe(run, body, out);
  run.onStop = pipe;
  run.arm();
  body.flow(pipe);
  // The client has its headers at once: with the first chunk when upstream's is here already
  // (it flows on the tick before this one), else alone (then a no-op).
  flushHeadersSoon(out);
  return undefined;
};

/**
 * The event stream from upstream's body to `out`: each chunk written as it
 * comes and fed to the meter, upstream paused while `out` is full; the end
 * ends `out`. When the run stops, the client has left (nothing more to
 * write), or the idle timer fired: between events, the API's timeout event
 * ends the stream, else it is cut.
 */
class Pipe implements ChunkSink {
  // Node's own UTF-8 decoder: the text across chunks, as TextDecoder's stream mode, for less.
  private readonly decoder = new StringDecoder("utf8");
  /** The last characters passed, to tell whether the stream is between events. */
  private tail = "";
  private done = false;
  private drained: (() => void) | undefined;

  constructor(
    private readonly run: Run,
    private readonly body: UpstreamBody,
    private readonly out: ServerResponse,
  ) {}

  chunk(bytes: Uint8Array): boolean {
    if (this.done) return true;
    try {
      this.run.arm();
      const more = this.out.write(bytes);
      // The bytes go first; the meter reads a copy of the text after.
      const text = this.decoder.write(bytes);
      this.tail = (this.tail + text).slice(-4);
      this.run.trip.meter.feed(text);
      if (!more) {
        this.drained ??= () => this.body.resume();
        this.out.once("drain", this.drained);
      }
      return more;
    } catch (error) {
      this.fail(error);
      return true;
    }
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    this.run.finish();
    this.out.end();
  }

  fail(error: unknown): void {
    if (this.done) return;
    this.done = true;
    const { run, out } = this;
    this.body.cancel();
    run.finish();
    const ending = endingOf(run, this.tail, error);
    if (ending._tag === "TimeoutEvent") out.end(ending.bytes);
    else if (ending._tag === "Cut")
      out.destroy(ending.error instanceof Error ? ending.error : undefined);
  }

  runStopped(): void {
    this.fail(undefined);
  }
}
