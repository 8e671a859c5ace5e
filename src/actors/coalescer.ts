/**
 * The coalescer actor: a buffer of streamed text and the machine that says
 * when to tell it. Pieces are appended to the buffer; only the first piece of
 * a gathering and each flush reach the machine.
 */
import { type Actor, createActor } from "xstate";
import { coalescerMachine } from "../machines/coalescer.ts";
import type { Clock } from "../runtime/clock.ts";

export interface Coalescer {
  /** A piece of a step's text; a piece of another step first tells the last step's. */
  readonly push: (step: number, piece: string) => void;
  /** Tells what waits, now: before any other event, and on Stop. */
  readonly flush: () => void;
  /** Whether text waits. */
  readonly waiting: () => boolean;
  readonly stop: () => void;
}

/** A coalescer telling `tell(step, text)` at most once per 50 ms of gathering. */
export const coalescer = (clock: Clock, tell: (step: number, text: string) => void): Coalescer => {
  let step = 0;
  let text = "";
  let actor: Actor<typeof coalescerMachine> | undefined;
  const take = () => {
    if (text === "") return;
    const told = text;
    text = "";
    tell(step, told);
  };
  const machine = () => {
    if (actor === undefined) {
      actor = createActor(coalescerMachine, { clock });
      actor.on("flush", take);
      actor.start();
    }
    return actor;
  };
  return {
    push: (pieceStep, piece) => {
      if (piece === "") return;
      if (pieceStep !== step && text !== "") machine().send({ type: "FLUSH" });
      step = pieceStep;
      const first = text === "";
      text += piece;
      if (first) machine().send({ type: "PIECE" });
    },
    flush: () => {
      if (text !== "") machine().send({ type: "FLUSH" });
    },
    waiting: () => text !== "",
    stop: () => {
      actor?.stop();
      actor = undefined;
      text = "";
    },
  };
};
