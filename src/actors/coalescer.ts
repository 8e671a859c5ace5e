/**
 * The coalescer actor: a buffer of streamed text and the machine that says
 * when to tell it. Pieces are appended to the buffer; only the first piece of
 * a gathering and each flush reach the machine.
 */
import { type Actor, type AnyActorRef, createActor } from "xstate";
import { coalescerMachine } from "../machines/coalescerMachine.ts";
import type { Clock } from "../runtime/ports/clock.ts";
import type { InspectObserver } from "./inspection.ts";
import { stopActor } from "./stopActor.ts";

/**
 * Streamed text of one window, told at most once per 50 ms of gathering. A
 * class, not a bag of closures: every window has one, and idle windows should
 * cost little.
 */
export class Coalescer {
  readonly #clock: Clock;
  readonly #tell: (step: number, text: string) => void;
  #step = 0;
  #text = "";
  /** Made at the first piece, kept while text streams, released when the turn ends. */
  #actor: Actor<typeof coalescerMachine> | undefined;

  readonly #inspect: InspectObserver | undefined;
  #parent: (() => AnyActorRef | undefined) | undefined;

  constructor(clock: Clock, tell: (step: number, text: string) => void, inspect?: InspectObserver) {
    this.#clock = clock;
    this.#tell = tell;
    this.#inspect = inspect;
  }

  /**
   * Makes each machine a child of `parent()` when that names an actor (a
   * window's conversation): in its system, seen by its inspector.
   *
   * @internal
   */
  childOf(parent: () => AnyActorRef | undefined): this {
    this.#parent = parent;
    return this;
  }

  /** A piece of a step's text; a piece of another step first tells the last step's. */
  push(step: number, piece: string): void {
    if (piece === "") return;
    if (step !== this.#step && this.#text !== "") this.#machine().send({ type: "FLUSH" });
    this.#step = step;
    const first = this.#text === "";
    this.#text += piece;
    if (first) this.#machine().send({ type: "PIECE" });
  }

  /** Tells what waits, now: before any other event, and on Stop. */
  flush(): void {
    if (this.#text !== "") this.#machine().send({ type: "FLUSH" });
  }

  /** Whether text waits. */
  waiting(): boolean {
    return this.#text !== "";
  }

  /** Tells what waits and lets the machine go: between turns a window holds no actor. */
  release(): void {
    this.flush();
    if (this.#actor !== undefined) stopActor(this.#actor);
    this.#actor = undefined;
  }

  stop(): void {
    if (this.#actor !== undefined) stopActor(this.#actor);
    this.#actor = undefined;
    this.#text = "";
  }

  #machine(): Actor<typeof coalescerMachine> {
    if (this.#actor === undefined) {
      // A child of the conversation streaming, when there is one: in its system, seen by its inspector.
      const parent = this.#parent?.();
      const actor = createActor(coalescerMachine, {
        // One name for every coalescer, as for confirmations: event names stay a fixed few.
        id: "coalescer",
        clock: this.#clock,
        ...(parent === undefined ? {} : { parent }),
        ...(this.#inspect === undefined ? {} : { inspect: this.#inspect }),
      });
      actor.on("flush", () => this.#take());
      actor.start();
      this.#actor = actor;
    }
    return this.#actor;
  }

  #take(): void {
    if (this.#text === "") return;
    const told = this.#text;
    this.#text = "";
    this.#tell(this.#step, told);
  }
}

/** A coalescer telling `tell(step, text)` at most once per 50 ms of gathering. */
export const coalescer = (
  clock: Clock,
  tell: (step: number, text: string) => void,
  inspect?: InspectObserver,
): Coalescer => new Coalescer(clock, tell, inspect);
