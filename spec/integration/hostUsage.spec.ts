/**
 * Issue 32, item 5: what each user cost, through a real host. Each step's
 * usage is in the log with the model that answered (the SDK in
 * `anthropic()` against the stand-in, which plays the prompt cache);
 * `host.usage({ user, since })` adds up the user's own conversations only,
 * the same after a restart on the same store, and a conversation named
 * twice in the owner's stream counts once.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Schema } from "effect";
import { createApp, createHost, defineCommand } from "elyra-assistant";
import { anthropic } from "elyra-assistant/anthropic";
import { addTallies, EMPTY_TALLY, StepFinished, spendingOf } from "elyra-assistant/log";
import { sqliteStore } from "elyra-assistant/sqlite";
import {
  fakeModel,
  memoryStore,
  says,
  simulatedClock,
  standInMessagesApi,
  toolCall,
} from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";
import { ownerStream, recordOwnership, usageOfOwner } from "../../src/actors/log/userUsage.ts";
import { streamOf } from "../../src/actors/log/windowLog.ts";
import { defaultUserKey as userKeyOf } from "../../src/runtime/commands/userKey.ts";
import type { EventStore } from "../../src/runtime/log/eventStore.ts";
import { DEFAULT_PRICES } from "../../src/runtime/usage/prices.ts";

const app = createApp({
  commands: [
    defineCommand({
      name: "customers_show",
      description: "Show one customer by id, with their notes.",
      can: "customers.show",
      args: { id: Schema.Number },
      run: ({ id }) => ({ id, notes: "n".repeat(4_000) }),
    }),
  ],
  userAbilities: () => ["customers.*"],
  assistant: { allow: ["customers.*"], instructions: "You help with the CRM. ".repeat(300) },
});
const ada = { name: "Ada" };
const bob = { name: "Bob" };
const DAY = 86_400_000;
const START = Date.UTC(2026, 11, 4);

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

const sqliteAt = async () => {
  const dir = await mkdtemp(join(tmpdir(), "elyra-usage-"));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return join(dir, "assistant.db");
};

/** Three conversations: Ada's w1 (a tool call and an answer), Bob's w2, then a day later Ada's w3. */
const script = () => [
  toolCall("customers_show", { id: 7 }),
  says("Customer 7 has long notes."),
  says("Hello, Bob."),
  says("Hello again, Ada."),
];

/** `later` ms pass before w3: a day, or (on a store that drops a closed window's log) less than the idle sweep waits. */
const run = async (store: EventStore, later = DAY, clock = simulatedClock(START)) => {
  const api = await standInMessagesApi(script(), { promptCache: true });
  cleanup.push(api.close);
  const host = createHost(app, {
    model: anthropic({ baseURL: api.url, apiKey: "test-key", maxRetries: 0 }),
    store,
    clock,
  });
  expect((await host.window("w1", { user: ada }).prompt("Show customer 7"))._tag).toBe("Answered");
  expect((await host.window("w2", { user: bob }).prompt("Hi"))._tag).toBe("Answered");
  clock.set(START + later);
  expect((await host.window("w3", { user: ada }).prompt("Hi again"))._tag).toBe("Answered");
  for (const id of ["w1", "w2", "w3"])
    await host.window(id, { user: id === "w2" ? bob : ada }).settled();
  return { api, host, clock };
};

/** The spending of one conversation, folded here from its stored log. */
const foldedOf = async (store: EventStore, clientId: string, since = 0) =>
  spendingOf({ fallbackModel: "claude-sonnet-5-5", since }).fold(
    await store.read(streamOf(clientId), 0),
  );

describe("host.usage, through the SDK and the stand-in", () => {
  it("adds up the user's own conversations, each step priced by the model the API named, and none of anyone else's", async () => {
    const store = sqliteStore(await sqliteAt());
    const { api, host } = await run(store);
    cleanup.push(() => host.close());

    const steps = (await store.read(streamOf("w1"), 0)).filter(Schema.is(StepFinished));
    expect(steps.map((s) => s.model)).toEqual(["claude-sonnet-5-5", "claude-sonnet-5-5"]);
    // The stand-in's cache: the long system prompt is written on the first step and read on the next.
    expect(steps[0]?.usage.cacheWriteTokens ?? 0).toBeGreaterThan(0);
    expect(steps[1]?.usage.cacheReadTokens ?? 0).toBeGreaterThan(0);

    const usage = await host.usage({ user: ada });
    expect(usage.conversations.map((c) => c.clientId)).toEqual(["w1", "w3"]);
    const w1 = await foldedOf(store, "w1");
    const w3 = await foldedOf(store, "w3");
    expect(usage.total).toEqual(addTallies(w1.total, w3.total));
    expect(usage.total.steps).toBe(3);
    expect(usage.total.dollars).toBeGreaterThan(0);
    expect(usage.total.cacheReadTokens).toBeGreaterThan(0);
    // Ada's three steps are three of the four requests the stand-in answered; Bob's is his alone.
    expect(api.requests.filter((r) => r.path.endsWith("/messages"))).toHaveLength(4);
    const bobs = await host.usage({ user: bob });
    expect(bobs.conversations.map((c) => c.clientId)).toEqual(["w2"]);
    expect(bobs.total.steps).toBe(1);
  });

  it("since a time: only the steps finished from then on, and only the conversations that had one", async () => {
    const store = sqliteStore(await sqliteAt());
    const { host } = await run(store);
    cleanup.push(() => host.close());
    const lately = await host.usage({ user: ada, since: new Date(START + DAY) });
    expect(lately.conversations.map((c) => c.clientId)).toEqual(["w3"]);
    expect(lately.total).toEqual((await foldedOf(store, "w3")).total);
    expect((await host.usage({ user: ada, since: START + 2 * DAY })).conversations).toEqual([]);
  });

  it("is the same from a host started again on the same store, with no window open", async () => {
    const path = await sqliteAt();
    const first = sqliteStore(path);
    const { host } = await run(first);
    const before = await host.usage({ user: ada });
    await host.close();
    await first.close?.();
    const again = sqliteStore(path);
    cleanup.push(async () => again.close?.());
    const restarted = createHost(app, { model: fakeModel(), store: again });
    cleanup.push(() => restarted.close());
    expect(restarted.openWindows()).toBe(0);
    expect(await restarted.usage({ user: ada })).toEqual(before);
  });

  it("on a memory store, counts the user's windows open here", async () => {
    const store = memoryStore();
    const { host } = await run(store, 1_000);
    cleanup.push(() => host.close());
    const usage = await host.usage({ user: ada });
    expect(usage.conversations.map((c) => c.clientId)).toEqual(["w1", "w3"]);
    await host.closeWindow("w1", { user: ada });
    // Its log went with it: a memory store keeps none after a window closes.
    expect((await host.usage({ user: ada })).conversations.map((c) => c.clientId)).toEqual(["w3"]);
  });
});

describe("the owner's stream", () => {
  const stepOf = (seq: number) =>
    ({
      _tag: "StepFinished",
      at: START + seq,
      turn: 1,
      step: 1,
      stopReason: "end_turn",
      usage: { inputTokens: 1_000, outputTokens: 10 },
    }) as const;

  /** A SQLite store where w1's log is Ada's, with one step. */
  const adasLog = async () => {
    const store = sqliteStore(await sqliteAt());
    cleanup.push(async () => store.close?.());
    await store.append(
      streamOf("w1"),
      [{ _tag: "WindowOwned", at: START, turn: 0, owner: "ada" }, stepOf(1)],
      0,
    );
    return { store, clock: simulatedClock(START) };
  };

  it("names a conversation once however many hosts race to name it, and a conflict is tried again where the stream is", async () => {
    const { store, clock } = await adasLog();
    await Promise.all([
      recordOwnership(store, clock, "ada", "w1"),
      recordOwnership(store, clock, "ada", "w1"),
      recordOwnership(store, clock, "ada", "w2"),
    ]);
    expect((await store.read(ownerStream("ada"), 0)).map((e) => e._tag)).toEqual([
      "ConversationOwned",
      "ConversationOwned",
      "ConversationOwned",
    ]);
    const reading = { store, prices: DEFAULT_PRICES, fallbackModel: "claude-sonnet-5-5" };
    const usage = await usageOfOwner(reading, "ada", 0, []);
    expect(usage.conversations.map((c) => c.clientId)).toEqual(["w1"]);
    expect(usage.total.steps).toBe(1);
    await expect(usageOfOwner(reading, "ada", Number.NaN, [])).rejects.toThrow(/since/);
  });

  it("an entry for a conversation whose log names someone else counts nothing (a window another user's log refused)", async () => {
    const { store, clock } = await adasLog();
    await recordOwnership(store, clock, "bob", "w1");
    const reading = { store, prices: DEFAULT_PRICES, fallbackModel: "claude-sonnet-5-5" };
    expect(await usageOfOwner(reading, "bob", 0, ["w1"])).toEqual({
      total: EMPTY_TALLY,
      conversations: [],
    });
    // Through a host: Bob opening Ada's window is refused, and his usage has none of hers.
    const host = createHost(app, { model: fakeModel().says("Hello."), store });
    cleanup.push(() => host.close());
    await expect(host.window("w1", { user: bob }).prompt("Hi")).rejects.toThrow();
    expect((await host.usage({ user: bob })).total.steps).toBe(0);
    await expect(host.usage({ user: bob, since: new Date(Number.NaN) })).rejects.toThrow(/since/);
  });

  it("a store that fails the owner's entry: the turn is answered all the same, the failure told to onError, and the entry tried again at the next event", async () => {
    const inner = sqliteStore(await sqliteAt());
    cleanup.push(async () => inner.close?.());
    let failures = 1;
    const store: EventStore = {
      ...inner,
      append: (stream, events, expected, writer) => {
        if (stream.startsWith("owner/") && failures > 0) {
          failures--;
          return Promise.reject(new Error("disk full"));
        }
        return inner.append(stream, events, expected, writer);
      },
    };
    const errors: unknown[] = [];
    const host = createHost(app, {
      model: fakeModel().says("Hello."),
      store,
      onError: (error) => errors.push(error),
    });
    cleanup.push(() => host.close());
    const w = host.window("w1", { user: ada });
    expect((await w.prompt("Hi"))._tag).toBe("Answered");
    await w.settled();
    expect(errors.map((e) => (e as Error).message)).toEqual(["disk full"]);
    // Tried again at the turn's next event: named once, and counted.
    expect((await inner.read(ownerStream(userKeyOf(ada)), 0)).map((e) => e._tag)).toEqual([
      "ConversationOwned",
    ]);
    const usage = await host.usage({ user: ada });
    expect(usage.conversations.map((c) => c.clientId)).toEqual(["w1"]);
    expect(usage.total.steps).toBe(1);
  });
});
