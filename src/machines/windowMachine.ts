/**
 * A window's lifecycle: opening (its log read, its conversation spawned),
 * serving (idle, or in a turn), recovering after its conversation crashed,
 * given up, closing, closed; and, on a store several hosts share, whether
 * this host holds the window's lease. The machine is pure and holds what a
 * turn needs (its system prompt, the tools offered, its route), which the
 * `PROMPT` event brings: the window and its model step and tool runner read
 * them from its snapshot. One definition serves every window; the window
 * keeps its own snapshot and moves it with XState's `transition`.
 */
import type { Context } from "@opentelemetry/api";
import { type ActorRefFrom, assign, type SnapshotFrom, setup } from "xstate";
import type { conversationMachine } from "./conversationMachine.ts";
import type { GiveUpReason } from "./supervisorMachine.ts";

/** A window's conversation, as the supervisor spawned it. */
export type WindowConversation = ActorRefFrom<typeof conversationMachine>;

/** What a turn runs with, framed when it was prompted. */
export interface WindowTurn {
  /** The system prompt of every model step of the turn. */
  readonly system: string;
  /** The tools offered this turn: the call path refuses any other. */
  readonly offered: ReadonlySet<string>;
  /** The route the prompt was made on. */
  readonly route: string | null;
  /** The turn's span context: its model steps and command calls are its children. */
  readonly trace?: Context;
}

/** Why the window was given up, as the supervisor said. */
export interface WindowFailure {
  readonly error: unknown;
  readonly reason: GiveUpReason;
}

/** What the window machine holds of one window, besides its state. */
export interface WindowContext {
  /** The running conversation: set while serving, none while it is recovered or rebuilt. */
  readonly conversation: WindowConversation | undefined;
  /** The running turn: set in `serving.inTurn`. */
  readonly turn: WindowTurn | undefined;
  /** The route of the last prompt or selection: where a selection is made by default. */
  readonly route: string | null;
  /** Set when the window was given up; kept once it closes. */
  readonly failure: WindowFailure | undefined;
  /** The store's last refusal: a prompt it kept from starting is refused with it. */
  readonly fault: unknown;
  /** The turn whose `TurnStarted` the store refused, if it did. */
  readonly refusedStart: number | undefined;
  /** Counts the conversations that crashed: a tool step of a dead one writes nothing. */
  readonly generation: number;
}

/** What moves a window's lifecycle: the supervisor's word, a turn's start and end, the store's and the lease's news, closing. */
export type WindowEvent =
  /** The supervisor spawned the window's conversation. */
  | { readonly type: "STARTED"; readonly conversation: WindowConversation }
  /** The conversation failed; the supervisor is rebuilding it. */
  | { readonly type: "CRASHED" }
  /** The supervisor gave the window up. */
  | ({ readonly type: "GAVE_UP" } & WindowFailure)
  /** A prompt was accepted: its turn starts with what it was framed with. */
  | ({ readonly type: "PROMPT" } & WindowTurn)
  /** The turn's end (`Answered`, `Stopped`, `Failed`) was logged. */
  | { readonly type: "TURN_ENDED" }
  /** A selection was made on `route`. */
  | { readonly type: "SELECTED"; readonly route: string | null }
  /** The store refused an append (and, with it, turn `refusedStart`'s start). */
  | { readonly type: "FAULTED"; readonly error: unknown; readonly refusedStart?: number }
  /** This host took the window's lease. */
  | { readonly type: "LEASE_TAKEN" }
  /** This host gave the lease back. */
  | { readonly type: "LEASE_RELEASED" }
  /** Another host took the window over: the lease this host remembered is gone. */
  | { readonly type: "LEASE_LOST" }
  /** The window is closing: it writes nothing more. */
  | { readonly type: "CLOSE" }
  /** The window wrote its last event and let go of its log. */
  | { readonly type: "CLOSED" };

const initialContext: WindowContext = {
  conversation: undefined,
  turn: undefined,
  route: null,
  failure: undefined,
  fault: undefined,
  refusedStart: undefined,
  generation: 0,
};

/** The window machine's types and named actions, set up once. */
const windowSetup = setup({
  types: { context: {} as WindowContext, events: {} as WindowEvent },
  actions: {
    bindConversation: assign({
      conversation: (_, params: { readonly conversation: WindowConversation }) =>
        params.conversation,
    }),
    dropConversation: assign({
      conversation: undefined,
      turn: undefined,
      generation: ({ context }) => context.generation + 1,
    }),
    rememberFailure: assign({
      conversation: undefined,
      turn: undefined,
      failure: (_, params: WindowFailure) => ({ error: params.error, reason: params.reason }),
    }),
    startTurn: assign({
      turn: (_, params: WindowTurn) => params,
      route: (_, params: WindowTurn) => params.route,
    }),
    forgetTurn: assign({ turn: undefined }),
    rememberRoute: assign({
      route: (_, params: { readonly route: string | null }) => params.route,
    }),
    rememberFault: assign({
      fault: (_, params: { readonly error: unknown; readonly refusedStart?: number }) =>
        params.error,
      refusedStart: ({ context }, params: { readonly refusedStart?: number }) =>
        params.refusedStart ?? context.refusedStart,
    }),
    letGo: assign({ conversation: undefined, turn: undefined }),
  },
});

/** Opening and recovering wait alike for a conversation: one set of handlers serves both. */
const starting = windowSetup.createStateConfig({
  on: {
    STARTED: {
      target: "#window.lifecycle.serving",
      actions: { type: "bindConversation", params: ({ event }) => event },
    },
    GAVE_UP: {
      target: "#window.lifecycle.givenUp",
      actions: { type: "rememberFailure", params: ({ event }) => event },
    },
    FAULTED: { actions: { type: "rememberFault", params: ({ event }) => event } },
    CLOSE: "#window.lifecycle.closing",
  },
}).on;

/**
 * Two regions. `lifecycle`: `opening → serving.{idle ⇄ inTurn}`, `serving →
 * recovering → serving` at each crash, `givenUp` when the supervisor gives
 * the window up, and `closing → closed` (final) from any of them. A `PROMPT`
 * is taken only in `serving.idle`. `lease`: `free → held → free` as this host
 * takes and gives back the window's lease, `lost` when another host took it
 * over (a store without leases stays `free`).
 *
 * @example
 * ```ts
 * import { createActor, initialTransition, transition } from "xstate";
 * import { conversationMachine, windowMachine } from "elyra-assistant/machines";
 *
 * const conversation = createActor(conversationMachine, {
 *   input: { maxSteps: 8, tokenBudget: 200_000 },
 * });
 * let [window] = initialTransition(windowMachine);
 * [window] = transition(windowMachine, window, { type: "STARTED", conversation });
 * [window] = transition(windowMachine, window, {
 *   type: "PROMPT",
 *   system: "You are the CRM's assistant.",
 *   offered: new Set(["customers_index"]),
 *   route: "/customers",
 * });
 * window.matches({ lifecycle: { serving: "inTurn" } }); // true
 * ```
 */
export const windowMachine = windowSetup.createMachine({
  id: "window",
  context: initialContext,
  type: "parallel",
  states: {
    lifecycle: {
      initial: "opening",
      states: {
        opening: { on: starting },
        serving: {
          initial: "idle",
          on: {
            CRASHED: { target: "recovering", actions: "dropConversation" },
            GAVE_UP: {
              target: "givenUp",
              actions: { type: "rememberFailure", params: ({ event }) => event },
            },
            SELECTED: { actions: { type: "rememberRoute", params: ({ event }) => event } },
            FAULTED: { actions: { type: "rememberFault", params: ({ event }) => event } },
            CLOSE: { target: "closing", actions: "letGo" },
          },
          states: {
            idle: {
              entry: "forgetTurn",
              on: {
                PROMPT: {
                  target: "inTurn",
                  actions: { type: "startTurn", params: ({ event }) => event },
                },
              },
            },
            inTurn: { on: { TURN_ENDED: "idle" } },
          },
        },
        // Its conversation is rebuilt: as when it opens.
        recovering: { on: starting },
        givenUp: { on: { CLOSE: "closing" } },
        closing: { on: { CLOSED: "closed" } },
        closed: { type: "final" },
      },
    },
    lease: {
      initial: "free",
      states: {
        free: { on: { LEASE_TAKEN: "held", LEASE_LOST: "lost" } },
        held: { on: { LEASE_RELEASED: "free", LEASE_LOST: "lost" } },
        lost: { on: { LEASE_TAKEN: "held" } },
      },
    },
  },
});

/** A window's lifecycle as its snapshot holds it. */
export type WindowSnapshot = SnapshotFrom<typeof windowMachine>;
