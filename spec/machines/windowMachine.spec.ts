/**
 * A window's lifecycle alone, on a simulated clock: it opens, serves turns,
 * recovers after a crash, loses its lease mid-turn, closes idle or during a
 * turn, and is given up. The machine is the definition every window shares,
 * run here as an actor and as the pure reducer the window uses (`transition`),
 * which a property checks agree over random sequences of events, and that
 * `closed` is final, `givenUp` is left only by closing, and a `PROMPT` is
 * taken only in `serving.idle`.
 */
import { simulatedClock } from "elyra-assistant/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createActor, initialTransition, transition } from "xstate";
import { conversationMachine } from "../../src/machines/conversationMachine.ts";
import type { GiveUpReason } from "../../src/machines/supervisorMachine.ts";
import {
  type WindowConversation,
  type WindowEvent,
  type WindowSnapshot,
  windowMachine,
} from "../../src/machines/windowMachine.ts";
import { runs } from "../properties/runs.ts";

/** A conversation as the supervisor spawns one (never started: the window machine only holds it). */
const conversation = (): WindowConversation =>
  createActor(conversationMachine, { input: { maxSteps: 8, tokenBudget: 200_000 } });

const prompt = (route: string | null = null): WindowEvent => ({
  type: "PROMPT",
  system: "You are the CRM's assistant.",
  offered: new Set(["customers_index"]),
  route,
});

/** A window's machine as an actor on a simulated clock. */
const open = () => {
  const clock = simulatedClock(0);
  const actor = createActor(windowMachine, { clock }).start();
  const at = () => actor.getSnapshot();
  return { actor, clock, at, send: (event: WindowEvent) => actor.send(event) };
};

describe("the window machine", () => {
  it("opens, serves a turn, and closes idle", () => {
    const w = open();
    expect(w.at().value).toEqual({ lifecycle: "opening", lease: "free" });
    const first = conversation();
    w.send({ type: "STARTED", conversation: first });
    expect(w.at().matches({ lifecycle: { serving: "idle" } })).toBe(true);
    expect(w.at().context.conversation).toBe(first);

    w.send(prompt("/customers"));
    expect(w.at().matches({ lifecycle: { serving: "inTurn" } })).toBe(true);
    expect(w.at().context.turn?.system).toBe("You are the CRM's assistant.");
    expect([...(w.at().context.turn?.offered ?? [])]).toEqual(["customers_index"]);
    expect(w.at().context.route).toBe("/customers");
    // One turn at a time.
    w.send(prompt("/invoices"));
    expect(w.at().context.route).toBe("/customers");

    w.send({ type: "TURN_ENDED" });
    expect(w.at().matches({ lifecycle: { serving: "idle" } })).toBe(true);
    // An idle window keeps nothing of its last turn but where it was prompted.
    expect(w.at().context.turn).toBeUndefined();
    expect(w.at().context.route).toBe("/customers");

    w.send({ type: "CLOSE" });
    expect(w.at().value).toEqual({ lifecycle: "closing", lease: "free" });
    expect(w.at().context.conversation).toBeUndefined();
    w.send({ type: "CLOSED" });
    expect(w.at().value).toEqual({ lifecycle: "closed", lease: "free" });
    for (const event of [{ type: "STARTED", conversation: first }, prompt(), { type: "CLOSE" }])
      w.send(event as WindowEvent);
    expect(w.at().value).toEqual({ lifecycle: "closed", lease: "free" });
    expect(w.clock.now()).toBe(0);
  });

  it("recovers after a crash: the turn and the dead conversation are dropped, the route kept", () => {
    const w = open();
    w.send({ type: "STARTED", conversation: conversation() });
    w.send({ type: "SELECTED", route: "/invoices" });
    w.send(prompt("/customers"));
    w.send({ type: "CRASHED" });
    expect(w.at().value).toEqual({ lifecycle: "recovering", lease: "free" });
    expect(w.at().context).toMatchObject({
      conversation: undefined,
      turn: undefined,
      route: "/customers",
      generation: 1,
    });
    // No prompt while the conversation is rebuilt; the store's refusal is kept for the ones waiting.
    w.send(prompt());
    w.send({ type: "FAULTED", error: new Error("refused"), refusedStart: 2 });
    expect(w.at().value).toEqual({ lifecycle: "recovering", lease: "free" });
    expect(w.at().context.refusedStart).toBe(2);
    const rebuilt = conversation();
    w.send({ type: "STARTED", conversation: rebuilt });
    expect(w.at().matches({ lifecycle: { serving: "idle" } })).toBe(true);
    expect(w.at().context.conversation).toBe(rebuilt);
    expect(w.at().context.fault).toBeInstanceOf(Error);
    // A later refusal that names no start keeps the one that did.
    w.send({ type: "FAULTED", error: "again" });
    expect(w.at().context).toMatchObject({ fault: "again", refusedStart: 2 });
  });

  it("loses its lease mid-turn: the turn runs until its conversation is rebuilt, and the lease is taken again", () => {
    const w = open();
    w.send({ type: "LEASE_TAKEN" });
    w.send({ type: "STARTED", conversation: conversation() });
    w.send(prompt());
    expect(w.at().value).toEqual({ lifecycle: { serving: "inTurn" }, lease: "held" });
    w.send({ type: "LEASE_LOST" });
    expect(w.at().value).toEqual({ lifecycle: { serving: "inTurn" }, lease: "lost" });
    // The window fails the conversation with the loss; the supervisor rebuilds it.
    w.send({ type: "FAULTED", error: "lease lost" });
    w.send({ type: "CRASHED" });
    expect(w.at().value).toEqual({ lifecycle: "recovering", lease: "lost" });
    w.send({ type: "STARTED", conversation: conversation() });
    w.send({ type: "LEASE_TAKEN" });
    expect(w.at().value).toEqual({ lifecycle: { serving: "idle" }, lease: "held" });
    w.send({ type: "LEASE_RELEASED" });
    expect(w.at().value).toEqual({ lifecycle: { serving: "idle" }, lease: "free" });
  });

  it("closes during a turn: the turn is dropped, and its end (logged Stopped) changes nothing", () => {
    const w = open();
    w.send({ type: "STARTED", conversation: conversation() });
    w.send(prompt());
    w.send({ type: "CLOSE" });
    expect(w.at().value).toEqual({ lifecycle: "closing", lease: "free" });
    expect(w.at().context.turn).toBeUndefined();
    w.send({ type: "TURN_ENDED" });
    w.send({ type: "CRASHED" });
    expect(w.at().value).toEqual({ lifecycle: "closing", lease: "free" });
    w.send({ type: "CLOSED" });
    expect(w.at().matches({ lifecycle: "closed" })).toBe(true);
  });

  it("is given up: it takes no prompt and no conversation, and closes with its failure kept", () => {
    const w = open();
    w.send({ type: "STARTED", conversation: conversation() });
    w.send({ type: "CRASHED" });
    const error = new Error("too many crashes");
    w.send({ type: "GAVE_UP", error, reason: "tooManyCrashes" });
    expect(w.at().value).toEqual({ lifecycle: "givenUp", lease: "free" });
    w.send({ type: "STARTED", conversation: conversation() });
    w.send(prompt());
    expect(w.at().value).toEqual({ lifecycle: "givenUp", lease: "free" });
    expect(w.at().context.conversation).toBeUndefined();
    w.send({ type: "CLOSE" });
    w.send({ type: "CLOSED" });
    expect(w.at().value).toEqual({ lifecycle: "closed", lease: "free" });
    expect(w.at().context.failure).toEqual({ error, reason: "tooManyCrashes" });
  });

  it("is given up while it opens, when its log cannot be read", () => {
    const w = open();
    const error = new Error("store down");
    w.send({ type: "GAVE_UP", error, reason: "unreadableLog" });
    expect(w.at().value).toEqual({ lifecycle: "givenUp", lease: "free" });
    expect(w.at().context.failure?.reason).toBe("unreadableLog");
  });
});

const lifecycleOf = (snapshot: WindowSnapshot): string =>
  JSON.stringify((snapshot.value as { lifecycle: unknown }).lifecycle);

const SERVING_IDLE = JSON.stringify({ serving: "idle" });
const CLOSED = JSON.stringify("closed");
const GIVEN_UP = JSON.stringify("givenUp");

const anEvent: fc.Arbitrary<WindowEvent> = fc.oneof(
  fc
    .constant(undefined)
    .map((): WindowEvent => ({ type: "STARTED", conversation: conversation() })),
  fc.constant<WindowEvent>({ type: "CRASHED" }),
  fc
    .constantFrom<GiveUpReason>("tooManyCrashes", "unreadableLog")
    .map((reason): WindowEvent => ({ type: "GAVE_UP", error: new Error(reason), reason })),
  fc.option(fc.constantFrom("/customers", "/invoices")).map((route) => prompt(route)),
  fc.constant<WindowEvent>({ type: "TURN_ENDED" }),
  fc.option(fc.constant("/deals")).map((route): WindowEvent => ({ type: "SELECTED", route })),
  fc
    .option(fc.nat(5), { nil: undefined })
    .map(
      (refusedStart): WindowEvent =>
        refusedStart === undefined
          ? { type: "FAULTED", error: "refused" }
          : { type: "FAULTED", error: "refused", refusedStart },
    ),
  fc.constantFrom<WindowEvent>(
    { type: "LEASE_TAKEN" },
    { type: "LEASE_RELEASED" },
    { type: "LEASE_LOST" },
    { type: "CLOSE" },
    { type: "CLOSED" },
  ),
);

describe("the window machine, over random events", () => {
  it("closed is final, givenUp is left only by closing, a PROMPT is taken only when serving idle, and the pure reducer is the actor", () => {
    fc.assert(
      fc.property(fc.array(anEvent, { maxLength: 40 }), (events) => {
        const actor = createActor(windowMachine, { clock: simulatedClock(0) }).start();
        let [pure] = initialTransition(windowMachine);
        for (const event of events) {
          const before = actor.getSnapshot();
          actor.send(event);
          const after = actor.getSnapshot();
          [pure] = transition(windowMachine, pure, event);
          expect(pure.value).toEqual(after.value);
          expect(pure.context).toEqual(after.context);

          const from = lifecycleOf(before);
          const to = lifecycleOf(after);
          if (from === CLOSED) expect(to).toBe(CLOSED);
          if (from === GIVEN_UP && to !== GIVEN_UP) {
            expect(event.type).toBe("CLOSE");
            expect(to).toBe(JSON.stringify("closing"));
          }
          if (event.type === "PROMPT") {
            if (from === SERVING_IDLE) {
              expect(after.matches({ lifecycle: { serving: "inTurn" } })).toBe(true);
              expect(after.context.turn?.route).toBe(event.route);
            } else expect(after).toBe(before);
          }
          // What the window reads: a turn only in a turn, a conversation only while serving.
          expect(after.context.turn !== undefined).toBe(
            after.matches({ lifecycle: { serving: "inTurn" } }),
          );
          expect(after.context.conversation !== undefined).toBe(
            after.matches({ lifecycle: "serving" }),
          );
          // A failure, once told, is kept; a crash is counted once.
          if (before.context.failure !== undefined)
            expect(after.context.failure).toBe(before.context.failure);
          expect(after.context.generation - before.context.generation).toBe(
            event.type === "CRASHED" && before.matches({ lifecycle: "serving" }) ? 1 : 0,
          );
        }
        actor.stop();
      }),
      { numRuns: runs(1_000) },
    );
  });
});
