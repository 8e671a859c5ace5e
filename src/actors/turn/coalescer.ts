/**
 * The coalescer actor: a buffer of streamed text, a plain timer per
 * gathering, and the machine that decides how to gather. A step's first
 * piece is told at once; later pieces are appended to the buffer and told
 * 50 ms after the last delta. Only the start of a turn's text, each forced
 * flush and the turn's end reach the machine. The text is a step's answer, or in code mode
 * the code of a script as Claude writes it: one buffer for both, so the code
 * is gathered as the text is.
 */
import { type Actor, type AnyActorRef, createActor } from "xstate";
import { coalescerMachine } from "../../machines/coalescerMachine.ts";
import type { Clock } from "../../runtime/ports/clock.ts";
import type { InspectObserver } from "../support/inspection.ts";
import { stopActor } from "../support/stopActor.ts";

/** Who is told what gathered: the step, the text, and the script whose code it is (none for an answer's text). */
export type CoalescerTell = (step: number, text: string, toolId?: string) => void;

/**
 * Streamed text of one window: a step's first piece told at once, then at
 * most one delta per 50 ms, each 50 ms after the one before. A class, not a
 * bag of closures: every window has one, and idle windows should cost little.
 *
 * The machine ({@link coalescerMachine}) opens gathering when text starts,
 * says how long a gathering lasts, and says to flush; this class keeps the
 * text and times each gathering with one `clock.setTimeout`, so that 1 000
 * pieces a second cost string appends and 20 timers, not 40 XState events.
 */
export class Coalescer {
  readonly #clock: Clock;
  readonly #tell: CoalescerTell;
  #step = 0;
  /** The script whose code gathers; undefined while an answer's text does. */
  #toolId: string | undefined;
  #text = "";
  /** Made at the first piece, kept while text streams, released when the turn ends. */
  #actor: Actor<typeof coalescerMachine> | undefined;
  /** How long a gathering lasts, as the machine said when it opened gathering; 0 while quiet. */
  #everyMs = 0;
  /** The running gathering's timer. */
  #timer: unknown;
  /** When the last delta of this step (or script) was told; -Infinity before its first. */
  #toldAt = Number.NEGATIVE_INFINITY;
  readonly #due = () => {
    this.#timer = undefined;
    this.#take();
  };

  readonly #inspect: InspectObserver | undefined;
  #parent: (() => AnyActorRef | undefined) | undefined;

  constructor(clock: Clock, tell: CoalescerTell, inspect?: InspectObserver) {
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

  /**
   * A piece of a step's text, or of the code of script `toolId`; a piece of
   * another step or script (or of text after code) first tells what waits.
   */
  push(step: number, piece: string, toolId?: string): void {
    if (piece === "") return;
    if (step !== this.#step || toolId !== this.#toolId) {
      if (this.#text !== "") this.flush();
      this.#step = step;
      this.#toolId = toolId;
      this.#toldAt = Number.NEGATIVE_INFINITY;
    }
    const first = this.#text === "";
    this.#text += piece;
    if (this.#everyMs === 0) this.#machine().send({ type: "TEXT" });
    const since = this.#clock.now() - this.#toldAt;
    // A step's first piece, or a piece 50 ms after the last delta, is told at once; so is what
    // gathered when its timer is held up (the event loop busy reading), not after the reads.
    if (since >= this.#everyMs) this.#take();
    else if (first) this.#timer = this.#clock.setTimeout(this.#due, this.#everyMs - since);
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
    if (this.#actor !== undefined) {
      this.#actor.send({ type: "QUIET" });
      stopActor(this.#actor);
    }
    this.#actor = undefined;
    this.#toldAt = Number.NEGATIVE_INFINITY;
  }

  stop(): void {
    this.#toldAt = Number.NEGATIVE_INFINITY;
    this.#rest();
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
      actor.on("gather", ({ everyMs }) => {
        this.#everyMs = everyMs;
      });
      actor.on("flush", () => this.#take());
      actor.on("rest", () => this.#rest());
      actor.start();
      this.#actor = actor;
    }
    return this.#actor;
  }

  /** Gathering is over: its timer goes, and the next text opens it anew. */
  #rest(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#everyMs = 0;
  }

  #take(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#text === "") return;
    const told = this.#text;
    this.#text = "";
    this.#toldAt = this.#clock.now();
    this.#tell(this.#step, told, this.#toolId);
  }
}

/** A coalescer telling `tell(step, text, toolId?)`: a step's first piece at once, then at most once per 50 ms. */
export const coalescer = (
  clock: Clock,
  tell: CoalescerTell,
  inspect?: InspectObserver,
): Coalescer => new Coalescer(clock, tell, inspect);
