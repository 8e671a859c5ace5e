/**
 * A POST body of `mcpHttp`, read within the message bounds and parsed here,
 * so the SDK's transport is given the parsed message and never reads a body
 * of its own (it would accept 4 MiB of anything).
 */
import {
  INVALID_REQUEST,
  type MessageLimits,
  messageProblem,
  messageRefusalText,
} from "./messageBounds.ts";

/** A body read and parsed, or the answer that refuses it. */
export type ReadBody =
  | { readonly _tag: "Parsed"; readonly message: unknown }
  | { readonly _tag: "Refused"; readonly response: Response };

const PARSE_ERROR = -32700;

/** A JSON-RPC error answer with no id, as the SDK's transport writes its own. */
export const rpcError = (status: number, code: number, message: string): Response =>
  Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });

const refused = (status: number, code: number, message: string): ReadBody => ({
  _tag: "Refused",
  response: rpcError(status, code, message),
});

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads the request's body as one JSON-RPC message (or batch): refused
 * unread when its `Content-Length` is over `maxMessageBytes`, and read no
 * further than one chunk past the bound when it has none or lies (413); then
 * refused before it is parsed when it holds more values than
 * `maxMessageValues` (413); then parsed (400 when it isn't JSON, in the
 * SDK's words).
 */
export const readMessageBody = async (
  request: Request,
  limits: MessageLimits,
): Promise<ReadBody> => {
  const tooLarge = () => refused(413, INVALID_REQUEST, messageRefusalText("TooLarge", limits));
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limits.maxMessageBytes) return tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body !== null) {
    const reader = request.body.getReader();
    for (;;) {
      // A body that breaks off (the client left) is a bad request, not a failure of the host.
      const read = await reader.read().catch(() => undefined);
      if (read === undefined) return refused(400, PARSE_ERROR, "Parse error: the body was cut off");
      if (read.done) break;
      size += read.value.byteLength;
      if (size > limits.maxMessageBytes) {
        await reader.cancel().catch(() => undefined);
        return tooLarge();
      }
      chunks.push(read.value);
    }
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  const problem = messageProblem(bytes, limits);
  if (problem !== undefined)
    return refused(413, INVALID_REQUEST, messageRefusalText(problem, limits));
  try {
    return { _tag: "Parsed", message: JSON.parse(utf8.decode(bytes)) };
  } catch {
    return refused(400, PARSE_ERROR, "Parse error: Invalid JSON");
  }
};
