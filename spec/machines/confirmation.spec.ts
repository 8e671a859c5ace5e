import { simulatedClock } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import { createActor } from "xstate";
import { confirmationMachine } from "../../src/machines/confirmationMachine.ts";

const start = () => {
  const clock = simulatedClock(0);
  const actor = createActor(confirmationMachine, {
    input: { confirmId: "c1", tool: "customers_delete", digest: "d" },
    clock,
  });
  actor.start();
  return { clock, actor };
};

describe("the confirmation machine", () => {
  it("is pending until answered", () => {
    const { actor } = start();
    expect(actor.getSnapshot().value).toBe("pending");
    actor.send({ type: "ANSWER", accept: true });
    expect(actor.getSnapshot()).toMatchObject({
      value: "accepted",
      status: "done",
      output: "accepted",
    });
  });

  it("declines on a no", () => {
    const { actor } = start();
    actor.send({ type: "ANSWER", accept: false });
    expect(actor.getSnapshot()).toMatchObject({ value: "declined", output: "declined" });
  });

  it("times out after exactly 5 minutes of simulated time, without waiting", () => {
    const { actor, clock } = start();
    clock.increment(5 * 60 * 1000 - 1);
    expect(actor.getSnapshot().value).toBe("pending");
    clock.increment(1);
    expect(actor.getSnapshot()).toMatchObject({
      value: "timedOut",
      status: "done",
      output: "timedOut",
    });
  });

  it("takes one answer only: a final state ignores the next", () => {
    const { actor, clock } = start();
    actor.send({ type: "ANSWER", accept: false });
    actor.send({ type: "ANSWER", accept: true });
    clock.increment(10 * 60 * 1000);
    expect(actor.getSnapshot().output).toBe("declined");
  });

  it("its timeout is an injectable delay", () => {
    const clock = simulatedClock(0);
    const actor = createActor(confirmationMachine.provide({ delays: { timeout: 1000 } }), {
      input: { confirmId: "c1", tool: "t", digest: "d" },
      clock,
    });
    actor.start();
    clock.increment(1000);
    expect(actor.getSnapshot().output).toBe("timedOut");
  });
});
