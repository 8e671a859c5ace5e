/**
 * A store that refuses an append: the prompt it belonged to settles (a turn
 * that never started is refused with the store's error, one that started ends
 * Failed), the host's onError is told, and the window serves the next prompt.
 */
import { createHost } from "elyra-assistant";
import { AppendConflict, type EventStore } from "elyra-assistant/log";
import { fakeModel, memoryStore } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import { spyApp, type TestUser } from "../fixtures/spyCommands.ts";

const ada: TestUser = { name: "Ada", abilities: ["customers.*"] };
const appOf = () => spyApp();

/** A memory store whose appends are refused while `refusing` says so. */
const refusingStore = () => {
  const inner = memoryStore();
  /** `refusing`: every append is refused; `refuseOnce`: the next one is. */
  const state = { refusing: false, refuseOnce: false };
  const store: EventStore = {
    ...inner,
    append: (stream, events, expectedSeq) => {
      if (state.refusing || state.refuseOnce) {
        state.refuseOnce = false;
        return Promise.reject(
          new AppendConflict({ stream, expectedSeq, actualSeq: expectedSeq + 1 }),
        );
      }
      return inner.append(stream, events, expectedSeq);
    },
  };
  return { store, state, inner };
};

describe("an append the store refuses", () => {
  it("settles the prompt whose turn never started, tells onError, and serves the next prompt", async () => {
    const { store, state, inner } = refusingStore();
    const errors: unknown[] = [];
    const host = createHost(appOf(), {
      model: fakeModel().says("Hi.").says("Hello again."),
      store,
      onError: (error) => errors.push(error),
    });
    const w = host.window("w", { user: ada });
    await w.settled();
    state.refusing = true;
    const first = w.prompt("hello");
    await expect(first).rejects.toBeInstanceOf(AppendConflict);
    expect(errors.some((e) => e instanceof AppendConflict)).toBe(true);
    state.refusing = false;
    const second = await w.prompt("again");
    expect(second._tag).toBe("Answered");
    const tags = (await inner.read("conversation/w")).map((e) => e._tag);
    expect(tags[0]).toBe("TurnStarted");
    expect(tags.filter((t) => t === "TurnStarted")).toHaveLength(1);
    await host.close();
  });

  it("ends a started turn Failed when a later append is refused", async () => {
    const { store, state, inner } = refusingStore();
    const errors: unknown[] = [];
    let appends = 0;
    const counting: EventStore = {
      ...store,
      append: (stream, events, expectedSeq) => {
        appends++;
        // The turn's first event is stored; the next one is refused.
        if (appends === 2) state.refuseOnce = true;
        return store.append(stream, events, expectedSeq);
      },
    };
    const host = createHost(appOf(), {
      model: fakeModel().says("Hi."),
      store: counting,
      onError: (error) => errors.push(error),
    });
    const w = host.window("w", { user: ada });
    await w.settled();
    const ended = w.prompt("hello");
    const end = await Promise.race([
      ended,
      new Promise((resolve) => setTimeout(() => resolve("hung"), 1_000)),
    ]);
    expect(end).not.toBe("hung");
    expect((end as { _tag: string })._tag).toBe("Failed");
    expect(errors.some((e) => e instanceof AppendConflict)).toBe(true);
    const tags = (await inner.read("conversation/w")).map((e) => e._tag);
    expect(tags.at(-1)).toBe("Failed");
    await host.close();
  });

  it("asks again a prompt refused only because the last turn's end was refused before its start", async () => {
    const inner = memoryStore();
    const errors: unknown[] = [];
    let release: (() => void) | undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let answerInFlight: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => {
      answerInFlight = resolve;
    });
    let refusals = 0;
    const store: EventStore = {
      ...inner,
      append: async (stream, events, expectedSeq) => {
        // The first turn's answer is refused, late: the next prompt's start waits behind it.
        if (refusals === 0 && events.some((e) => e._tag === "Answered")) {
          refusals++;
          answerInFlight();
          await held;
          throw new AppendConflict({ stream, expectedSeq, actualSeq: expectedSeq + 1 });
        }
        return inner.append(stream, events, expectedSeq);
      },
    };
    // The second prompt's first answer is lost with its start, never stored nor shown: asked again.
    const model = fakeModel().says("Hi.").says("Hello again.").says("Hello again.");
    const host = createHost(appOf(), { model, store, onError: (error) => errors.push(error) });
    const w = host.window("w", { user: ada });
    await w.settled();
    const first = w.prompt("hello");
    await inFlight;
    const started: number[] = [];
    const second = w.prompt("again", { onStarted: (turn) => started.push(turn) });
    release?.();
    await expect(first).resolves.toMatchObject({ _tag: "Failed", turn: 1 });
    await expect(second).resolves.toMatchObject({ _tag: "Answered", text: "Hello again." });
    expect(started).toEqual([2]);
    expect(model.requests).toHaveLength(3);
    expect(errors.filter((e) => e instanceof AppendConflict)).toHaveLength(1);
    const stored = await inner.read("conversation/w");
    expect(stored.filter((e) => e._tag === "TurnStarted").map((e) => e.turn)).toEqual([1, 2]);
    await host.close();
  });
});
