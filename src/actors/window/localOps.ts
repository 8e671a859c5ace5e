/**
 * What a window does as its own writer (everything, on a store without
 * leases): a prompt framed and started as a turn, a confirmation answered,
 * a selection recorded, Stop and Reset. A prompt's framing (its system
 * prompt, the tools offered, its route and span) goes into the window
 * machine with `PROMPT`, and the conversation is sent the turn.
 */
import type { WindowConversation } from "../../machines/windowMachine.ts";
import type { User } from "../../runtime/commands/origin.ts";
import type { UnstampedEvent } from "../../runtime/log/events.ts";
import { routeOf, selectionChanged } from "../../runtime/log/selection.ts";
import { promptRefused } from "../assistantWindow.ts";
import type { LocalOps } from "../cluster/remote.ts";
import type { TurnWaiters } from "../log/turnWaiters.ts";
import type { WindowLog } from "../log/windowLog.ts";
import { contextOf, spanEndsWith, startSpan } from "../support/tracing.ts";
import type { Coalescer } from "../turn/coalescer.ts";
import type { WindowConfirmations } from "../turn/confirmations.ts";
import type { ModelStep } from "../turn/modelStep.ts";
import type { WindowDeps } from "./deps.ts";
import { framedPrompt } from "./framing.ts";
import type { WindowPhases } from "./lifecycle.ts";

/**
 * The window's own ops, over its parts.
 *
 * @example
 * ```ts
 * const local = localOps({ deps, clientId, user: () => user, log, phases, live, turns, confirmations, record, text, step });
 * const end = await local.prompt("What is overdue?", {});
 * ```
 */
export const localOps = (w: {
  readonly deps: WindowDeps;
  readonly clientId: string;
  readonly user: () => User;
  readonly log: WindowLog;
  readonly phases: WindowPhases;
  /** The running conversation, once the window serves; rejects when it cannot. */
  readonly live: () => Promise<WindowConversation>;
  readonly turns: TurnWaiters;
  readonly confirmations: WindowConfirmations;
  readonly record: (event: UnstampedEvent) => Promise<unknown>;
  readonly text: Coalescer;
  readonly step: ModelStep;
}): LocalOps => {
  const { deps, clientId, log, phases, text, step } = w;
  return {
    prompt: async (input, options) => {
      const assistant = deps.app.assistant;
      if (assistant === undefined) throw promptRefused("noAssistant", "this app has no assistant");
      const running = await w.live();
      if (!running.getSnapshot().matches("idle") || phases.at.where.inTurn) {
        throw promptRefused("turnInProgress", "a turn is already running in this window");
      }
      const prompt = framedPrompt(deps, assistant, { clientId, user: w.user(), input, log });
      const turn = running.getSnapshot().context.turn + 1;
      const span = startSpan("elyra.turn", { "elyra.window": clientId, "elyra.turn": turn });
      const trace = contextOf(span);
      // What the turn runs with is the window machine's until the turn ends.
      phases.send({
        type: "PROMPT",
        system: prompt.system,
        offered: prompt.offered,
        route: prompt.event.route,
        ...(trace === undefined ? {} : { trace }),
      });
      const end = spanEndsWith(span, w.turns.wait(turn, options.onStarted));
      running.send(prompt.event);
      return end;
    },
    confirm: async (confirmId, accept, echo) => {
      const broker = w.confirmations.made();
      if (broker === undefined) return { _tag: "UnknownConfirmation" };
      return broker.answer({ confirmId, accept, scope: clientId, ...echo });
    },
    select: async (kind, ids, options) => {
      await w.live();
      const route = options.route === undefined ? phases.at.context.route : routeOf(options.route);
      phases.send({ type: "SELECTED", route });
      await w.record(selectionChanged(kind, ids, route));
    },
    stop: () => {
      text.flush();
      phases.at.context.conversation?.send({ type: "STOP", streamed: step.streamed() });
    },
    reset: async () => {
      const running = await w.live();
      text.flush();
      running.send({ type: "RESET", streamed: step.streamed() });
      await log.idle();
    },
  };
};
