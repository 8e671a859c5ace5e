/**
 * The prompts waiting for their turn's end: settled by the log, refused when
 * the window can no longer tell, and the refusal made only when one waits.
 */
import { memoryStore, simulatedClock } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import { TurnNotStarted, TurnWaiters } from "../../src/actors/log/turnWaiters.ts";
import { windowLog } from "../../src/actors/log/windowLog.ts";

const logOf = () => windowLog(memoryStore(), "conversation/w1", simulatedClock(0), () => undefined);

describe("TurnWaiters", () => {
  it("a prompt settles with its turn's end as the log records it", async () => {
    const log = logOf();
    const turns = new TurnWaiters(log);
    const started: number[] = [];
    const end = turns.wait(1, (turn) => started.push(turn));
    await log.append({ _tag: "TurnStarted", turn: 1, text: "hi", route: null, note: null });
    await log.append({ _tag: "Answered", turn: 1, text: "hello" });
    await expect(end).resolves.toMatchObject({ _tag: "Answered", turn: 1 });
    expect(started).toEqual([1]);
    expect(turns.any()).toBe(false);
  });

  it("refuses only the prompts after `beyondTurn`, with the error its factory makes, and makes none when nobody waits", async () => {
    const turns = new TurnWaiters(logOf());
    let made = 0;
    const make = () => {
      made++;
      return new Error("gone");
    };
    turns.refuse(make);
    expect(made).toBe(0);
    const second = turns.wait(2);
    const third = turns.wait(3);
    turns.refuse(make, 2);
    await expect(third).rejects.toThrow("gone");
    expect(made).toBe(1);
    expect(turns.any()).toBe(true);
    turns.refuse(() => new Error("closed"));
    await expect(second).rejects.toThrow("closed");
    expect(turns.any()).toBe(false);
  });

  it("marks a refusal as not started only for the turns `askAgain` names", async () => {
    const turns = new TurnWaiters(logOf());
    const gone = new Error("gone");
    const second = turns.wait(2);
    const third = turns.wait(3);
    turns.refuse(
      () => gone,
      1,
      (turn) => turn === 3,
    );
    await expect(second).rejects.toBe(gone);
    const refused = await third.catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TurnNotStarted);
    expect((refused as TurnNotStarted).error).toBe(gone);
  });
});
