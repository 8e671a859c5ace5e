/**
 * The request's JSON body, read whole in one call when its length is
 * declared: `arrayBuffer()`, which a server's own `Request` (the Node
 * listener's among them) serves straight from the socket, without a
 * stream of its own. An undeclared length is counted as it arrives
 * (`readJson`). Either way the same refusals: over the limit, not UTF-8,
 * nested too deep, not JSON.
 */
import { Either } from "effect";
import { MAX_JSON_DEPTH } from "../../runtime/json.ts";
import {
  BODY_TIMEOUT_MS,
  type BodyProblem,
  jsonOfBytes,
  readJson,
  type tooSlow,
  withinBodyTime,
} from "../web/body.ts";

const LENGTH = /^\d+$/;

const tooLarge = (limit: number): Either.Either<never, BodyProblem> =>
  Either.left({ _tag: "TooLarge", limit });
const unreadable = (message: string): Either.Either<never, BodyProblem> =>
  Either.left({ _tag: "Unreadable", message });

/**
 * Reads the body as JSON, refused when over `limit` bytes, not UTF-8,
 * nested deeper than {@link MAX_JSON_DEPTH} levels or not JSON, as
 * `readJson` refuses it. A declared `content-length` bounds the body (an
 * HTTP server frames the body by it), so it is read whole, and measured
 * again once read; without one, it is counted as it arrives. Either way it
 * must all arrive within `timeoutMs`.
 */
export const readRequestJson = async (
  request: Request,
  limit: number,
  timeoutMs: number = BODY_TIMEOUT_MS,
): Promise<Either.Either<unknown, BodyProblem>> => {
  const declared = request.headers.get("content-length");
  if (declared === null || !LENGTH.test(declared)) return readJson(request, limit, timeoutMs);
  if (Number(declared) > limit) return tooLarge(limit);
  let bytes: ArrayBuffer | ReturnType<typeof tooSlow>;
  try {
    // Too slow: what is still on its way is left to the connection's close (see web/node.ts).
    bytes = await withinBodyTime(request.arrayBuffer(), timeoutMs, () => undefined);
  } catch {
    // A body that breaks off (the client left) is a bad request, not a failure of the host.
    return unreadable("the body was cut off");
  }
  if (!(bytes instanceof ArrayBuffer)) return Either.left(bytes);
  if (bytes.byteLength > limit) return tooLarge(limit);
  return jsonOfBytes(bytes);
};
