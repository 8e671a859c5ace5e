/**
 * One window: its conversation (a child of the host's supervisor), its log,
 * its confirmations and its streamed text. The supervisor decides when the
 * conversation starts and is rebuilt; the window's parts (`WindowCore`) do
 * what that takes here. The window is what its users call: each operation
 * is a method of the prototype, over the window's parts, its view and its
 * ops, so an idle window costs its fields and not a closure per operation.
 */

import { defer, type Observable, throwError } from "rxjs";
import type { User } from "../../runtime/commands/origin.ts";
import type { LogEvent } from "../../runtime/log/events.ts";
import { threadSummary } from "../../runtime/threads/summary.ts";
import { promptRefused } from "../assistantWindow.ts";
import type { Reply, Request } from "../cluster/messages.ts";
import { WriterOps } from "../cluster/ops.ts";
import { spendingOfLog } from "../log/userUsage.ts";
import { LiveQueryRefused, type LiveResult } from "../support/liveQueries.ts";
import { WindowCore } from "./core.ts";
import type { OpenWindow, WindowDeps } from "./deps.ts";
import type { WindowPhases } from "./lifecycle.ts";
import { WindowLocalOps } from "./localOps.ts";
import { promptAnew } from "./promptAnew.ts";
import { WindowView } from "./view.ts";

export type { TurnEnd } from "../../runtime/log/events.ts";
export type { AssistantWindow, PromptInput } from "../assistantWindow.ts";
export { PromptRefused, SelectionRefused } from "../assistantWindow.ts";

type Ops = Pick<OpenWindow, "prompt" | "confirm" | "select" | "follow">;

/**
 * An open window, as its host keeps it.
 *
 * @internal
 */
export class HostWindow implements OpenWindow {
  readonly #core: WindowCore;
  readonly #view: WindowView;
  readonly #ops: WriterOps;
  readonly clientId: string;
  readonly key: string;
  readonly ready: Promise<void>;

  constructor(
    deps: WindowDeps,
    clientId: string,
    key: string,
    firstUser: User,
    /** Settles when an earlier window of this client id has finished closing: its log is read after. */
    after?: Promise<void>,
  ) {
    const core = new WindowCore(this, deps, clientId, key, firstUser, after);
    this.#core = core;
    this.#view = new WindowView(core);
    this.#ops = new WriterOps(core, new WindowLocalOps(core));
    this.clientId = clientId;
    this.key = key;
    this.ready = core.phases.ready;
  }

  get supervised(): WindowCore {
    return this.#core;
  }

  get phases(): WindowPhases {
    return this.#core.phases;
  }

  setUser(next: User): void {
    this.#core.user = next;
  }

  catchUp(toSeq?: number): void {
    const core = this.#core;
    const { log } = core;
    // Another owner's log closes the window: opened again, it is refused.
    const catchUp = () => {
      if (!core.closed())
        core.lease().catchUp(toSeq, () => void this.close().catch(() => undefined));
    };
    // Without leases, a notice is mostly of this window's own append, told before it resolved:
    // looked at once the appends in flight are stored, so that none makes the lease for nothing.
    if (core.deps.routing !== undefined || toSeq === undefined) catchUp();
    else if (toSeq > log.lastSeq()) void log.idle().then(() => toSeq > log.lastSeq() && catchUp());
  }

  prompt(input: Parameters<Ops["prompt"]>[0], options?: Parameters<Ops["prompt"]>[1]) {
    const core = this.#core;
    return promptAnew(
      (i, o) => this.#ops.prompt(i, o),
      () => core.failure(),
      () => core.deps.reopen(core.clientId, core.user),
    )(input, options);
  }

  confirm(confirmId: string, accept: boolean, echo?: Parameters<Ops["confirm"]>[2]) {
    return this.#ops.confirm(confirmId, accept, echo);
  }

  /** Checked at subscription, not at the call: a query opened after the window closed is refused. */
  live(command: string, args: unknown): Observable<LiveResult> {
    const core = this.#core;
    return defer(() =>
      core.closed()
        ? throwError(
            () => new LiveQueryRefused({ reason: "closed", detail: "this window is closed" }),
          )
        : core.deps.live.subscribe(
            { clientId: core.clientId, user: core.user, currentUser: () => core.user },
            command,
            args,
          ),
    );
  }

  select(
    kind: string,
    ids: ReadonlyArray<string | number>,
    options?: Parameters<Ops["select"]>[2],
  ): Promise<void> {
    return this.#ops.select(kind, ids, options);
  }

  stop(): void {
    this.#ops.stop();
  }

  reset(): Promise<void> {
    return this.#ops.reset();
  }

  rename(title: string): Promise<void> {
    return this.#ops.mark({ title });
  }

  archive(archived = true): Promise<void> {
    return this.#ops.mark({ archived });
  }

  indexed(): Promise<void> {
    return this.#core.indexed();
  }

  async thread(): ReturnType<OpenWindow["thread"]> {
    const { log, deps } = this.#core;
    await this.#core.owned();
    // A log that keeps no summary (its thread is not indexed as written) is folded from the store.
    return log.thread() ?? threadSummary.fold(await deps.store.read(log.stream, 0));
  }

  answer(request: Request): Promise<Reply> {
    return this.#ops.answer(request);
  }

  follow(lastEventId: Parameters<Ops["follow"]>[0], options?: Parameters<Ops["follow"]>[1]) {
    return this.#view.follow(lastEventId, options);
  }

  events$(fromSeq?: number): Observable<LogEvent> {
    return this.#view.events$(fromSeq);
  }

  touch(): void {
    this.#view.touch();
  }

  lastUsed(): number {
    return this.#view.lastUsed();
  }

  busy(): boolean {
    return this.#view.busy();
  }

  panel(): ReturnType<OpenWindow["panel"]> {
    return this.#core.log.panel();
  }

  history(): ReturnType<OpenWindow["history"]> {
    return this.#core.log.history();
  }

  usage(): ReturnType<OpenWindow["usage"]> {
    return this.#core.log.usage();
  }

  owned(): Promise<void> {
    return this.#core.owned();
  }

  async spending(): ReturnType<OpenWindow["spending"]> {
    // Another user's log is read only once it is known not to be theirs: never.
    await this.#core.owned();
    const { deps, clientId } = this.#core;
    return spendingOfLog(deps.usage, clientId);
  }

  state(): unknown {
    return this.#core.conversation()?.getSnapshot().value;
  }

  context(): { readonly turn: number; readonly tokensUsed: number } {
    return this.#view.context();
  }

  failed(): boolean {
    return this.#core.failure() !== undefined;
  }

  lastSeq(): number {
    return this.#core.log.lastSeq();
  }

  running(): boolean {
    return this.#core.log.status().running;
  }

  settled(): Promise<void> {
    return this.#view.settled();
  }

  close(): Promise<void> {
    const core = this.#core;
    if (core.closing !== undefined) return core.closing;
    const { deps, clientId, log, phases } = core;
    // A turn still running ends Stopped, so its prompt settles and its log is whole.
    const running = core.conversation();
    if (running !== undefined && !running.getSnapshot().matches("idle")) {
      core.text.flush();
      running.send({ type: "STOP", streamed: core.step.streamed() });
    }
    const givenUp = core.failure() !== undefined;
    phases.send({ type: "CLOSE" });
    deps.live.close(clientId);
    // A window given up has nothing left with the supervisor (and may have been opened anew).
    if (!givenUp) deps.supervisor(core.key).send({ type: "CLOSE", window: core.key });
    const closing = (async () => {
      await log.idle().catch(() => undefined);
      core.turns.refuse(() => promptRefused("closed", "this window closed before the turn ended"));
      // Every stream of the window ends, after what was stored: clients open the window again.
      log.close();
      if (!deps.store.durable) await deps.store.drop(log.stream);
      phases.send({ type: "CLOSED" });
    })();
    core.closing = closing;
    // Forgotten now; a window opened on this client id reads the log once this one is done.
    deps.onClose(
      clientId,
      this,
      closing.catch(() => undefined),
    );
    return closing;
  }
}

/** @internal */
export const openWindow = (
  deps: WindowDeps,
  clientId: string,
  key: string,
  firstUser: User,
  after?: Promise<void>,
): OpenWindow => new HostWindow(deps, clientId, key, firstUser, after);
