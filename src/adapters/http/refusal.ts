/**
 * Why a request is answered with an error: one tagged value per answer, and
 * the mapping from the host's own refusals to them. Anything else is a 500
 * that says nothing.
 */
import { Data } from "effect";
import {
  HostFull,
  StreamsRefused,
  ThreadNotFound,
  WindowOwnerMismatch,
} from "../../actors/host/host.ts";
import { LiveQueryRefused } from "../../actors/support/liveQueries.ts";
import { PromptRefused, SelectionRefused } from "../../actors/window/window.ts";
import { ThreadQueryInvalid } from "../../runtime/threads/threadIndex.ts";
import type { BodyProblem } from "../web/body.ts";
import { refusalResponse, UNAUTHENTICATED } from "../web/errorAnswer.ts";
import type { ErrorType } from "./contract.ts";

/** A request refused with a status and an {@link ErrorBody}. */
export class HttpRefusal extends Data.TaggedError("HttpRefusal")<{
  readonly status: 400 | 401 | 403 | 404 | 405 | 408 | 409 | 413 | 429;
  readonly type: ErrorType;
  readonly message: string;
  /** Headers the answer carries, e.g. `allow` on a 405. */
  readonly headers?: Readonly<Record<string, string>>;
}> {
  /** The answer, as JSON. */
  toResponse(): Response {
    return refusalResponse(this.status, this.type, this.message, this.headers);
  }
}

export const forbidden = () =>
  new HttpRefusal({
    status: 403,
    type: "forbidden",
    message: "the host's token is missing or wrong",
  });

export const unauthenticated = () =>
  new HttpRefusal({ status: 401, type: "unauthenticated", message: UNAUTHENTICATED });

export const badRequest = (message: string) =>
  new HttpRefusal({ status: 400, type: "badRequest", message });

export const tooLarge = (limit: number) =>
  new HttpRefusal({ status: 413, type: "tooLarge", message: `the body is over ${limit} bytes` });

export const tooSlow = (limitMs: number) =>
  new HttpRefusal({
    status: 408,
    type: "tooSlow",
    message: `the body took over ${limitMs / 1000} s to arrive`,
  });

export const notFound = () =>
  new HttpRefusal({ status: 404, type: "notFound", message: "no such route" });

export const notConfigured = (what: string) =>
  new HttpRefusal({
    status: 404,
    type: "notConfigured",
    message: `this host has no ${what} for this route`,
  });

export const methodNotAllowed = (allow: string) =>
  new HttpRefusal({
    status: 405,
    type: "methodNotAllowed",
    message: `this route takes ${allow}`,
    headers: { allow },
  });

const LIVE_STATUS: Record<LiveQueryRefused["reason"], 400 | 403 | 409> = {
  unknownCommand: 400,
  notLive: 400,
  badArguments: 400,
  tooMany: 400,
  noAbility: 403,
  notAllowed: 403,
  closed: 409,
};

/** A body, header or query that could not be read: 413, 408 or 400. */
export const fromBody = (problem: BodyProblem): HttpRefusal => {
  switch (problem._tag) {
    case "TooLarge":
      return tooLarge(problem.limit);
    case "TooSlow":
      return tooSlow(problem.limitMs);
    case "Unreadable":
      return badRequest(problem.message);
  }
};

/** The answer to one of the host's refusals, or undefined for an error that is a bug. */
export const refusalOf = (error: unknown): HttpRefusal | undefined => {
  if (error instanceof HttpRefusal) return error;
  if (error instanceof WindowOwnerMismatch)
    return new HttpRefusal({
      status: 403,
      type: "notYourWindow",
      message: "this window belongs to another user",
    });
  if (error instanceof PromptRefused)
    return new HttpRefusal({
      status: error.reason === "noAssistant" ? 404 : 409,
      type: error.reason,
      message: error.message,
    });
  if (error instanceof SelectionRefused) return badRequest(error.detail);
  // The same answer whether the thread is another user's, erased, or never was.
  if (error instanceof ThreadNotFound)
    return new HttpRefusal({
      status: 404,
      type: "threadNotFound",
      message: "no such conversation",
    });
  if (error instanceof ThreadQueryInvalid) return badRequest(error.message);
  if (error instanceof HostFull)
    return new HttpRefusal({
      status: 429,
      type: "hostFull",
      message: "this host has too many conversations open just now; try again shortly",
      headers: { "retry-after": "5" },
    });
  if (error instanceof StreamsRefused)
    return new HttpRefusal({
      status: 429,
      type: "tooManyStreams",
      message:
        error.reason === "window"
          ? `this conversation is open in ${error.limit} places already: close one, then try again`
          : `you have ${error.limit} conversations streaming already: close one, then try again`,
    });
  if (error instanceof LiveQueryRefused)
    return new HttpRefusal({
      status: LIVE_STATUS[error.reason],
      type: error.reason,
      message: error.detail,
    });
  return undefined;
};

/** The one answer to a bug: no message, no stack. */
export const internalError = (): Response => refusalResponse(500, "internal", "internal error");
