/**
 * The supervisor alone, on a simulated clock: it opens a window by recovering
 * its log and spawning its conversation, rebuilds a conversation that fails,
 * gives a window up past the restart intensity, forgives old crashes, and
 * keeps windows apart. The conversations are the real machine, failed
 * through its `FAULT` event; the recovery is a stub the test answers.
 */

import {
  type ConversationInput,
  conversationId,
  type Recovered,
  recoverFrom,
  type SupervisorEmitted,
  supervisorMachine,
} from "elyra-assistant/machines";
import { simulatedClock } from "elyra-assistant/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AnyActorRef, createActor } from "xstate";
import { runs } from "../properties/runs.ts";

const conversationInput: ConversationInput = { maxSteps: 8, tokenBudget: 200_000 };

/** A supervisor whose recoveries resolve at once (or fail, for windows in `unreadable`). */
const supervise = (options: { maxRestarts?: number; restartWindowMs?: number } = {}) => {
  const clock = simulatedClock(0);
  const recovered: string[] = [];
  const unreadable = new Set<string>();
  const told: SupervisorEmitted[] = [];
  const machine = supervisorMachine.provide({
    actors: {
      recover: recoverFrom(async (window): Promise<Recovered> => {
        recovered.push(window);
        if (unreadable.has(window)) throw new Error(`cannot read ${window}`);
        return { window, conversation: conversationInput };
      }),
    },
  });
  const inspected: AnyActorRef[] = [];
  const actor = createActor(machine, {
    input: {
      maxRestarts: options.maxRestarts ?? 3,
      restartWindowMs: options.restartWindowMs ?? 60_000,
    },
    clock,
    inspect: (event) => {
      if (event.type === "@xstate.actor") inspected.push(event.actorRef as AnyActorRef);
    },
  });
  actor.on("*", (event) => told.push(event));
  actor.start();
  const conversation = (window: string) => actor.system.get(conversationId(window));
  /** Fails the window's conversation, as a store refusing an append does. */
  const crash = (window: string, error = new Error(`boom in ${window}`)) =>
    conversation(window)?.send({ type: "FAULT", error });
  const tell = (type: SupervisorEmitted["type"], window: string) =>
    told.filter((e) => e.type === type && e.window === window);
  return { actor, clock, recovered, unreadable, told, tell, conversation, crash, inspected };
};

/** Lets the recoveries' promises settle. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("the supervisor machine", () => {
  it("opens a window: recovers its log, then spawns its conversation as its own child", async () => {
    const s = supervise();
    s.actor.send({ type: "OPEN", window: "w" });
    expect(s.conversation("w")).toBeUndefined();
    await settle();
    expect(s.recovered).toEqual(["w"]);
    expect(s.tell("started", "w")).toHaveLength(1);
    const conversation = s.conversation("w");
    expect(conversation?.getSnapshot().value).toBe("idle");
    expect(conversation?._parent).toBe(s.actor);
    expect(s.actor.getSnapshot().children.w).toBe(conversation);
    // The inspector sees the conversation as the supervisor's child.
    expect(s.inspected.find((ref) => ref === conversation)?._parent?.sessionId).toBe(
      s.actor.sessionId,
    );
  });

  it("a crash is rebuilt: the log recovered again and a fresh conversation spawned", async () => {
    const s = supervise();
    s.actor.send({ type: "OPEN", window: "w" });
    await settle();
    const first = s.conversation("w");
    s.crash("w");
    expect(s.tell("crashed", "w")).toHaveLength(1);
    expect(s.conversation("w")).toBeUndefined();
    await settle();
    expect(s.recovered).toEqual(["w", "w"]);
    const second = s.conversation("w");
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect(first?.getSnapshot().status).toBe("error");
    expect(s.actor.getSnapshot().context.crashes).toEqual({
      w: { count: 1, error: new Error("boom in w") },
    });
    expect(s.tell("failed", "w")).toEqual([]);
  });

  it("4 crashes within 60 s escalate: the log is recovered once more, and the window given up", async () => {
    const s = supervise({ maxRestarts: 3, restartWindowMs: 60_000 });
    s.actor.send({ type: "OPEN", window: "w" });
    await settle();
    for (let i = 1; i <= 3; i++) {
      s.crash("w", new Error(`crash ${i}`));
      await settle();
      s.clock.increment(10_000);
      expect(s.tell("started", "w")).toHaveLength(i + 1);
    }
    s.crash("w", new Error("crash 4"));
    await settle();
    expect(s.recovered).toHaveLength(5); // the open, three rebuilds, and the last recovery
    expect(s.tell("started", "w")).toHaveLength(4);
    expect(s.tell("failed", "w")).toEqual([
      { type: "failed", window: "w", error: new Error("crash 4"), reason: "tooManyCrashes" },
    ]);
    expect(s.conversation("w")).toBeUndefined();
    expect(s.actor.getSnapshot().context.crashes).toEqual({});
    expect(s.actor.getSnapshot().status).toBe("active");
  });

  it("crashes spread out over time are forgiven", async () => {
    const s = supervise({ maxRestarts: 3, restartWindowMs: 60_000 });
    s.actor.send({ type: "OPEN", window: "w" });
    await settle();
    for (let i = 0; i < 6; i++) {
      s.crash("w");
      await settle();
      s.clock.increment(30_000);
    }
    expect(s.tell("failed", "w")).toEqual([]);
    expect(s.tell("started", "w")).toHaveLength(7);
    // At most the crashes of the last 60 s count: the one 30 s ago.
    expect(s.actor.getSnapshot().context.crashes.w?.count).toBe(1);
    s.clock.increment(30_000);
    expect(s.actor.getSnapshot().context.crashes).toEqual({});
  });

  it("a log that cannot be read gives the window up; opening it again reads again", async () => {
    const s = supervise();
    s.unreadable.add("w");
    s.actor.send({ type: "OPEN", window: "w" });
    await settle();
    expect(s.tell("failed", "w")).toEqual([
      { type: "failed", window: "w", error: new Error("cannot read w"), reason: "unreadableLog" },
    ]);
    expect(s.conversation("w")).toBeUndefined();
    expect(s.actor.getSnapshot().children).toEqual({});
    s.unreadable.delete("w");
    s.actor.send({ type: "OPEN", window: "w" });
    await settle();
    expect(s.tell("started", "w")).toHaveLength(1);
  });

  it("close stops the conversation and forgets the window's crashes", async () => {
    const s = supervise();
    s.actor.send({ type: "OPEN", window: "w" });
    await settle();
    s.crash("w");
    await settle();
    const running = s.conversation("w");
    s.actor.send({ type: "CLOSE", window: "w" });
    expect(running?.getSnapshot().status).toBe("stopped");
    expect(s.conversation("w")).toBeUndefined();
    expect(s.actor.getSnapshot().children).toEqual({});
    expect(s.actor.getSnapshot().context.crashes).toEqual({});
  });

  it("closing a window while its log is recovered starts nothing", async () => {
    const s = supervise();
    s.actor.send({ type: "OPEN", window: "w" });
    s.actor.send({ type: "CLOSE", window: "w" });
    await settle();
    expect(s.tell("started", "w")).toEqual([]);
    expect(s.actor.getSnapshot().children).toEqual({});
  });

  it("windows are apart: one window's crashes count for it alone", async () => {
    const s = supervise({ maxRestarts: 1 });
    s.actor.send({ type: "OPEN", window: "a" });
    s.actor.send({ type: "OPEN", window: "b" });
    await settle();
    s.crash("a");
    await settle();
    s.crash("b");
    await settle();
    s.crash("a");
    await settle();
    expect(s.tell("failed", "a")).toHaveLength(1);
    expect(s.tell("failed", "b")).toEqual([]);
    expect(s.conversation("b")?.getSnapshot().status).toBe("active");
  });

  it("property: a window is given up exactly when more than maxRestarts crashes fall within restartWindowMs", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 1, max: 100 }),
        fc.array(fc.integer({ min: 0, max: 150 }), { minLength: 1, maxLength: 12 }),
        async (maxRestarts, restartWindowMs, gaps) => {
          const s = supervise({ maxRestarts, restartWindowMs });
          s.actor.send({ type: "OPEN", window: "w" });
          await settle();
          const times: number[] = [];
          let expected = -1;
          for (const [i, gap] of gaps.entries()) {
            s.clock.increment(gap);
            const now = s.clock.now();
            times.push(now);
            // The reference: a crash counts until restartWindowMs have passed since it.
            const counted = times.filter((t) => t > now - restartWindowMs).length;
            s.crash("w");
            await settle();
            if (counted > maxRestarts) {
              expected = i;
              break;
            }
          }
          const gaveUp = s.tell("failed", "w").length === 1;
          expect(gaveUp).toBe(expected >= 0);
          expect(s.tell("started", "w")).toHaveLength(1 + (expected >= 0 ? expected : gaps.length));
          expect(s.conversation("w") === undefined).toBe(gaveUp);
        },
      ),
      { numRuns: runs(1_000) },
    );
  });
});
