/**
 * Stopping an actor its owner made: a root actor with `stop()`; a child
 * (made with `parent`, or invoked by a conversation that has failed) with the
 * stop event its parent's `stopChild` would queue, since XState refuses
 * `stop()` on an actor that has a parent.
 */
import type { AnyActorRef } from "xstate";

/** XState's own stop event: the actor stops its children, then itself, and tells no parent. */
const STOP = { type: "xstate.stop" } as const;

/** Stops `actor`, whether it is a root or a child; one that has ended already is left as it is. */
export const stopActor = (actor: AnyActorRef): void => {
  if (actor.getSnapshot().status !== "active") return;
  if (actor._parent === undefined) actor.stop();
  else actor.send(STOP);
};
