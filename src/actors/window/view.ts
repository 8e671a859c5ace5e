/**
 * What a window shows and how it is followed: its log's projections, the
 * conversation's state, the event streams open on it, and whether closing it
 * now would cut anything off.
 */
import { eventsOf, followLog, MAX_BEHIND } from "../log/follow.ts";
import { StreamsRefused } from "../support/limits.ts";
import type { WindowCore } from "./core.ts";
import type { OpenWindow } from "./deps.ts";

/** The window's ops the view serves. */
type WindowViewOps = Pick<OpenWindow, "follow" | "events$">;

/**
 * A window's view, over its parts as they are now. One object a window; its
 * methods are the prototype's.
 *
 * @internal
 */
export class WindowView {
  /** Event streams open now. */
  #streams = 0;
  /** When the window was last used: asked for, or its last stream ended. */
  #lastUsed: number;

  constructor(readonly w: WindowCore) {
    this.#lastUsed = w.deps.clock.now();
  }

  #opened(): void {
    this.#streams++;
  }

  /** One of the window's event streams ended: it was used now, and may have gone idle. */
  #ended(): void {
    this.#streams--;
    this.#lastUsed = this.w.deps.clock.now();
    if (this.#streams === 0) this.w.deps.onIdle();
  }

  async follow(
    lastEventId: Parameters<WindowViewOps["follow"]>[0],
    options: Parameters<WindowViewOps["follow"]>[1] = {},
  ): ReturnType<WindowViewOps["follow"]> {
    const { w } = this;
    await w.owned();
    const failed = w.failure();
    if (failed?.reason === "unreadableLog") throw failed.error;
    const { owner, deps } = w;
    const max = deps.maxStreamsPerWindow;
    const counts = deps.userStreams;
    if (this.#streams >= max) throw new StreamsRefused({ reason: "window", limit: max });
    if (!counts.take(owner)) throw new StreamsRefused({ reason: "user", limit: counts.limit });
    this.#opened();
    return followLog(w.log, lastEventId, options.maxBehind ?? MAX_BEHIND, () => {
      counts.give(owner);
      this.#ended();
    });
  }

  events$(fromSeq?: number): ReturnType<WindowViewOps["events$"]> {
    const { w } = this;
    return eventsOf(
      w.log,
      fromSeq,
      () => w.owned(),
      () => this.#opened(),
      () => this.#ended(),
    );
  }

  touch(): void {
    this.#lastUsed = this.w.deps.clock.now();
  }

  lastUsed(): number {
    return this.#lastUsed;
  }

  busy(): boolean {
    const { w } = this;
    const actor = w.conversation();
    return (
      this.#streams > 0 ||
      (!w.closed() && w.failure() === undefined && actor === undefined) ||
      (actor !== undefined && !actor.getSnapshot().matches("idle")) ||
      // On a shared store, a turn another host runs: this host's streams and goodbye follow it.
      w.log.status().running ||
      w.questions() > 0 ||
      w.deps.live.queries(w.clientId).length > 0
    );
  }

  context(): { readonly turn: number; readonly tokensUsed: number } {
    const { log } = this.w;
    const context = this.w.conversation()?.getSnapshot().context;
    return {
      turn: context?.turn ?? log.status().turn,
      tokensUsed: context?.tokensUsed ?? log.usage().total,
    };
  }

  async settled(): Promise<void> {
    await this.w.phases.starting;
    await this.w.log.idle();
  }
}
