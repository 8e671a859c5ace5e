/**
 * A window's requests to the host that writes it, and its answers to the
 * requests of others (decision (aj)). What the holder does is told through
 * the log: a prompt's turn is followed here as the log is read, so its end
 * is the same event on every host.
 */

import type { AnswerResult, ConfirmEcho } from "../../runtime/calls/answerResult.ts";
import { ANSWER_TAGS } from "../../runtime/calls/answerResult.ts";
import { isTurnEnd, type LogEvent, type TurnEnd } from "../../runtime/log/events.ts";
import type { Clock } from "../../runtime/ports/clock.ts";
import type { ThreadChange } from "../../runtime/threads/summary.ts";
import {
  type PromptInput,
  PromptRefused,
  SelectionRefused,
  WindowOwnerMismatch,
} from "../assistantWindow.ts";
import { againIfNotStarted } from "../log/turnWaiters.ts";
import type { WindowLog } from "../log/windowLog.ts";
import { type Reply, type Request, refusedReply } from "./messages.ts";
import type { Routing } from "./routing.ts";
import { NOT_HELD, TRY_AGAIN } from "./writer.ts";

/** What a window does for a request, as its writer (the holder's side). */
export interface LocalOps {
  readonly prompt: (
    input: PromptInput,
    options: { readonly onStarted?: (turn: number) => void },
  ) => Promise<TurnEnd>;
  readonly confirm: (
    confirmId: string,
    accept: boolean,
    echo: { readonly tool?: string; readonly args?: unknown },
  ) => Promise<AnswerResult>;
  readonly stop: () => void;
  readonly reset: () => Promise<void>;
  readonly select: (
    kind: string,
    ids: ReadonlyArray<string | number>,
    options: { readonly route?: string | null },
  ) => Promise<void>;
  /** Logs a change of the thread's name or archive. */
  readonly mark: (change: ThreadChange) => Promise<void>;
}

/** The error a `Refused` reply carries, made again here. */
const refusal = (reply: Extract<Reply, { _tag: "Refused" }>, clientId: string): Error => {
  if (reply.error === "PromptRefused")
    return new PromptRefused({
      reason: (reply.reason ?? "windowFailed") as PromptRefused["reason"],
      message: reply.message,
    });
  if (reply.error === "SelectionRefused")
    return new SelectionRefused({ detail: reply.message.replace(/^selection refused: /, "") });
  if (reply.error === "WindowOwnerMismatch") return new WindowOwnerMismatch({ clientId });
  return new Error(reply.message);
};

/**
 * Whether a stop or a reset asked when `asked` was the last turn its asker
 * knew of reaches the window's turn `running`: not one begun after it (one
 * that reached the writer late, or was asked again there, ends nothing later).
 */
export const reaches = (running: number, asked: number | undefined): boolean =>
  asked === undefined || running <= asked;

/**
 * The requests of one window to its writer.
 *
 * @example
 * ```ts
 * const remote = windowRemote({ routing, clientId, owner, log, clock, probe });
 * const end = await remote.prompt("host-b", { text: "Hi", route: null }, {});
 * ```
 */
export const windowRemote = (deps: {
  readonly routing: Routing;
  readonly clientId: string;
  readonly owner: string;
  readonly log: Pick<WindowLog, "appended$" | "status">;
  readonly clock: Clock;
  /** Takes the lease if its holder died (recording its turn interrupted), else does nothing. */
  readonly probe: () => Promise<unknown>;
}) => {
  const { routing, clientId, owner } = deps;
  /** The last turn a prompt asked here was told had started: a stop asked here reaches it. */
  let started = 0;
  const ask = (holder: string, request: Parameters<Routing["ask"]>[1]) =>
    routing.ask(holder, request);
  /** A reset's or a selection's reply: done, refused there (thrown here), or ask again. */
  const done = (reply: Reply): undefined | typeof TRY_AGAIN => {
    if (reply._tag === "Refused") throw refusal(reply, clientId);
    return reply._tag === "Done" ? undefined : TRY_AGAIN;
  };

  return {
    prompt: async (
      holder: string,
      input: { readonly text: string; readonly route: string | null },
      onStarted: ((turn: number) => void) | undefined,
    ): Promise<TurnEnd | typeof TRY_AGAIN> => {
      // Listened to before asking: the turn's end may be read before the reply comes.
      const ends = new Map<number, TurnEnd>();
      let wanted: number | undefined;
      let settle: (end: TurnEnd) => void = () => {};
      let fail: (error: unknown) => void = () => {};
      const ended = new Promise<TurnEnd>((resolve, reject) => {
        settle = resolve;
        fail = reject;
      });
      const subscription = deps.log.appended$.subscribe({
        next: (event: LogEvent) => {
          if (!isTurnEnd(event)) return;
          ends.set(event.turn, event);
          if (event.turn === wanted) settle(event);
        },
        complete: () =>
          fail(
            new PromptRefused({
              reason: "closed",
              message: "this window closed before the turn ended",
            }),
          ),
      });
      let probing: unknown;
      let over = false;
      try {
        const reply = await ask(holder, { _tag: "Prompt", clientId, owner, ...input });
        if (reply._tag === "NotHolder") return TRY_AGAIN;
        if (reply._tag === "Refused") throw refusal(reply, clientId);
        if (reply._tag !== "Started") return TRY_AGAIN;
        wanted = reply.turn;
        started = Math.max(started, reply.turn);
        onStarted?.(reply.turn);
        const known = ends.get(reply.turn);
        if (known !== undefined) return known;
        // Should the holder die, the next taker records the turn interrupted: this host tries.
        const probe = () => {
          if (over) return;
          probing = deps.clock.setTimeout(() => {
            // One the store refuses is tried again at the next lease time.
            void deps.probe().then(probe, probe);
          }, routing.leases.leaseMs);
        };
        probe();
        return await ended;
      } finally {
        // A probe still running when the turn ended schedules no other.
        over = true;
        subscription.unsubscribe();
        if (probing !== undefined) deps.clock.clearTimeout(probing);
        probing = undefined;
      }
    },
    confirm: async (
      holder: string,
      confirmId: string,
      accept: boolean,
      echo: ConfirmEcho,
    ): Promise<AnswerResult | typeof TRY_AGAIN> => {
      const reply = await ask(holder, {
        _tag: "Confirm",
        clientId,
        owner,
        confirmId,
        accept,
        ...echo,
      });
      if (reply._tag === "Refused") throw refusal(reply, clientId);
      return ANSWER_TAGS.has(reply._tag) ? (reply as AnswerResult) : TRY_AGAIN;
    },
    /** The last turn this host knows of: its log's, or one a prompt asked here started. */
    known: () => Math.max(started, deps.log.status().turn),
    /** Asks the holder to stop its turn, unless it started after `turn`. */
    stop: async (holder: string, turn: number): Promise<undefined | typeof TRY_AGAIN> => {
      const reply = await ask(holder, { _tag: "Stop", clientId, owner, turn });
      return reply._tag === "Done" ? undefined : TRY_AGAIN;
    },
    reset: async (holder: string, turn: number): Promise<undefined | typeof TRY_AGAIN> =>
      done(await ask(holder, { _tag: "Reset", clientId, owner, turn })),
    select: async (
      holder: string,
      kind: string,
      ids: ReadonlyArray<string | number>,
      route: { readonly route?: string | null },
    ): Promise<undefined | typeof TRY_AGAIN> =>
      done(await ask(holder, { _tag: "Select", clientId, owner, kind, ids: [...ids], ...route })),
    mark: async (holder: string, change: ThreadChange): Promise<undefined | typeof TRY_AGAIN> =>
      done(await ask(holder, { _tag: "Mark", clientId, owner, ...change })),
  };
};

/**
 * What this host answers another's request for a window it writes: `NotHolder`
 * when it does not write it now (the asker takes the lease or asks again).
 */
export const answerAsHolder = async (
  request: Request,
  window: {
    readonly owner: string;
    /** Runs the body as the holder, keeping the lease until it settles; `undefined` when not the holder. */
    readonly asHolder: <T>(body: () => Promise<T>) => Promise<T | typeof NOT_HELD>;
    readonly local: LocalOps;
    /** The turn the window's conversation runs (or ran last). */
    readonly turn: () => number;
  },
): Promise<Reply> => {
  if (request.owner !== window.owner)
    return refusedReply(new WindowOwnerMismatch({ clientId: request.clientId }));
  const { local } = window;
  const notHolder: Reply = { _tag: "NotHolder" };
  const held = async (answer: Promise<Reply | typeof NOT_HELD>): Promise<Reply> => {
    const reply = await answer;
    return reply === NOT_HELD ? notHolder : reply;
  };
  try {
    switch (request._tag) {
      case "Prompt":
        return await new Promise<Reply>((resolve) => {
          // The lease is kept until the turn ends; the asker hears once it started.
          window
            .asHolder(() =>
              againIfNotStarted(() =>
                local.prompt(
                  { text: request.text, route: request.route },
                  { onStarted: (started) => resolve({ _tag: "Started", turn: started }) },
                ),
              ),
            )
            .then(
              (end) => {
                if (end === NOT_HELD) resolve(notHolder);
              },
              (error: unknown) => resolve(refusedReply(error)),
            );
        });
      case "Confirm":
        return await held(
          window.asHolder(() =>
            local.confirm(request.confirmId, request.accept, {
              ...(request.tool === undefined ? {} : { tool: request.tool }),
              ...(request.args === undefined ? {} : { args: request.args }),
              ...(request.edited === undefined ? {} : { edited: request.edited }),
            }),
          ),
        );
      case "Stop":
        return await held(
          window.asHolder(async (): Promise<Reply> => {
            if (reaches(window.turn(), request.turn)) local.stop();
            return { _tag: "Done" };
          }),
        );
      case "Reset":
        return await held(
          window.asHolder(async (): Promise<Reply> => {
            if (reaches(window.turn(), request.turn)) await local.reset();
            return { _tag: "Done" };
          }),
        );
      case "Select":
        return await held(
          window.asHolder(async (): Promise<Reply> => {
            await local.select(
              request.kind,
              request.ids,
              request.route === undefined ? {} : { route: request.route },
            );
            return { _tag: "Done" };
          }),
        );
      case "Mark":
        return await held(
          window.asHolder(async (): Promise<Reply> => {
            await local.mark(
              request.title === undefined
                ? { archived: request.archived ?? true }
                : { title: request.title },
            );
            return { _tag: "Done" };
          }),
        );
    }
  } catch (error) {
    return refusedReply(error);
  }
};
