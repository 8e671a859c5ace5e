/**
 * When streamed text is told to the window: pieces gather for 50 ms, then go
 * as one delta; anything else that happens flushes them first. The machine
 * holds no text and sees no piece but the first of each gathering, so a
 * piece never costs an event: it decides only when a flush is due.
 */
import { emit, setup } from "xstate";

/** How long pieces gather before they are told: 50 ms. */
export const COALESCE_MS = 50;

export type CoalescerEvent =
  /** The first piece of a gathering arrived. */
  | { readonly type: "PIECE" }
  /** Something else is about to be logged, or Stop: tell what waits now. */
  | { readonly type: "FLUSH" };

/** Emitted when the gathered text is due. */
export type CoalescerEmitted = { readonly type: "flush" };

/**
 * `empty → gathering → empty`: a flush after `coalesce` (50 ms) or on `FLUSH`.
 *
 * @example
 * ```ts
 * const actor = createActor(coalescerMachine, { clock });
 * actor.on("flush", () => tell(buffer.take()));
 * actor.start();
 * actor.send({ type: "PIECE" }); // 50 ms later: "flush"
 * ```
 */
export const coalescerMachine = setup({
  types: { events: {} as CoalescerEvent, emitted: {} as CoalescerEmitted },
  delays: { coalesce: COALESCE_MS },
  actions: { flush: emit({ type: "flush" as const }) },
}).createMachine({
  id: "coalescer",
  initial: "empty",
  states: {
    empty: { on: { PIECE: "gathering" } },
    gathering: {
      after: { coalesce: { target: "empty", actions: "flush" } },
      on: { FLUSH: { target: "empty", actions: "flush" } },
    },
  },
});
