/**
 * What a window does as its own writer (everything, on a store without
 * leases): a prompt framed and started as a turn, a confirmation answered,
 * a selection recorded, a thread renamed or archived, Stop and Reset. A prompt's framing (its system
 * prompt, the tools offered, its route and span) goes into the window
 * machine with `PROMPT`, and the conversation is sent the turn.
 */
import { routeOf, selectionChanged } from "../../runtime/log/selection.ts";
import { type ThreadChange, threadChanged } from "../../runtime/threads/summary.ts";
import { promptRefused } from "../assistantWindow.ts";
import type { LocalOps } from "../cluster/remote.ts";
import { contextOf, spanEndsWith, startSpan } from "../support/tracing.ts";
import type { WindowCore } from "./core.ts";
import { framedPrompt } from "./framing.ts";

/**
 * The window's own ops, over its parts: one object a window, its methods the
 * prototype's.
 *
 * @example
 * ```ts
 * const local = new WindowLocalOps(core);
 * const end = await local.prompt("What is overdue?", {});
 * ```
 */
export class WindowLocalOps implements LocalOps {
  constructor(readonly w: WindowCore) {}

  async prompt(
    input: Parameters<LocalOps["prompt"]>[0],
    options: Parameters<LocalOps["prompt"]>[1],
  ): ReturnType<LocalOps["prompt"]> {
    const { w } = this;
    const { deps, clientId, log, phases } = w;
    const assistant = deps.app.assistant;
    if (assistant === undefined) throw promptRefused("noAssistant", "this app has no assistant");
    const running = await w.serving();
    if (!running.getSnapshot().matches("idle") || phases.at.where.inTurn) {
      throw promptRefused("turnInProgress", "a turn is already running in this window");
    }
    const prompt = framedPrompt(deps, assistant, { clientId, user: w.user, input, log });
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
  }

  async confirm(
    confirmId: string,
    accept: boolean,
    echo: Parameters<LocalOps["confirm"]>[2],
  ): ReturnType<LocalOps["confirm"]> {
    const broker = this.w.confirmations.made();
    if (broker === undefined) return { _tag: "UnknownConfirmation" };
    return broker.answer({ confirmId, accept, scope: this.w.clientId, ...echo });
  }

  async select(
    kind: string,
    ids: ReadonlyArray<string | number>,
    options: Parameters<LocalOps["select"]>[2],
  ): Promise<void> {
    const { w } = this;
    await w.serving();
    const route = options.route === undefined ? w.phases.at.context.route : routeOf(options.route);
    w.phases.send({ type: "SELECTED", route });
    await w.record(selectionChanged(kind, ids, route));
  }

  async mark(change: ThreadChange): Promise<void> {
    const { w } = this;
    await w.serving();
    await w.record(threadChanged(change));
  }

  stop(): void {
    const { w } = this;
    w.text.flush();
    w.conversation()?.send({ type: "STOP", streamed: w.step.streamed() });
  }

  async reset(): Promise<void> {
    const { w } = this;
    const running = await w.serving();
    w.text.flush();
    running.send({ type: "RESET", streamed: w.step.streamed() });
    await w.log.idle();
  }
}
