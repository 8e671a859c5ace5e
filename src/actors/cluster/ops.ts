/**
 * A window's prompt, confirm, select, stop and reset as its users call them
 * (decision (aj)): done here when this host is the window's writer (or the
 * store has no leases), or asked of the host that is, and answered for
 * another host that asks this one.
 */
import { routeOf, selectionProblem } from "../../runtime/log/selection.ts";
import type { Clock } from "../../runtime/ports/clock.ts";
import type { ThreadChange } from "../../runtime/threads/summary.ts";
import { type AssistantWindow, promptRefused, SelectionRefused } from "../assistantWindow.ts";
import { againIfNotStarted } from "../log/turnWaiters.ts";
import type { WindowLog } from "../log/windowLog.ts";
import type { Reply, Request } from "./messages.ts";
import { answerAsHolder, type LocalOps, reaches, windowRemote } from "./remote.ts";
import type { Routing } from "./routing.ts";
import type { WindowWriter } from "./writer.ts";

const unanswered = () =>
  promptRefused("windowFailed", "the host writing this window did not answer; try again");

/** What the writer's ops read of their window. */
export interface WriterOpsWindow {
  readonly writer: WindowWriter;
  readonly clientId: string;
  readonly owner: string;
  readonly log: Pick<WindowLog, "appended$" | "status">;
  readonly deps: { readonly routing?: Routing; readonly clock: Clock };
  /** The turn the window's conversation runs (or ran last); the log's when none runs here. */
  currentTurn(): number;
  /** Waits for the conversation to start; refuses a prompt when it cannot. */
  prompting(): Promise<unknown>;
  /** Waits for the conversation to start; refuses when the window failed or closed. */
  serving(): Promise<unknown>;
  /** Waits for the log to say whose the window is; refuses another user. */
  owned(): Promise<void>;
}

type Ops = Pick<AssistantWindow, "prompt" | "confirm" | "select" | "stop" | "reset">;

/** The window's ops over its writer: one object a window, its methods the prototype's. */
export class WriterOps {
  readonly #remote: ReturnType<typeof windowRemote> | undefined;

  constructor(
    readonly w: WriterOpsWindow,
    readonly local: LocalOps,
  ) {
    const { routing, clock } = w.deps;
    const { writer } = w;
    this.#remote =
      routing === undefined
        ? undefined
        : windowRemote({
            routing,
            clientId: w.clientId,
            owner: w.owner,
            log: w.log,
            clock,
            // Takes the lease only if it is free or its holder died: then the turn is recorded ended.
            probe: () => writer.ifFree(async () => undefined),
          });
  }

  async prompt(
    input: Parameters<Ops["prompt"]>[0],
    options: Parameters<Ops["prompt"]>[1] = {},
  ): ReturnType<Ops["prompt"]> {
    const { w, local } = this;
    const remote = this.#remote;
    await w.prompting();
    if (remote === undefined) return againIfNotStarted(() => local.prompt(input, options));
    const { text, route } = typeof input === "string" ? { text: input, route: null } : input;
    return w.writer.run(
      () => againIfNotStarted(() => local.prompt(input, options)),
      (holder) => remote.prompt(holder, { text, route: routeOf(route) }, options.onStarted),
      () => {
        throw unanswered();
      },
    );
  }

  async confirm(
    confirmId: string,
    accept: boolean,
    echo: Parameters<Ops["confirm"]>[2] = {},
  ): ReturnType<Ops["confirm"]> {
    const { w, local } = this;
    const remote = this.#remote;
    await w.owned();
    if (remote === undefined) return local.confirm(confirmId, accept, echo);
    return w.writer.run(
      () => local.confirm(confirmId, accept, echo),
      (holder) => remote.confirm(holder, confirmId, accept, echo),
      () => ({ _tag: "UnknownConfirmation" }),
    );
  }

  async select(
    kind: string,
    ids: ReadonlyArray<string | number>,
    options: Parameters<Ops["select"]>[2] = {},
  ): Promise<void> {
    const { w, local } = this;
    const remote = this.#remote;
    const problem = selectionProblem(kind, ids);
    if (problem !== undefined) throw new SelectionRefused({ detail: problem });
    await w.serving();
    if (remote === undefined) return local.select(kind, ids, options);
    return w.writer.run(
      () => local.select(kind, ids, options),
      (holder) => remote.select(holder, kind, ids, options),
      () => {
        throw unanswered();
      },
    );
  }

  stop(): void {
    const { w, local } = this;
    const remote = this.#remote;
    if (remote === undefined) {
      local.stop();
      return;
    }
    // The turn it stops is one known now: asked again later (here or of the holder), it stops
    // no turn begun since.
    const asked = Math.max(w.currentTurn(), remote.known());
    void w.writer
      .run(
        async () => {
          if (reaches(w.currentTurn(), asked)) local.stop();
        },
        (holder) => remote.stop(holder, asked),
        () => undefined,
      )
      .catch(() => undefined);
  }

  async reset(): Promise<void> {
    const { w, local } = this;
    const remote = this.#remote;
    await w.serving();
    if (remote === undefined) return local.reset();
    // As a stop: a turn begun after it was asked (it came late) is kept, and nothing is reset.
    const asked = Math.max(w.currentTurn(), remote.known());
    return w.writer.run(
      async () => {
        if (reaches(w.currentTurn(), asked)) await local.reset();
      },
      (holder) => remote.reset(holder, asked),
      () => {
        throw unanswered();
      },
    );
  }

  /** Logs a change of the thread's name or archive, by the window's writer. */
  async mark(change: ThreadChange): Promise<void> {
    const { w, local } = this;
    const remote = this.#remote;
    await w.serving();
    if (remote === undefined) return local.mark(change);
    return w.writer.run(
      () => local.mark(change),
      (holder) => remote.mark(holder, change),
      () => {
        throw unanswered();
      },
    );
  }

  /** What this host answers another's request for the window (it writes it, or says it does not). */
  answer(request: Request): Promise<Reply> {
    const { w } = this;
    return answerAsHolder(request, {
      owner: w.owner,
      asHolder: w.writer.asHolder,
      local: this.local,
      turn: () => w.currentTurn(),
    });
  }
}
