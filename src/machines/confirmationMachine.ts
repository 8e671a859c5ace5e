/**
 * One confirmation: pending until the user answers, or until 5 minutes pass.
 * Its id is minted by the call path (128 random bits) and bound there to the
 * tool and the argument digest; the machine is what waits.
 */
import { assign, setup } from "xstate";
import { CONFIRM_TIMEOUT_MS, type ConfirmAnswer } from "../runtime/calls/confirmer.ts";

/** What a confirmation is of: its id, the tool, and the digest of the arguments the user is shown. */
export interface ConfirmationInput {
  readonly confirmId: string;
  readonly tool: string;
  readonly digest: string;
}

interface ConfirmationContext extends ConfirmationInput {
  readonly answer: ConfirmAnswer | null;
}

/** The user's answer to a confirmation. */
export type ConfirmationEvent = { readonly type: "ANSWER"; readonly accept: boolean };

/**
 * `pending → accepted | declined | timedOut`. The timeout is the injectable
 * delay `timeout` (5 minutes). A final state takes no further answer, so an
 * id is redeemable once.
 *
 * @example
 * ```ts
 * const actor = createActor(confirmationMachine, { input, clock });
 * actor.start();
 * actor.send({ type: "ANSWER", accept: true });
 * actor.getSnapshot().output; // "accepted"
 * ```
 */
export const confirmationMachine = setup({
  types: {
    input: {} as ConfirmationInput,
    context: {} as ConfirmationContext,
    events: {} as ConfirmationEvent,
    output: {} as ConfirmAnswer,
  },
  delays: { timeout: CONFIRM_TIMEOUT_MS },
  actions: {
    /** The answer the confirmation settles with, which is its output. */
    recordAnswer: assign((_, { answer }: { readonly answer: ConfirmAnswer }) => ({ answer })),
  },
  guards: { accepts: ({ event }) => event.accept },
}).createMachine({
  id: "confirmation",
  context: ({ input }) => ({ ...input, answer: null }),
  initial: "pending",
  states: {
    pending: {
      after: { timeout: "timedOut" },
      on: {
        ANSWER: [{ guard: "accepts", target: "accepted" }, { target: "declined" }],
      },
    },
    accepted: { type: "final", entry: { type: "recordAnswer", params: { answer: "accepted" } } },
    declined: { type: "final", entry: { type: "recordAnswer", params: { answer: "declined" } } },
    timedOut: { type: "final", entry: { type: "recordAnswer", params: { answer: "timedOut" } } },
  },
  output: ({ context }) => context.answer as ConfirmAnswer,
});
