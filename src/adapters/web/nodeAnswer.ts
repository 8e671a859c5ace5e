/**
 * A fetch handler's own way of answering on `node:http`, which
 * `toNodeListener` takes when the handler has one: the handler writes its
 * answer to Node's response itself (a Node stream piped straight into it),
 * instead of a `Response` whose web stream the listener reads back. A key, a
 * type and a helper of the Node side: nothing of Node runs when it loads, so
 * a handler that runs off Node too can carry one.
 */
import type { ServerResponse } from "node:http";

/** The key of a fetch handler's {@link NodeAnswer}, shared by every copy of the package. */
export const ANSWER_ON_NODE: unique symbol = Symbol.for("elyra-assistant.answerOnNode");

/**
 * Answers `request` on `node:http`: writes the answer to `response` and
 * resolves `undefined`, or resolves a `Response` for the listener to write.
 * It may keep writing after it resolves (an event stream); it must end or
 * destroy `response` in the end.
 */
export type NodeAnswer = (
  request: Request,
  response: ServerResponse,
) => Promise<Response | undefined>;

/** A fetch handler that may answer on `node:http` itself. */
export interface AnswersOnNode {
  readonly [ANSWER_ON_NODE]?: NodeAnswer;
}

const flushHeaders = (out: ServerResponse): void => {
  if (!out.writableEnded && !out.destroyed) out.flushHeaders();
};

/**
 * Sends `out`'s headers on the next tick, unless it has ended or broken by
 * then: with the first bytes when they come in the same tick, else alone, so
 * a client of a stream has its headers at once.
 */
export const flushHeadersSoon = (out: ServerResponse): void => {
  process.nextTick(flushHeaders, out);
};
