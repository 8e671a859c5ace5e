/**
 * When streamed text is told to the window. A step's first piece is told at
 * once; while text streams, later pieces gather and go as one delta 50 ms
 * after the last; anything else that happens flushes them first. The machine decides the policy (when
 * gathering opens and closes, how long a gathering lasts, that another event
 * flushes); the window's `Coalescer` keeps the text and times each gathering
 * with a plain timer of the host's clock, so neither a piece nor a gathering
 * costs an XState event: only the start of a turn's text, each forced flush,
 * and its end do.
 */
import { emit, setup } from "xstate";

/**
 * How long pieces gather before they are told: 50 ms.
 *
 * @example
 * ```ts
 * setTimeout(() => tell(buffer.take()), COALESCE_MS); // one delta per 50 ms of text
 * ```
 */
export const COALESCE_MS = 50;

/** What the window tells the coalescer: text began, flush now, or the text is over. */
export type CoalescerEvent =
  /** Text began to stream (the first piece since the coalescer was quiet). */
  | { readonly type: "TEXT" }
  /** Something else is about to be logged, or Stop: tell what waits now. */
  | { readonly type: "FLUSH" }
  /** The turn's text is over: tell what waits and stop gathering. */
  | { readonly type: "QUIET" };

/** Emitted to the coalescer: how to gather, and when to tell. */
export type CoalescerEmitted =
  /** From now on, tell each run of pieces `everyMs` after its first piece. */
  | { readonly type: "gather"; readonly everyMs: number }
  /** Tell what waits now. */
  | { readonly type: "flush" }
  /** Gathering is over: no timer is left running. */
  | { readonly type: "rest" };

/**
 * `quiet → streaming → quiet`: `TEXT` opens gathering (`gather`, every
 * `coalesce` = 50 ms); in `streaming` a `FLUSH` tells what waits at once;
 * `QUIET` tells what waits and ends gathering (`rest`).
 *
 * @example
 * ```ts
 * import { createActor } from "xstate";
 *
 * let gatherMs = 0;
 * const actor = createActor(coalescerMachine);
 * actor.on("gather", ({ everyMs }) => (gatherMs = everyMs));
 * actor.on("flush", () => tell(buffer.take()));
 * actor.start();
 * actor.send({ type: "TEXT" }); // gatherMs = 50: the coalescer times each gathering
 * actor.send({ type: "FLUSH" }); // "flush": what waits is told now
 * ```
 */
export const coalescerMachine = setup({
  types: { events: {} as CoalescerEvent, emitted: {} as CoalescerEmitted },
  actions: {
    openGathering: emit({ type: "gather" as const, everyMs: COALESCE_MS }),
    flush: emit({ type: "flush" as const }),
    closeGathering: emit({ type: "rest" as const }),
  },
}).createMachine({
  id: "coalescer",
  initial: "quiet",
  states: {
    quiet: { on: { TEXT: { target: "streaming", actions: "openGathering" } } },
    streaming: {
      on: {
        FLUSH: { actions: "flush" },
        QUIET: { target: "quiet", actions: ["flush", "closeGathering"] },
      },
    },
  },
});
