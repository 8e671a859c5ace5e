/**
 * A window's lifecycle as the window holds it: the window machine's state
 * and context, moved by the machine's own `transition`. One definition and
 * one inert actor scope serve every window, and the state values are shared
 * (there are a handful), so an idle window holds its context and two
 * references, not a snapshot of its own.
 */
import { type AnyActorScope, createActor, initialTransition, type StateValue } from "xstate";
import {
  type WindowContext,
  type WindowEvent,
  windowMachine,
} from "../../machines/windowMachine.ts";

/** The lifecycle region's phases. */
export type WindowPhase = "opening" | "serving" | "recovering" | "givenUp" | "closing" | "closed";

/** What a state value says, worked out once for each state the machine can be in. */
export interface WindowWhere {
  readonly phase: WindowPhase;
  /** In `serving.inTurn`: a prompt of this window runs. */
  readonly inTurn: boolean;
  readonly lease: "free" | "held" | "lost";
}

/** A window's lifecycle: the machine's state value, what it says, and the context. */
export interface WindowLifecycle {
  readonly value: StateValue;
  readonly where: WindowWhere;
  readonly context: WindowContext;
}

const self = createActor(windowMachine);
/** The machine assigns only (no action runs an effect), so a scope that does nothing serves all. */
const scope: AnyActorScope = {
  self,
  id: "",
  sessionId: "",
  system: self.system,
  defer: () => {},
  logger: () => {},
  stopChild: () => {},
  emit: () => {},
  actionExecutor: () => {},
};

const shared = new Map<string, { readonly value: StateValue; readonly where: WindowWhere }>();
const intern = (value: StateValue) => {
  const key = JSON.stringify(value);
  let known = shared.get(key);
  if (known === undefined) {
    const { lifecycle, lease } = value as {
      readonly lifecycle: string | Readonly<Record<string, string>>;
      readonly lease: WindowWhere["lease"];
    };
    const phase = (typeof lifecycle === "string" ? lifecycle : "serving") as WindowPhase;
    const inTurn = typeof lifecycle !== "string" && lifecycle.serving === "inTurn";
    known = { value, where: { phase, inTurn, lease } };
    shared.set(key, known);
  }
  return known;
};

const [initial] = initialTransition(windowMachine);

/**
 * A lifecycle of a shared state value. Written out rather than spread: V8 gives each object
 * spread from an interned one a hidden class of its own (about 250 bytes a window).
 */
const lifecycleOf = (value: StateValue, context: WindowContext): WindowLifecycle => {
  const known = intern(value);
  return { value: known.value, where: known.where, context };
};

/** A window as it opens: its log not read yet, no conversation. */
export const OPENING: WindowLifecycle = lifecycleOf(initial.value, initial.context);

/**
 * The lifecycle after `event`: the machine's transition from `at` (an event
 * the state takes no note of leaves it as it was).
 *
 * @example
 * ```ts
 * let at = OPENING;
 * at = nextLifecycle(at, { type: "STARTED", conversation });
 * at.where.phase; // "serving"
 * ```
 */
export const nextLifecycle = (at: WindowLifecycle, event: WindowEvent): WindowLifecycle => {
  const snapshot = windowMachine.resolveState({ value: at.value, context: at.context });
  const next = windowMachine.transition(snapshot, event, scope);
  if (next.value === snapshot.value && next.context === at.context) return at;
  return lifecycleOf(next.value, next.context);
};

/** Whether the window writes nothing more: it is closing or closed. */
export const ending = (at: WindowLifecycle): boolean =>
  at.where.phase === "closing" || at.where.phase === "closed";

/** Whether the window waits for a conversation: it opens, or its conversation is rebuilt. */
export const waiting = (at: WindowLifecycle): boolean =>
  at.where.phase === "opening" || at.where.phase === "recovering";

/**
 * One window's lifecycle, and the promise prompts wait on while it waits for
 * a conversation. Its methods are shared (a class), so an idle window holds
 * its fields only.
 *
 * @example
 * ```ts
 * const phases = new WindowPhases();
 * phases.send({ type: "STARTED", conversation }); // `phases.starting` settles
 * phases.send({ type: "CRASHED" }); // a new `phases.starting`, until the next STARTED
 * ```
 */
export class WindowPhases {
  /** The lifecycle now. */
  at: WindowLifecycle = OPENING;
  /** Settles when the conversation starts, or the window is given up or closed. */
  starting: Promise<void>;
  /** Settles when the window first stops waiting: its log is read (or could not be). */
  readonly ready: Promise<void>;
  #wake: () => void = () => {};

  constructor() {
    this.starting = this.#waitAnew();
    this.ready = this.starting;
  }

  #waitAnew(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
  }

  /** Moves the lifecycle by `event`; prompts wait anew while a crashed conversation is rebuilt. */
  send(event: WindowEvent): void {
    const before = this.at;
    if (event.type === "CRASHED" && before.where.phase === "serving")
      this.starting = this.#waitAnew();
    this.at = nextLifecycle(before, event);
    if (waiting(before) && !waiting(this.at)) this.#wake();
  }
}
