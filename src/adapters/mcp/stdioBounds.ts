/**
 * The message bounds on stdio: the lines a client writes, each one message,
 * passed on to the SDK's transport only when within them. A line over the
 * byte bound is not kept past it (only its first and last bytes, to find its
 * id); one holding too many values is refused before it is parsed. Each refusal is answered on stdout, as a JSON-RPC error with the
 * request's id when one can be read from the line's ends, and the connection
 * stays open for the next message.
 */
import { Transform, type TransformCallback } from "node:stream";
import {
  INVALID_REQUEST,
  type MessageLimits,
  type MessageProblem,
  messageProblem,
  messageRefusalText,
} from "./messageBounds.ts";

/** How much of each end of a refused line is kept to find its id. */
const END = 256;
const NEWLINE = 0x0a;

/** The id of a request: SDK clients write it last (`…,"id":7}`), others often first. */
const ID_LAST = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/;
const ID_FIRST = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/;

/** The id a refused line's ends show, or null (JSON-RPC's id for a message that can't be read). */
export const idOfEnds = (head: Uint8Array, tail: Uint8Array): string | number | null => {
  const found =
    ID_LAST.exec(Buffer.from(tail).toString("utf8"))?.[1] ??
    ID_FIRST.exec(Buffer.from(head).toString("utf8"))?.[1];
  if (found === undefined) return null;
  try {
    const id: unknown = JSON.parse(found);
    return typeof id === "string" || typeof id === "number" ? id : null;
  } catch {
    return null;
  }
};

/** The error line a refused message is answered with. */
export const refusalLine = (
  problem: MessageProblem,
  limits: MessageLimits,
  id: string | number | null,
): string =>
  `${JSON.stringify({
    jsonrpc: "2.0",
    id,
    error: { code: INVALID_REQUEST, message: messageRefusalText(problem, limits) },
  })}\n`;

/**
 * A stream of the lines written to it that are within `limits`, each ending
 * in a newline; `refuse` is given the answer to each other line.
 */
export const boundedLines = (
  limits: MessageLimits,
  refuse: (answer: string) => void,
): Transform => {
  let parts: Buffer[] = [];
  let size = 0;
  // A line over the byte bound, being skipped to its end: its first and last bytes.
  let skipping: { head: Buffer; tail: Buffer } | undefined;

  const keepTail = (tail: Buffer, more: Buffer): Buffer =>
    more.length >= END
      ? Buffer.from(more.subarray(more.length - END))
      : Buffer.concat([tail, more]).subarray(-END);

  /** Adds part of the current line; starts skipping it once it is over the bound. */
  const add = (piece: Buffer) => {
    if (skipping !== undefined) {
      skipping.tail = keepTail(skipping.tail, piece);
      return;
    }
    size += piece.length;
    if (size <= limits.maxMessageBytes) {
      parts.push(piece);
      return;
    }
    const head = Buffer.concat([...parts, piece.subarray(0, END)]).subarray(0, END);
    skipping = { head: Buffer.from(head), tail: keepTail(Buffer.alloc(0), piece) };
    parts = [];
  };

  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      let from = 0;
      for (;;) {
        const end = chunk.indexOf(NEWLINE, from);
        if (end < 0) {
          if (from < chunk.length) add(chunk.subarray(from));
          break;
        }
        add(chunk.subarray(from, end));
        from = end + 1;
        if (skipping !== undefined) {
          refuse(refusalLine("TooLarge", limits, idOfEnds(skipping.head, skipping.tail)));
        } else {
          const line = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
          const problem = messageProblem(line, limits);
          if (problem === undefined) this.push(Buffer.concat([line, Buffer.of(NEWLINE)]));
          else
            refuse(
              refusalLine(problem, limits, idOfEnds(line.subarray(0, END), line.subarray(-END))),
            );
        }
        parts = [];
        size = 0;
        skipping = undefined;
      }
      done();
    },
    flush(done: TransformCallback) {
      // A last line without its newline is never a message the transport would read.
      done();
    },
  });
};
