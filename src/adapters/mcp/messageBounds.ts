/**
 * The bounds on one MCP message, checked on its bytes before it is parsed:
 * how many bytes it may be and how many values it may hold. Parsing, the SDK's own checks of the message and the decoding of a
 * tool's arguments all cost time in proportion to the values a message
 * holds, so a message is refused, with a sentence for people, before any of
 * them runs: an 820 KiB body of bad arguments stalled the event loop for
 * most of a second. Both transports use them: `mcpHttp` on each POST body,
 * `serveMcpStdio` on each line. (Arguments nested too deep are the call
 * path's to refuse, as invalid arguments of that call.)
 */

/** What bounds a message: its size in bytes and the values it may hold. */
export interface MessageLimits {
  /** Bytes one message may be (a POST body, a stdio line). */
  readonly maxMessageBytes: number;
  /** Values one message may hold: every array element and every object member counts. */
  readonly maxMessageValues: number;
}

/** Why a message is refused unparsed. */
export type MessageProblem = "TooLarge" | "TooManyValues";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const COMMA = 0x2c;

/**
 * Whether a message's bytes (UTF-8 JSON) are more than the limit or hold
 * more values than it, in one pass that stops once the values are too many,
 * so its cost is bounded by the limit as much as by the bytes. Strings are skipped whole (brackets and commas in them are text).
 * Values are counted as containers opened and commas between members: an
 * upper bound on the array elements and object members. Bytes that are not
 * JSON may be answered either way; the parser refuses them after.
 */
export const messageProblem = (
  bytes: Uint8Array,
  limits: MessageLimits,
): MessageProblem | undefined => {
  if (bytes.byteLength > limits.maxMessageBytes) return "TooLarge";
  let values = 0;
  for (let at = 0; at < bytes.length; at++) {
    const code = bytes[at];
    if (code === QUOTE) {
      at = stringEnd(bytes, at);
      if (at < 0) return undefined;
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE || code === COMMA) {
      values += 1;
      if (values > limits.maxMessageValues) return "TooManyValues";
    }
  }
  return undefined;
};

/** Where the string opened at `start` ends (its closing quote), or -1 when it never does. */
const stringEnd = (bytes: Uint8Array, start: number): number => {
  for (let from = start + 1; ; ) {
    const quote = bytes.indexOf(QUOTE, from);
    if (quote < 0) return -1;
    // A quote after an odd run of backslashes is escaped.
    let slashes = 0;
    while (bytes[quote - 1 - slashes] === BACKSLASH) slashes += 1;
    if (slashes % 2 === 0) return quote;
    from = quote + 1;
  }
};

/** A count of bytes for people: `1 MiB`, `64 KiB`, `900 bytes`. */
const sizeText = (bytes: number): string => {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes.toLocaleString("en-US")} bytes`;
};

/** The sentence a refused message is answered with, for the person whose client sent it. */
export const messageRefusalText = (problem: MessageProblem, limits: MessageLimits): string => {
  switch (problem) {
    case "TooLarge":
      return `This request is too large: a message to this server may be at most ${sizeText(limits.maxMessageBytes)}. Nothing was run; send less in one call.`;
    case "TooManyValues":
      return `This request holds too many values: a message to this server may hold at most ${limits.maxMessageValues.toLocaleString("en-US")} (each list item and each field counts). Nothing was run; send less in one call.`;
  }
};

/** The JSON-RPC error code of a refused message: an invalid request. */
export const INVALID_REQUEST = -32600;
