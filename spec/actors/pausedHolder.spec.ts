/**
 * A holder paused past its lease (SIGSTOP, a long pause, a partition) and
 * then continued never acts for a turn the log says is over. Host 0 asks to
 * confirm a delete and is paused; host 1 takes the window over and records
 * the turn interrupted; host 0 goes on and the user's Accept reaches it. The
 * delete must not run: a command runs only after a fenced append, by the
 * holder now, stored just before it (the answer, `ConfirmAnswered`). Host 0
 * learns it lost the window from the store, not from a refused append of
 * its own, so its next prompt is not refused as a turn in progress.
 */
import { createApp, createHost, type Host } from "elyra-assistant";
import { type EventStore, LeaseLost, type LogEvent, type StoreChange } from "elyra-assistant/log";
import { fakeModel, memoryStore, simulatedClock } from "elyra-assistant/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";

const ada: TestUser = { name: "Ada", abilities: ["customers.*"] };
const STREAM = "conversation/w";

/**
 * The store as host 0 sees it: each append takes a round trip, and while
 * `held` the change feed's news waits (a stopped process reads no NOTIFY),
 * told on `letGo`.
 */
const heldFeed = (store: EventStore) => {
  let held: StoreChange[] | undefined;
  const listeners = new Set<(change: StoreChange) => void>();
  store.changes?.((change) => {
    if (held !== undefined) held.push(change);
    else for (const listener of listeners) listener(change);
  });
  const seen: EventStore = {
    ...store,
    // A database's round trip: an append is stored a little later, as on PostgreSQL.
    append: async (...args) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return store.append(...args);
    },
    changes: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return {
    store: seen,
    hold: () => {
      held = [];
    },
    letGo: () => {
      const waiting = held ?? [];
      held = undefined;
      for (const change of waiting) for (const listener of listeners) listener(change);
    },
  };
};

const twoHosts = (model: ReturnType<typeof fakeModel>) => {
  const clock = simulatedClock(Date.parse("2026-12-01T09:00:00Z"));
  const shared = memoryStore({ shared: { clock, leaseMs: 5_000, heartbeatMs: 1_000 } });
  const spies = spyCommands();
  const app = createApp({
    commands: spies.commands,
    userAbilities: (u) => (u as TestUser).abilities,
    assistant: { allow: ["customers.*"], confirm: ["customers.delete"] },
  });
  const paused = heldFeed(shared);
  const hosts: Host[] = [
    createHost(app, { model, store: paused.store, clock, hostId: "h0" }),
    createHost(app, { model, store: shared, clock, hostId: "h1" }),
  ];
  const [a, b] = hosts.map((host) => host.window("w", { user: ada }));
  if (a === undefined || b === undefined) throw new Error("2 hosts");
  const confirmIds = async () =>
    (await shared.read(STREAM)).flatMap((e) =>
      e._tag === "ConfirmRequested" ? [e.confirmId] : [],
    );
  /** Host 0 stops: no heartbeat, no messages, no news of the log. */
  const pause = () => {
    shared.leases.pause("h0");
    paused.hold();
  };
  /** Host 0 goes on; `feedFirst` says whether it reads the log's news before anything else. */
  const resume = (feedFirst: boolean) => {
    shared.leases.resume("h0");
    if (feedFirst) paused.letGo();
    return paused.letGo;
  };
  return { clock, shared, spies, hosts, a, b, confirmIds, pause, resume };
};

let open: Host[] = [];
afterEach(async () => {
  await Promise.all(open.map((h) => h.close()));
  open = [];
});

/** Host 0 asks to confirm `delete 1`, is paused, and host 1 takes the window over with a turn of its own. */
const takenOverWhilePaused = async (seen?: LogEvent[]) => {
  const model = fakeModel()
    .toolCall("customers_delete", { id: 1 })
    .says("Taken over.")
    .says("Hello again.");
  const c = twoHosts(model);
  open = c.hosts;
  // A reader on host 0 from the start: a page following the window there.
  c.a.events$().subscribe((event) => void seen?.push(event));
  void c.a.prompt("delete 1").catch(() => undefined);
  await vi.waitFor(async () => expect(await c.confirmIds()).toHaveLength(1));
  const [confirmId] = await c.confirmIds();
  c.pause();
  c.clock.increment(10_001);
  // Host 1 is asked: host 0's lease has lapsed, so it takes the window over.
  expect(await c.b.prompt("are you there?")).toMatchObject({ _tag: "Answered", turn: 2 });
  const stored = await c.shared.read(STREAM);
  expect(stored.filter((e) => e._tag === "Failed")).toMatchObject([{ turn: 1 }]);
  return { ...c, confirmId: confirmId as string };
};

describe("a holder paused past its lease, then continued", () => {
  it("reading the log first: the Accept reaching it runs nothing, and its next prompt is not refused", async () => {
    const c = await takenOverWhilePaused();
    c.resume(true);
    const answer = await c.a.confirm(c.confirmId, true);
    expect(answer).not.toEqual({ _tag: "Answered", answer: "accepted" });
    await vi.waitFor(async () => {
      const stored = await c.shared.read(STREAM);
      expect(stored.at(-1)?._tag).toBe("Answered");
    });
    expect(c.spies.runs.get("customers_delete")).toBeUndefined();
    // The window is usable from host 0 at once: no turn runs anywhere, by the log.
    expect(await c.a.prompt("hello")).toMatchObject({ _tag: "Answered", turn: 3 });
    expect(c.spies.runs.get("customers_delete")).toBeUndefined();
  });

  it("the Accept reaching it before it has read the log: the command does not run", async () => {
    const c = await takenOverWhilePaused();
    const letGo = c.resume(false);
    const answered = c.a.confirm(c.confirmId, true);
    // It asks the store before it acts, learns the window was taken over, and ends its turn.
    expect(await answered).toEqual({ _tag: "UnknownConfirmation" });
    expect(c.spies.runs.get("customers_delete")).toBeUndefined();
    const stored = await c.shared.read(STREAM);
    expect(stored.filter((e) => e._tag === "ConfirmAnswered" && e.answer === "accepted")).toEqual(
      [],
    );
    letGo();
    // And the window is usable from host 0 afterwards.
    expect(await c.a.prompt("hello")).toMatchObject({ _tag: "Answered", turn: 3 });
    expect(c.spies.runs.get("customers_delete")).toBeUndefined();
  });
});

describe("a reader on the holder paused past its lease", () => {
  it.each([
    ["reading the log first", true],
    ["the Accept first", false],
  ])("sees every stored event once, in order (%s)", async (_, feedFirst) => {
    const seen: LogEvent[] = [];
    const c = await takenOverWhilePaused(seen);
    const letGo = c.resume(feedFirst);
    await c.a.confirm(c.confirmId, true);
    letGo();
    expect(await c.a.prompt("hello")).toMatchObject({ _tag: "Answered", turn: 3 });
    const stored = await c.shared.read(STREAM);
    await vi.waitFor(() => expect(seen).toEqual(stored));
  });
});

describe("a confirmed command waits for its answer to be stored", () => {
  it("when the store refuses the answer (a lost lease, a fault), the command does not run", async () => {
    const store = memoryStore();
    // The answer's append is refused a round trip later, as a database refuses a fenced write.
    const refusing: EventStore = {
      ...store,
      append: async (stream, events, expectedSeq, writer) => {
        if (events.some((e) => e._tag === "ConfirmAnswered")) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          throw new LeaseLost({ stream, holder: "h0" });
        }
        return store.append(stream, events, expectedSeq, writer);
      },
    };
    const spies = spyCommands();
    const app = createApp({
      commands: spies.commands,
      userAbilities: (u) => (u as TestUser).abilities,
      assistant: { allow: ["customers.*"], confirm: ["customers.delete"] },
    });
    const host = createHost(app, {
      model: fakeModel().toolCall("customers_delete", { id: 1 }).says("Deleted."),
      store: refusing,
      onError: () => {},
    });
    open = [host];
    const window = host.window("w", { user: ada });
    const end = window.prompt("delete 1").catch((error: unknown) => error);
    await vi.waitFor(async () =>
      expect((await store.read(STREAM)).some((e) => e._tag === "ConfirmRequested")).toBe(true),
    );
    const confirmId = (await store.read(STREAM)).find((e) => e._tag === "ConfirmRequested");
    if (confirmId?._tag !== "ConfirmRequested") throw new Error("no question");
    await window.confirm(confirmId.confirmId, true);
    await end;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(spies.runs.get("customers_delete")).toBeUndefined();
  });
});
