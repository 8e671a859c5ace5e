/**
 * A window's confirmations: its broker, made at the first confirmation (most
 * windows never ask one, and an idle window should cost little), each
 * request and each answer logged in the turn that asked it.
 */
import type { AnyActorRef } from "xstate";
import type { UnstampedEvent } from "../../runtime/log/events.ts";
import type { Clock } from "../../runtime/ports/clock.ts";
import type { InspectObserver } from "../support/inspection.ts";
import { type ConfirmationBroker, confirmationBroker } from "./confirmationBroker.ts";

export interface WindowConfirmations {
  /** The broker, made now if there is none yet. */
  readonly broker: () => ConfirmationBroker;
  /** The broker if one was made. */
  readonly made: () => ConfirmationBroker | undefined;
  /**
   * Resolves once the answer to `callId`'s question is stored, and rejects
   * when the store refused it (`LeaseLost` on a host that lost the window):
   * a confirmed command runs only after it. Rejects when no answer was
   * recorded for the call.
   */
  readonly stored: (callId: string) => Promise<unknown>;
}

export const windowConfirmations = (deps: {
  readonly clock: Clock;
  /** The conversation each confirmation is a child of. */
  readonly parent: () => AnyActorRef | undefined;
  readonly inspect?: InspectObserver;
  readonly record: (event: UnstampedEvent) => unknown;
  readonly turn: () => number;
}): WindowConfirmations => {
  let broker: ConfirmationBroker | undefined;
  /**
   * The append of the latest accepted answer, by its call, until its command asks for it (once).
   * One question waits at a time in a window, so one is kept; none until a question is answered.
   */
  let accepted: { readonly callId: string; readonly append: Promise<unknown> } | undefined;
  return {
    made: () => broker,
    stored: (callId) => {
      const kept = accepted?.callId === callId ? accepted.append : undefined;
      if (kept !== undefined) accepted = undefined;
      return kept ?? Promise.reject(new Error(`no answer was recorded for call ${callId}`));
    },
    broker: () => {
      if (broker !== undefined) return broker;
      broker = confirmationBroker({
        clock: deps.clock,
        parent: deps.parent,
        ...(deps.inspect === undefined ? {} : { inspect: deps.inspect }),
      });
      broker.requests$.subscribe((request) => {
        void deps.record({
          _tag: "ConfirmRequested",
          turn: deps.turn(),
          confirmId: request.confirmId,
          callId: request.callId,
          tool: request.tool,
          description: request.description,
          ...(request.title === undefined ? {} : { title: request.title }),
          ...(request.summary === undefined ? {} : { summary: request.summary }),
          args: request.args,
          ...(request.label === undefined ? {} : { label: request.label }),
          ...(request.destructive ? { destructive: true } : {}),
          action: request.action,
          ...(request.editable.length === 0 ? {} : { editable: request.editable }),
        });
      });
      broker.settled$.subscribe(({ request, answer, edited, args }) => {
        // What the user changed the arguments to is logged with the answer: the dialog, read
        // again from the log, shows what was approved rather than what was asked.
        const append = Promise.resolve(
          deps.record({
            _tag: "ConfirmAnswered",
            turn: deps.turn(),
            confirmId: request.confirmId,
            answer,
            ...(edited ? { edited: true } : {}),
            ...(edited && args !== undefined ? { args } : {}),
          }),
        );
        // Only an acceptance runs something; the command awaits this one (and handles its refusal).
        // One question waits at a time in a window: only the latest answer is kept.
        if (answer === "accepted") {
          append.catch(() => undefined);
          accepted = { callId: request.callId, append };
        }
      });
      return broker;
    },
  };
};
