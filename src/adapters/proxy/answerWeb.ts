/**
 * Upstream's answer as a `Response`, for any fetch host: no body, the whole
 * body, or the event stream as a web stream that reads upstream as the
 * client reads it, byte for byte.
 */
import { endingOf, isEventStream, type Run, readWhole } from "./run.ts";
import type { UpstreamAnswer } from "./transport.ts";

/** Upstream's answer, with the headers the client gets, as a `Response`. */
export const answerWeb = async (
  run: Run,
  answer: UpstreamAnswer,
  headers: Record<string, string>,
): Promise<Response> => {
  const body = answer.body;
  if (body === null) {
    run.finish();
    return new Response(null, { status: answer.status, headers });
  }
  if (!isEventStream(headers)) {
    const bytes = await readWhole(run, answer, body);
    if (bytes === undefined) return run.failed();
    run.finish();
    return new Response(bytes, { status: answer.status, headers });
  }

  const { meter } = run.trip;
  const read = () => Promise.race([body.read(), run.stopped]);
  headers["cache-control"] = "no-cache";
  headers["x-accel-buffering"] = "no";
  const decoder = new TextDecoder();
  let tail = "";
  run.arm();
  const stream = new ReadableStream<Uint8Array>({
    pull: async (out) => {
      let next: Uint8Array | undefined;
      try {
        next = await read();
      } catch (error) {
        body.cancel();
        run.finish();
        const ending = endingOf(run, tail, error);
        if (ending._tag === "TimeoutEvent") {
          out.enqueue(ending.bytes);
          out.close();
        } else if (ending._tag === "Cut") out.error(ending.error);
        return;
      }
      if (next === undefined) {
        run.finish();
        out.close();
        return;
      }
      run.arm();
      // The bytes go first; the meter reads a copy of the text after.
      out.enqueue(next);
      const text = decoder.decode(next, { stream: true });
      tail = (tail + text).slice(-4);
      meter.feed(text);
    },
    cancel: () => {
      run.stop("client");
      body.cancel();
      run.finish();
    },
  });
  return new Response(stream, { status: answer.status, headers });
};
