/**
 * A stop (or a reset) that reaches the window's writer late stops the turn
 * it was asked about, never a turn begun after it. Host 1 asks host 0 (the
 * holder) to stop turn 1 while host 0's messages are held (its LISTEN
 * connection dropped, or host 1 was paused before it sent); turn 1 ends
 * meanwhile and turn 2 starts. Told the stop then, host 0 leaves turn 2
 * running (A); told it once it no longer writes the window, it says so, and
 * host 1 (the writer of turn 2 by then) asks again of itself and leaves
 * turn 2 running too (B); a reset told so late resets nothing (C). Turn 2's
 * question is answered, from any host. (Found by the multi-host property,
 * spec/properties/multiHost.spec.ts: the stop, asked while nothing or an
 * earlier turn ran, stopped the end's turn at its question, which was then
 * answered `UnknownConfirmation`; a reset so, or the turn ended `Stopped`.)
 */
import { createApp, createHost } from "elyra-assistant";
import type { EventStore, LogEvent } from "elyra-assistant/log";
import { fakeModel, memoryStore, simulatedClock } from "elyra-assistant/testing";
import { describe, expect, it, vi } from "vitest";
import { ada, closedAfterEach, STREAM } from "../fixtures/closedAfterEach.ts";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";

const closeAfterEach = closedAfterEach();

/** Two hosts on one shared memory store; what host 0 sends is kept. */
const twoHosts = () => {
  const clock = simulatedClock(Date.parse("2026-12-02T09:00:00Z"));
  const shared = memoryStore({ shared: { clock, leaseMs: 5_000, heartbeatMs: 1_000 } });
  const sent: unknown[] = [];
  const a: EventStore = {
    ...shared,
    leases: {
      ...shared.leases,
      send: (to, message) => {
        sent.push(message);
        return shared.leases.send(to, message);
      },
    },
  };
  // Each turn deletes one customer, declined: the model then answers in words.
  const model = fakeModel()
    .toolCall("customers_delete", { id: 1 })
    .says("Kept 1.")
    .toolCall("customers_delete", { id: 2 })
    .says("Kept 2.");
  const spies = spyCommands();
  const app = createApp({
    commands: spies.commands,
    userAbilities: (u) => (u as TestUser).abilities,
    assistant: { allow: ["customers.*"], confirm: ["customers.delete"] },
  });
  const errors: unknown[] = [];
  const hosts = [a, shared].map((store, i) =>
    createHost(app, {
      model,
      store,
      clock,
      hostId: `h${i}`,
      onError: (error) => void errors.push(error),
    }),
  );
  closeAfterEach(hosts);
  const seen = hosts.map(() => [] as LogEvent[]);
  const windows = hosts.map((host, i) => {
    const window = host.window("w", { user: ada });
    window.events$().subscribe((event) => seen[i]?.push(event));
    return window;
  });
  /** The questions host `i`'s window has read. */
  const asked = (i: number) =>
    (seen[i] ?? []).flatMap((e) => (e._tag === "ConfirmRequested" ? [e.confirmId] : []));
  const [w0, w1] = windows;
  if (w0 === undefined || w1 === undefined) throw new Error("2 hosts");
  return { shared, sent, spies, errors, w0, w1, asked };
};

/** Lets what is queued run: the memory store and its messages settle on later ticks. */
const flush = async () => {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setTimeout(resolve, 0));
};
const replies = (sent: unknown[]) =>
  sent.filter((m) => (m as { _tag?: unknown })._tag === "Reply").length;

describe("a stop or a reset told the window's writer late", () => {
  it("(A) does not stop the turn the holder started after it", async () => {
    const { shared, sent, spies, errors, w0, w1, asked } = twoHosts();
    const first = w0.prompt("delete 1");
    await vi.waitFor(() => expect(asked(1)).toHaveLength(1));
    expect(shared.leases.holderOf(STREAM)).toBe("h0");
    // Host 0 hears nothing for now: host 1's stop of turn 1 waits for it.
    shared.leases.pause("h0");
    w1.stop();
    await flush();
    expect(await w0.confirm(asked(0)[0] ?? "", false)).toEqual({
      _tag: "Answered",
      answer: "declined",
    });
    expect(await first).toMatchObject({ _tag: "Answered", turn: 1 });
    const second = w0.prompt("delete 2");
    await vi.waitFor(() => expect(asked(0)).toHaveLength(2));
    const before = replies(sent);
    shared.leases.resume("h0");
    // Host 0 answers the stop (done: nothing of turn 1 runs), and turn 2 still asks.
    await vi.waitFor(() => expect(replies(sent)).toBe(before + 1));
    await flush();
    expect(await w1.confirm(asked(0)[1] ?? "", false)).toEqual({
      _tag: "Answered",
      answer: "declined",
    });
    expect(await second).toMatchObject({ _tag: "Answered", turn: 2 });
    const tags = (await shared.read(STREAM)).map((e) => e._tag);
    expect(tags).not.toContain("Stopped");
    expect(spies.runs.get("customers_delete")).toBeUndefined();
    expect(errors).toEqual([]);
  });

  it("(B) asked again on the host that writes the window now, does not stop its turn", async () => {
    const { shared, sent, spies, errors, w0, w1, asked } = twoHosts();
    const first = w0.prompt("delete 1");
    await vi.waitFor(() => expect(asked(1)).toHaveLength(1));
    shared.leases.pause("h0");
    w1.stop();
    await flush();
    expect(await w0.confirm(asked(0)[0] ?? "", false)).toMatchObject({ _tag: "Answered" });
    expect(await first).toMatchObject({ _tag: "Answered", turn: 1 });
    await vi.waitFor(() => expect(shared.leases.holderOf(STREAM)).toBeUndefined());
    // Turn 2 runs on host 1, which takes the lease given back.
    const second = w1.prompt("delete 2");
    await vi.waitFor(() => expect(asked(1)).toHaveLength(2));
    expect(shared.leases.holderOf(STREAM)).toBe("h1");
    const before = replies(sent);
    shared.leases.resume("h0");
    // Host 0 no longer writes the window: host 1's stop is asked again, of host 1 itself.
    await vi.waitFor(() => expect(replies(sent)).toBe(before + 1));
    expect(sent.at(-1)).toMatchObject({ result: { _tag: "NotHolder" } });
    await flush();
    expect(await w0.confirm(asked(1)[1] ?? "", false)).toEqual({
      _tag: "Answered",
      answer: "declined",
    });
    expect(await second).toMatchObject({ _tag: "Answered", turn: 2 });
    const tags = (await shared.read(STREAM)).map((e) => e._tag);
    expect(tags).not.toContain("Stopped");
    expect(spies.runs.get("customers_delete")).toBeUndefined();
    expect(errors).toEqual([]);
  });

  it("(C) a reset told late resets nothing of a turn begun after it", async () => {
    const { shared, sent, spies, errors, w0, w1, asked } = twoHosts();
    const first = w0.prompt("delete 1");
    await vi.waitFor(() => expect(asked(1)).toHaveLength(1));
    shared.leases.pause("h0");
    const reset = w1.reset();
    await flush();
    expect(await w0.confirm(asked(0)[0] ?? "", false)).toMatchObject({ _tag: "Answered" });
    expect(await first).toMatchObject({ _tag: "Answered", turn: 1 });
    const second = w0.prompt("delete 2");
    await vi.waitFor(() => expect(asked(0)).toHaveLength(2));
    const before = replies(sent);
    shared.leases.resume("h0");
    await reset;
    expect(replies(sent)).toBe(before + 1);
    await flush();
    expect(await w1.confirm(asked(0)[1] ?? "", false)).toEqual({
      _tag: "Answered",
      answer: "declined",
    });
    expect(await second).toMatchObject({ _tag: "Answered", turn: 2 });
    const tags = (await shared.read(STREAM)).map((e) => e._tag);
    expect(tags).not.toContain("Stopped");
    expect(tags).not.toContain("Reset");
    expect(spies.runs.get("customers_delete")).toBeUndefined();
    expect(errors).toEqual([]);
  });
});
