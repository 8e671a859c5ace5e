/**
 * Several hosts on one shared store (in one process, on the memory twin of a
 * database's leases): any host serves any window. The host that runs a turn
 * holds the window's lease; a confirmation, a stop, a reset or a selection
 * asked on another host reaches it; a prompt while the turn runs is refused
 * wherever it arrives; the next turn may run anywhere; a holder that dies is
 * taken over once its lease lapses, its turn recorded interrupted once and
 * nothing it asked run.
 */
import { createApp, createHost, type Host } from "elyra-assistant";
import type { LogEvent } from "elyra-assistant/log";
import { fakeModel, memoryStore, simulatedClock } from "elyra-assistant/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";

const ada: TestUser = { name: "Ada", abilities: ["customers.*"] };
const STREAM = "conversation/w";

const cluster = (model: ReturnType<typeof fakeModel>, count = 3) => {
  const clock = simulatedClock(Date.parse("2026-12-01T09:00:00Z"));
  const store = memoryStore({ shared: { clock, leaseMs: 5_000, heartbeatMs: 1_000 } });
  const spies = spyCommands();
  const app = createApp({
    commands: spies.commands,
    userAbilities: (u) => (u as TestUser).abilities,
    assistant: { allow: ["customers.*"], confirm: ["customers.delete"] },
  });
  const hosts: Host[] = Array.from({ length: count }, (_, i) =>
    createHost(app, { model, store, clock, hostId: `h${i}` }),
  );
  /** Every event each host's window shows, as its stream gives them. */
  const seen = hosts.map(() => [] as LogEvent[]);
  const windows = hosts.map((host, i) => {
    const window = host.window("w", { user: ada });
    window.events$().subscribe((event) => seen[i]?.push(event));
    return window;
  });
  const confirmIds = () =>
    (seen[0] ?? []).flatMap((e) => (e._tag === "ConfirmRequested" ? [e.confirmId] : []));
  return { clock, store, spies, hosts, windows, seen, confirmIds };
};

let open: Host[] = [];
afterEach(async () => {
  await Promise.all(open.map((h) => h.close()));
  open = [];
});

describe("hosts sharing a store: one writer per window, any host serves it", () => {
  it("a turn started on one host is confirmed through the others; every host shows the same log; each command ran once", async () => {
    const model = fakeModel()
      .toolCall("customers_delete", { id: 1 }, { text: "Deleting 1." })
      .toolCall("customers_delete", { id: 2 })
      .says("Both deleted.");
    const c = cluster(model);
    open = c.hosts;
    const [a, b, third] = c.windows;
    if (a === undefined || b === undefined || third === undefined) throw new Error("3 hosts");
    const end = a.prompt("delete 1 and 2");
    await vi.waitFor(() => expect(c.confirmIds()).toHaveLength(1));
    expect(c.store.leases.holderOf(STREAM)).toBe("h0");
    // A prompt while the turn runs is refused wherever it arrives, and starts nothing.
    await expect(b.prompt("and 3?")).rejects.toMatchObject({ reason: "turnInProgress" });
    expect(await b.confirm(c.confirmIds()[0] ?? "", true)).toEqual({
      _tag: "Answered",
      answer: "accepted",
    });
    await vi.waitFor(() => expect(c.confirmIds()).toHaveLength(2));
    expect(await third.confirm(c.confirmIds()[1] ?? "", true)).toMatchObject({ _tag: "Answered" });
    expect((await end)._tag).toBe("Answered");
    // Single-use across hosts: the same id again, anywhere, is unknown.
    expect(await b.confirm(c.confirmIds()[0] ?? "", true)).toEqual({ _tag: "UnknownConfirmation" });
    expect(await a.confirm(c.confirmIds()[1] ?? "", true)).toEqual({ _tag: "UnknownConfirmation" });
    expect(c.spies.runs.get("customers_delete")).toBe(2);
    const stored = await c.store.read(STREAM);
    await vi.waitFor(() => {
      for (const events of c.seen) expect(events).toEqual(stored);
    });
    expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i + 1));
    // The turn over, its writer gave the lease back.
    await vi.waitFor(() => expect(c.store.leases.holderOf(STREAM)).toBeUndefined());
  });

  it("the next turn runs on whichever host is asked, numbered after the last", async () => {
    const c = cluster(fakeModel().says("One.").says("Two.").says("Three."));
    open = c.hosts;
    const [a, b, third] = c.windows;
    if (a === undefined || b === undefined || third === undefined) throw new Error("3 hosts");
    expect(await a.prompt("one")).toMatchObject({ _tag: "Answered", turn: 1 });
    expect(await b.prompt("two")).toMatchObject({ _tag: "Answered", turn: 2 });
    await b.reset();
    expect(await third.prompt("three")).toMatchObject({ _tag: "Answered", turn: 3 });
    const stored = await c.store.read(STREAM);
    expect(stored.filter((e) => e._tag === "TurnStarted").map((e) => e.turn)).toEqual([1, 2, 3]);
    expect(stored.filter((e) => e._tag === "Reset")).toHaveLength(1);
    // What host 3 sent the model is the log's history: after the reset, only its own turn.
    await vi.waitFor(() => {
      for (const events of c.seen) expect(events).toEqual(stored);
    });
    expect(third.history().messages).toEqual([
      { role: "user", content: "three" },
      { role: "assistant", content: "Three." },
    ]);
  });

  it("stop, reset and a selection asked on another host reach the holder", async () => {
    // Each turn is stopped at its question: the model is asked once in each.
    const model = fakeModel()
      .toolCall("customers_delete", { id: 1 })
      .toolCall("customers_delete", { id: 2 });
    const c = cluster(model, 2);
    open = c.hosts;
    const [a, b] = c.windows;
    if (a === undefined || b === undefined) throw new Error("2 hosts");
    const first = a.prompt("delete 1");
    await vi.waitFor(() => expect(c.confirmIds()).toHaveLength(1));
    await b.select("customers", [7, 8], { route: "/customers" });
    b.stop();
    expect((await first)._tag).toBe("Stopped");
    const second = a.prompt("delete 2");
    await vi.waitFor(() => expect(c.confirmIds()).toHaveLength(2));
    await b.reset();
    expect((await second)._tag).toBe("Stopped");
    expect(c.spies.runs.get("customers_delete")).toBeUndefined();
    const tags = (await c.store.read(STREAM)).map((e) => e._tag);
    expect(tags.filter((t) => t === "SelectionChanged")).toHaveLength(1);
    // As on one host: the stopped tool step is written after the turn's end.
    expect(tags.slice(-3)).toEqual(["Stopped", "Reset", "ToolFinished"]);
  });

  it("a holder that dies mid-confirmation is taken over when its lease lapses: the turn is recorded interrupted once, the question is dead, the next prompt works", async () => {
    const model = fakeModel().toolCall("customers_delete", { id: 1 }).says("never").says("Hello.");
    const c = cluster(model, 2);
    open = c.hosts;
    const [a, b] = c.windows;
    if (a === undefined || b === undefined) throw new Error("2 hosts");
    void a.prompt("delete 1").catch(() => undefined);
    await vi.waitFor(() => expect(c.confirmIds()).toHaveLength(1));
    const before = await c.store.lastSeq(STREAM);
    // Host 0 is killed: its heartbeat and its messages stop; its lease stays until it lapses.
    c.store.leases.crash("h0");
    open = [c.hosts[1] as Host];
    // Within the lease, the holder is asked, and does not answer: nothing changes.
    const early = b.confirm(c.confirmIds()[0] ?? "", true);
    c.clock.increment(4_000);
    c.clock.increment(10_001);
    expect(await early).toEqual({ _tag: "UnknownConfirmation" });
    const stored = await c.store.read(STREAM);
    const interrupted = stored.filter((e) => e._tag === "Failed");
    expect(interrupted).toHaveLength(1);
    expect(interrupted[0]).toMatchObject({ turn: 1 });
    expect(stored.length).toBeGreaterThan(before);
    expect(c.spies.runs.get("customers_delete")).toBeUndefined();
    expect(c.store.leases.holderOf(STREAM)).toBeUndefined();
    // The next prompt works, on the host that took over.
    expect(await b.prompt("hello")).toMatchObject({ _tag: "Answered", turn: 2 });
    // Host 0's late writes (a zombie) are refused: its lease is gone.
    expect((await c.store.read(STREAM)).filter((e) => e._tag === "Failed")).toHaveLength(1);
  });

  it("the window's owner holds on every host: another user's prompt there is refused and writes nothing", async () => {
    const c = cluster(fakeModel().says("Ada's answer."), 2);
    open = c.hosts;
    const [a] = c.windows;
    expect((await a?.prompt("mine"))?._tag).toBe("Answered");
    const before = await c.store.read(STREAM);
    const bob: TestUser = { name: "Bob", abilities: ["customers.*"] };
    // Bob on a host that had not opened w: the log names Ada.
    const third = createHost(c.hosts[0]?.app as Host["app"], {
      model: fakeModel().says("never"),
      store: c.store,
      clock: c.clock,
      hostId: "h-bob",
    });
    open = [...c.hosts, third];
    await expect(third.window("w", { user: bob }).prompt("show me")).rejects.toMatchObject({
      _tag: "WindowOwnerMismatch",
    });
    expect(await c.store.read(STREAM)).toEqual(before);
    expect(c.store.leases.holderOf(STREAM)).toBeUndefined();
  });

  it("a window on another host is not closed as idle while a turn runs on the holder; its goodbye stops the turn there", async () => {
    const c = cluster(fakeModel().toolCall("customers_delete", { id: 1 }), 2);
    open = c.hosts;
    const [a, b] = c.windows;
    const end = a?.prompt("delete 1");
    await vi.waitFor(() => expect(c.confirmIds()).toHaveLength(1));
    // Host 1 runs no turn itself, but its window's log shows one running: it is busy, not idle.
    expect(b?.running()).toBe(true);
    expect(c.hosts[1]?.openWindows()).toBe(1);
    await c.hosts[1]?.closeWindow("w", { user: ada });
    expect((await end)?._tag).toBe("Stopped");
    expect(c.spies.runs.get("customers_delete")).toBeUndefined();
    expect(c.hosts[1]?.openWindows()).toBe(0);
  });
});
