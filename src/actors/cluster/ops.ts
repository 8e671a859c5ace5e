/**
 * A window's prompt, confirm, select, stop and reset as its users call them
 * (decision (aj)): done here when this host is the window's writer (or the
 * store has no leases), or asked of the host that is, and answered for
 * another host that asks this one.
 */
import { routeOf, selectionProblem } from "../../runtime/log/selection.ts";
import type { Clock } from "../../runtime/ports/clock.ts";
import { type AssistantWindow, promptRefused, SelectionRefused } from "../assistantWindow.ts";
import { againIfNotStarted } from "../log/turnWaiters.ts";
import type { WindowLog } from "../log/windowLog.ts";
import type { Reply, Request } from "./messages.ts";
import { answerAsHolder, type LocalOps, reaches, windowRemote } from "./remote.ts";
import type { Routing } from "./routing.ts";
import type { WindowWriter } from "./writer.ts";

const unanswered = () =>
  promptRefused("windowFailed", "the host writing this window did not answer; try again");

/** The window's ops over its writer. */
export const writerOps = (deps: {
  readonly local: LocalOps;
  readonly writer: WindowWriter;
  readonly routing: Routing | undefined;
  readonly clientId: string;
  readonly owner: string;
  readonly log: Pick<WindowLog, "appended$" | "status">;
  readonly clock: Clock;
  /** The turn the window's conversation runs (or ran last); the log's when none runs here. */
  readonly turn: () => number;
  /** Waits for the conversation to start; refuses a prompt when it cannot. */
  readonly ready: () => Promise<void>;
  /** Waits for the conversation to start; refuses when the window failed or closed. */
  readonly started: () => Promise<void>;
  /** Waits for the log to say whose the window is; refuses another user. */
  readonly owned: () => Promise<void>;
}): Pick<AssistantWindow, "prompt" | "confirm" | "select" | "stop" | "reset"> & {
  readonly answer: (request: Request) => Promise<Reply>;
} => {
  const { local, writer } = deps;
  const remote =
    deps.routing === undefined
      ? undefined
      : windowRemote({
          routing: deps.routing,
          clientId: deps.clientId,
          owner: deps.owner,
          log: deps.log,
          clock: deps.clock,
          // Takes the lease only if it is free or its holder died: then the turn is recorded ended.
          probe: () => writer.ifFree(async () => undefined),
        });
  return {
    prompt: async (input, options = {}) => {
      await deps.ready();
      if (remote === undefined) return againIfNotStarted(() => local.prompt(input, options));
      const { text, route } = typeof input === "string" ? { text: input, route: null } : input;
      return writer.run(
        () => againIfNotStarted(() => local.prompt(input, options)),
        (holder) => remote.prompt(holder, { text, route: routeOf(route) }, options.onStarted),
        () => {
          throw unanswered();
        },
      );
    },
    confirm: async (confirmId, accept, echo = {}) => {
      await deps.owned();
      if (remote === undefined) return local.confirm(confirmId, accept, echo);
      return writer.run(
        () => local.confirm(confirmId, accept, echo),
        (holder) => remote.confirm(holder, confirmId, accept, echo),
        () => ({ _tag: "UnknownConfirmation" }),
      );
    },
    select: async (kind, ids, options = {}) => {
      const problem = selectionProblem(kind, ids);
      if (problem !== undefined) throw new SelectionRefused({ detail: problem });
      await deps.started();
      if (remote === undefined) return local.select(kind, ids, options);
      return writer.run(
        () => local.select(kind, ids, options),
        (holder) => remote.select(holder, kind, ids, options),
        () => {
          throw unanswered();
        },
      );
    },
    stop: () => {
      if (remote === undefined) return local.stop();
      // The turn it stops is one known now: asked again later (here or of the holder), it stops
      // no turn begun since.
      const asked = Math.max(deps.turn(), remote.known());
      void writer
        .run(
          async () => {
            if (reaches(deps.turn(), asked)) local.stop();
          },
          (holder) => remote.stop(holder, asked),
          () => undefined,
        )
        .catch(() => undefined);
    },
    reset: async () => {
      await deps.started();
      if (remote === undefined) return local.reset();
      // As a stop: a turn begun after it was asked (it came late) is kept, and nothing is reset.
      const asked = Math.max(deps.turn(), remote.known());
      return writer.run(
        async () => {
          if (reaches(deps.turn(), asked)) await local.reset();
        },
        (holder) => remote.reset(holder, asked),
        () => {
          throw unanswered();
        },
      );
    },
    answer: (request) =>
      answerAsHolder(request, {
        owner: deps.owner,
        asHolder: writer.asHolder,
        local,
        turn: deps.turn,
      }),
  };
};
