/**
 * A real window's lifecycle, as the window machine holds it: it opens, takes
 * a turn framed with the system prompt and the tools offered, forgets that
 * framing when the turn ends, takes and gives back its lease on a store
 * several hosts share, recovers after its conversation crashed (a refused
 * append), and closes during a turn. The machine alone is specified in
 * spec/machines/windowMachine.spec.ts; this is the window driving it.
 */
import { createApp, createHost } from "elyra-assistant";
import { AppendConflict, type EventStore } from "elyra-assistant/log";
import { fakeModel, memoryStore, simulatedClock } from "elyra-assistant/testing";
import { describe, expect, it, vi } from "vitest";
import type { OpenWindow } from "../../src/actors/window/deps.ts";
import { ada, closedAfterEach, STREAM } from "../fixtures/closedAfterEach.ts";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";

const closeAfterEach = closedAfterEach();

const appOf = () =>
  createApp({
    commands: spyCommands().commands,
    userAbilities: (u) => (u as TestUser).abilities,
    assistant: { allow: ["customers.*"], confirm: ["customers.delete"] },
  });

const phasesOf = (window: unknown) => (window as OpenWindow).phases;

describe("a window's lifecycle", () => {
  it("opens, runs a turn with its framing in the machine, forgets it at the end, and closes", async () => {
    const host = createHost(appOf(), {
      model: fakeModel().toolCall("customers_delete", { id: 1 }).says("Kept it."),
    });
    closeAfterEach([host]);
    const w = host.window("w", { user: ada });
    const phases = phasesOf(w);
    await w.settled();
    expect(phases.at.value).toEqual({ lifecycle: { serving: "idle" }, lease: "free" });
    expect(phases.at.context.conversation).toBeDefined();

    const asked: string[] = [];
    w.events$().subscribe((e) => {
      if (e._tag === "ConfirmRequested") asked.push(e.confirmId);
    });
    const end = w.prompt({ text: "delete customer 1", route: "/customers/1" });
    await vi.waitFor(() => expect(asked).toHaveLength(1));
    // The turn waits on its question: what it runs with is the machine's.
    expect(phases.at.where).toEqual({ phase: "serving", inTurn: true, lease: "free" });
    const turn = phases.at.context.turn;
    expect(turn?.system).toContain("You are the assistant inside this app");
    expect(turn?.offered.has("customers_delete")).toBe(true);
    expect(turn?.route).toBe("/customers/1");

    await w.confirm(asked[0] ?? "", false);
    expect(await end).toMatchObject({ _tag: "Answered" });
    expect(phases.at.where.inTurn).toBe(false);
    expect(phases.at.context.turn).toBeUndefined();
    expect(phases.at.context.route).toBe("/customers/1");

    await w.close();
    expect(phases.at.value).toEqual({ lifecycle: "closed", lease: "free" });
    expect(phases.at.context.conversation).toBeUndefined();
  });

  it("closes during a turn: the turn ends Stopped and the window is closed", async () => {
    const host = createHost(appOf(), {
      model: fakeModel().toolCall("customers_delete", { id: 1 }),
    });
    closeAfterEach([host]);
    const w = host.window("w", { user: ada });
    const phases = phasesOf(w);
    let asked = 0;
    w.events$().subscribe((e) => {
      if (e._tag === "ConfirmRequested") asked++;
    });
    const end = w.prompt("delete customer 1");
    await vi.waitFor(() => expect(asked).toBe(1));
    expect(phases.at.where.inTurn).toBe(true);
    const closing = w.close();
    expect(phases.at.where.phase).toBe("closing");
    await closing;
    expect(phases.at.where.phase).toBe("closed");
    expect(await end).toMatchObject({ _tag: "Stopped" });
  });

  it("recovers after a refused append: a new conversation, one generation on", async () => {
    const inner = memoryStore();
    let refuse = false;
    const store: EventStore = {
      ...inner,
      append: (stream, events, expectedSeq) =>
        refuse
          ? Promise.reject(new AppendConflict({ stream, expectedSeq, actualSeq: expectedSeq + 1 }))
          : inner.append(stream, events, expectedSeq),
    };
    const host = createHost(appOf(), {
      model: fakeModel().says("Hi.").says("Hello again."),
      store,
      onError: () => {},
    });
    closeAfterEach([host]);
    const w = host.window("w", { user: ada });
    const phases = phasesOf(w);
    await w.settled();
    const first = phases.at.context.conversation;
    refuse = true;
    await expect(w.prompt("hello")).rejects.toBeInstanceOf(AppendConflict);
    refuse = false;
    await vi.waitFor(() => expect(phases.at.where.phase).toBe("serving"));
    expect(phases.at.context.generation).toBe(1);
    expect(phases.at.context.conversation).not.toBe(first);
    expect(phases.at.context.fault).toBeInstanceOf(AppendConflict);
    expect(await w.prompt("again")).toMatchObject({ _tag: "Answered" });
  });

  it("on a shared store, holds the lease for its turn and gives it back when idle", async () => {
    const clock = simulatedClock(Date.parse("2026-12-02T09:00:00Z"));
    const shared = memoryStore({ shared: { clock, leaseMs: 5_000, heartbeatMs: 1_000 } });
    const host = createHost(appOf(), {
      model: fakeModel().toolCall("customers_delete", { id: 1 }).says("Kept it."),
      store: shared,
      clock,
      hostId: "h0",
    });
    closeAfterEach([host]);
    const w = host.window("w", { user: ada });
    const phases = phasesOf(w);
    const asked: string[] = [];
    w.events$().subscribe((e) => {
      if (e._tag === "ConfirmRequested") asked.push(e.confirmId);
    });
    const end = w.prompt("delete customer 1");
    await vi.waitFor(() => expect(asked).toHaveLength(1));
    expect(phases.at.where).toEqual({ phase: "serving", inTurn: true, lease: "held" });
    expect(shared.leases.holderOf(STREAM)).toBe("h0");
    await w.confirm(asked[0] ?? "", false);
    await end;
    await vi.waitFor(() => expect(phases.at.where.lease).toBe("free"));
    expect(shared.leases.holderOf(STREAM)).toBeUndefined();
  });
});
