/**
 * Reading what a request carries: a JSON body of bounded size, a header or a
 * query parameter, each decoded by its schema. What cannot be read is a
 * {@link BodyProblem}, a tagged value each web adapter answers in its own
 * wire's words (the assistant's routes, the proxy).
 */
import { Either, type ParseResult, Schema } from "effect";
import { issueLines, issuesOf } from "../../runtime/commands/issues.ts";
import { MAX_JSON_DEPTH, textNestedDeeper } from "../../runtime/json.ts";

/**
 * Why a request's value could not be read: a body over the limit, one that
 * is not (whole, UTF-8) JSON or nests too deep, or a value its schema refuses
 * (`message` names each field: `text: expected string, got 5`).
 */
export type BodyProblem = TooLarge | TooSlow | Unreadable;
export interface TooLarge {
  readonly _tag: "TooLarge";
  readonly limit: number;
}
/** The body had not all arrived `limitMs` after it was first read. */
export interface TooSlow {
  readonly _tag: "TooSlow";
  readonly limitMs: number;
}
export interface Unreadable {
  readonly _tag: "Unreadable";
  readonly message: string;
}

const tooLarge = (limit: number): TooLarge => ({ _tag: "TooLarge", limit });
export const tooSlow = (limitMs: number): TooSlow => ({ _tag: "TooSlow", limitMs });

/**
 * How long a body may take to arrive in all, unless an adapter is told
 * otherwise: 10 s, where Node's own bound is its `requestTimeout` (300 s).
 */
export const BODY_TIMEOUT_MS = 10_000;

/**
 * `read` unless `timeoutMs` passes first: then `cancel` is called (so what
 * `read` waits on ends) and {@link TooSlow} is the answer.
 */
export const withinBodyTime = async <T>(
  read: Promise<T>,
  timeoutMs: number,
  cancel: () => void,
): Promise<T | TooSlow> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<TooSlow>((resolve) => {
    timer = setTimeout(() => {
      cancel();
      resolve(tooSlow(timeoutMs));
    }, timeoutMs);
  });
  try {
    return await Promise.race([read, late]);
  } finally {
    clearTimeout(timer);
  }
};

const isTooSlow = (value: unknown): value is TooSlow =>
  (value as { _tag?: unknown } | null)?._tag === "TooSlow";
const badRequest = (message: string): Unreadable => ({ _tag: "Unreadable", message });

/**
 * Reads the body as JSON: refused when over `limit` bytes, not all arrived
 * within `timeoutMs` ({@link BODY_TIMEOUT_MS} unless given), not UTF-8,
 * nested deeper than {@link MAX_JSON_DEPTH} levels (checked before it is
 * parsed) or not JSON.
 */
export const readJson = async (
  request: Request,
  limit: number,
  timeoutMs: number = BODY_TIMEOUT_MS,
): Promise<Either.Either<unknown, BodyProblem>> => {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) return Either.left(tooLarge(limit));
  if (request.body === null) return Either.left(badRequest(NOT_JSON));
  // Counted as it arrives: a missing or lying content-length must not let a body grow unbounded.
  const reader = request.body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  const deadline = Date.now() + timeoutMs;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    // A body that breaks off (the client left) is a bad request, not a failure of the host.
    const read = await withinBodyTime(
      reader.read().catch(() => undefined),
      Math.max(0, deadline - Date.now()),
      cancel,
    );
    if (isTooSlow(read)) return Either.left(tooSlow(timeoutMs));
    if (read === undefined) return Either.left(badRequest("the body was cut off"));
    const { done, value } = read;
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return Either.left(tooLarge(limit));
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return jsonOfBytes(bytes);
};

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A body read whole, as JSON: refused when not UTF-8, nested deeper than
 * {@link MAX_JSON_DEPTH} levels (checked before it is parsed) or not JSON.
 */
export const jsonOfBytes = (
  bytes: Uint8Array | ArrayBuffer,
): Either.Either<unknown, Unreadable> => {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return Either.left(badRequest(NOT_JSON));
  }
  // Before parsing: decoders, formatters and digests recurse, and a deep body would overflow them.
  if (textNestedDeeper(text, MAX_JSON_DEPTH)) return Either.left(badRequest(TOO_DEEP));
  try {
    return Either.right(JSON.parse(text));
  } catch {
    return Either.left(badRequest(NOT_JSON));
  }
};

const NOT_JSON = "the body must be JSON";
const TOO_DEEP = `the body is nested deeper than ${MAX_JSON_DEPTH} levels`;

/** What a parse error says, each issue as `field: problem`, the whole value named `what`. */
const describe = (error: ParseResult.ParseError, what: string): string =>
  issueLines(issuesOf(error))
    .map((line) => (line.startsWith("arguments:") ? `${what}:${line.slice(10)}` : line))
    .join("; ");

/**
 * Decodes a value by a schema; refused as `Unreadable`, naming each field
 * (`text: expected string, got 5`), the value itself as `what`.
 */
export const decode = <A, I>(
  schema: Schema.Schema<A, I>,
  value: unknown,
  what = "body",
): Either.Either<A, Unreadable> =>
  Either.mapLeft(Schema.decodeUnknownEither(schema)(value), (error) =>
    badRequest(describe(error, what)),
  );
