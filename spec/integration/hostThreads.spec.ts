/**
 * Issue 33, item 1: a user's threads on a host. A window's client id names
 * its thread; its turns list it (title from the first prompt, a preview of
 * the answer), its words find it, its owner renames, archives and deletes
 * it; another user's call is refused exactly as one for a thread that never
 * was, and changes nothing.
 */
import { createApp, createHost, type Host, ThreadNotFound } from "elyra-assistant";
import { memoryThreads } from "elyra-assistant/log";
import { fakeModel, memoryStore } from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";
import { streamOf } from "../../src/actors/log/windowLog.ts";
import type { EventStore } from "../../src/runtime/log/eventStore.ts";

const app = createApp({ commands: [], userAbilities: () => [], assistant: { allow: [] } });
const ada = { id: "ada" };
const bob = { id: "bob" };

const hosts: Host[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

const hostOn = (store: EventStore, answers: string[], onError?: (error: unknown) => void) => {
  let model = fakeModel();
  for (const answer of answers) model = model.says(answer);
  const host = createHost(app, { model, store, ...(onError === undefined ? {} : { onError }) });
  hosts.push(host);
  return host;
};

/** Asks `text` in thread `id` as `user` and waits for the index to have it. */
const ask = async (host: Host, id: string, user: object, text: string) => {
  const w = host.window(id, { user });
  expect((await w.prompt(text))._tag).toBe("Answered");
  await w.settled();
  await (w as unknown as { indexed?: () => Promise<void> }).indexed?.();
  return w;
};

const refusedNotFound = async (promise: Promise<unknown>, id: string) => {
  const error = await promise.then(
    () => expect.fail("it went through; expected ThreadNotFound"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ThreadNotFound);
  expect(error).toEqual(new ThreadNotFound({ id }));
};

describe.each([
  ["a memory store", () => memoryStore()],
  ["a shared memory store (durable)", () => memoryStore({ shared: {} })],
])("threads on %s", (_, makeStore) => {
  it("a turn lists its thread: its first prompt's title, its answer's preview, most recent first", async () => {
    const host = hostOn(makeStore(), ["Her limit is 20 000.", "Three are overdue.", "Bob's."]);
    await ask(host, "t-limit", ada, "What is Ada Lovelace's credit limit?");
    await ask(host, "t-overdue", ada, "Which invoices are overdue?");
    await ask(host, "t-bob", bob, "Bob's own question");
    const { threads, next } = await host.threads.list({ user: ada });
    expect(next).toBeUndefined();
    expect(threads.map((t) => t.id)).toEqual(["t-overdue", "t-limit"]);
    const [overdue, limit] = threads;
    expect(limit).toMatchObject({
      title: "What is Ada Lovelace's credit limit?",
      preview: "Her limit is 20 000.",
      turns: 1,
      archived: false,
    });
    expect(overdue?.lastAt).toBeGreaterThanOrEqual(limit?.lastAt ?? Number.POSITIVE_INFINITY);
    expect((await host.threads.list({ user: bob })).threads.map((t) => t.id)).toEqual(["t-bob"]);
    expect(await host.threads.get({ user: ada, id: "t-limit" })).toEqual(limit);
  });

  it("search finds a thread by the words of its prompts and answers, the user's own only", async () => {
    const host = hostOn(makeStore(), ["Her limit is 20 000.", "Payroll runs Friday."]);
    await ask(host, "t-limit", ada, "What is Ada Lovelace's credit limit?");
    await ask(host, "t-bob", bob, "When is payroll?");
    expect((await host.threads.search({ user: ada, text: "lovelace" })).map((t) => t.id)).toEqual([
      "t-limit",
    ]);
    const [hit] = await host.threads.search({ user: ada, text: "20 000" });
    expect(hit?.id).toBe("t-limit");
    expect(hit?.snippet).toContain("20 000");
    expect(await host.threads.search({ user: ada, text: "payroll" })).toEqual([]);
    expect(await host.threads.search({ user: bob, text: "lovelace" })).toEqual([]);
  });

  it("rename and archive are logged by the thread's window, and the list follows", async () => {
    const store = makeStore();
    const host = hostOn(store, ["Answer."]);
    const w = await ask(host, "t1", ada, "A long first prompt about credit");
    await host.threads.rename({ user: ada, id: "t1", title: "  Ada's\nlimit\u202E " });
    await w.settled();
    const events = await store.read(streamOf("t1"));
    expect(events.at(-1)).toMatchObject({ _tag: "ThreadRenamed", title: "Ada's limit" });
    expect((await host.threads.get({ user: ada, id: "t1" })).title).toBe("Ada's limit");
    expect((await host.threads.search({ user: ada, text: "ada limit" })).map((t) => t.id)).toEqual([
      "t1",
    ]);
    await host.threads.archive({ user: ada, id: "t1" });
    expect((await host.threads.list({ user: ada })).threads).toEqual([]);
    expect(
      (await host.threads.list({ user: ada, archived: true })).threads.map((t) => t.id),
    ).toEqual(["t1"]);
    await host.threads.archive({ user: ada, id: "t1", archived: false });
    await host.threads.rename({ user: ada, id: "t1", title: "" });
    expect(await host.threads.get({ user: ada, id: "t1" })).toMatchObject({
      archived: false,
      title: "A long first prompt about credit",
    });
  });

  it("another user's thread is refused as one that never was, and nothing is written", async () => {
    const store = makeStore();
    const host = hostOn(store, ["Answer."]);
    await ask(host, "t1", ada, "Ada's private question");
    const before = await store.read(streamOf("t1"));
    for (const id of ["t1", "never"]) {
      await refusedNotFound(host.threads.get({ user: bob, id }), id);
      await refusedNotFound(host.threads.rename({ user: bob, id, title: "mine now" }), id);
      await refusedNotFound(host.threads.archive({ user: bob, id }), id);
      await refusedNotFound(host.threads.delete({ user: bob, id }), id);
      await refusedNotFound(host.erase({ user: bob, thread: id }), id);
    }
    expect(await store.read(streamOf("t1"))).toEqual(before);
    expect(await store.read(streamOf("never"))).toEqual([]);
    expect((await host.threads.get({ user: ada, id: "t1" })).title).toBe("Ada's private question");
    // Erasing Bob erases nothing of Ada's.
    expect(await host.erase({ user: bob })).toEqual({ threads: 0 });
    expect(await store.read(streamOf("t1"))).toEqual(before);
  });

  it("delete erases the thread: gone from the list and search, its window refused", async () => {
    const store = makeStore();
    const host = hostOn(store, ["First.", "Second."]);
    await ask(host, "t1", ada, "Erase this unique-words prompt");
    await ask(host, "t2", ada, "Keep this one");
    await host.threads.delete({ user: ada, id: "t1" });
    expect((await host.threads.list({ user: ada })).threads.map((t) => t.id)).toEqual(["t2"]);
    expect(await host.threads.search({ user: ada, text: "unique" })).toEqual([]);
    await refusedNotFound(host.threads.get({ user: ada, id: "t1" }), "t1");
    const left = await store.read(streamOf("t1"));
    if (store.durable) {
      expect(left).toHaveLength(1);
      expect(left[0]?._tag).toBe("Erased");
      // Opened again, the erased thread is nothing to prompt.
      await expect(host.window("t1", { user: ada }).prompt("again")).rejects.toBeInstanceOf(
        ThreadNotFound,
      );
    } else expect(left.every((e) => e._tag === "Erased")).toBe(true);
  });

  it("host.erase({ user }) erases every thread of theirs, archived ones too, and their own stream", async () => {
    const store = makeStore();
    const host = hostOn(store, ["a", "b", "c"]);
    await ask(host, "t1", ada, "one");
    await ask(host, "t2", ada, "two");
    await ask(host, "t3", bob, "three");
    await host.threads.archive({ user: ada, id: "t2" });
    expect(await host.erase({ user: ada })).toEqual({ threads: 2 });
    expect((await host.threads.list({ user: ada })).threads).toEqual([]);
    expect((await host.threads.list({ user: ada, archived: true })).threads).toEqual([]);
    expect((await host.threads.list({ user: bob })).threads.map((t) => t.id)).toEqual(["t3"]);
    for (const id of ["t1", "t2"])
      for (const e of await store.read(streamOf(id))) expect(e._tag).toBe("Erased");
    expect((await store.read(streamOf("t3"))).some((e) => e._tag === "TurnStarted")).toBe(true);
    if (store.durable)
      expect((await store.read(`owner/id:ada`)).map((e) => e._tag)).toEqual(["Erased"]);
  });
});

describe("threads across hosts and restarts", () => {
  it("a second host on the shared store lists them, and an erasure closes the window it holds", async () => {
    const store = memoryStore({ shared: {} });
    const a = hostOn(store, ["Answer."]);
    const b = hostOn(store, []);
    await ask(a, "t1", ada, "Shared question");
    expect((await b.threads.list({ user: ada })).threads.map((t) => t.id)).toEqual(["t1"]);
    const onB = b.window("t1", { user: ada });
    await onB.owned();
    expect(b.openWindows()).toBe(1);
    await a.erase({ user: ada, thread: "t1" });
    await expect.poll(() => b.openWindows()).toBe(0);
    await expect(b.window("t1", { user: ada }).prompt("more")).rejects.toBeInstanceOf(
      ThreadNotFound,
    );
  });

  it("reindex writes the list again from the logs", async () => {
    const store = memoryStore({ shared: {} });
    const host = hostOn(store, ["Her limit is 20 000.", "Done."]);
    await ask(host, "t1", ada, "Ada's credit limit?");
    await ask(host, "t1", ada, "And raise it");
    // An index made anew (or one that lost its rows): the logs still name the threads.
    await store.threads?.remove("id:ada", "t1");
    expect((await host.threads.list({ user: ada })).threads).toEqual([]);
    expect(await host.threads.reindex({ user: ada })).toBe(1);
    expect(await host.threads.get({ user: ada, id: "t1" })).toMatchObject({
      title: "Ada's credit limit?",
      turns: 2,
      preview: "Done.",
    });
    expect((await host.threads.search({ user: ada, text: "raise" })).map((t) => t.id)).toEqual([
      "t1",
    ]);
    expect((await host.threads.search({ user: ada, text: "20 000" })).map((t) => t.id)).toEqual([
      "t1",
    ]);
  });

  it("an index that refuses a write is told to onError; the turn is answered all the same", async () => {
    const inner = memoryStore();
    const broken = memoryThreads();
    const store: EventStore = {
      ...inner,
      threads: {
        ...broken,
        put: () => Promise.reject(new Error("index down")),
      },
    };
    const errors: unknown[] = [];
    const host = hostOn(store, ["Still answered."], (error) => errors.push(error));
    const w = await ask(host, "t1", ada, "Hello");
    expect(w.panel().items.at(-1)).toMatchObject({ text: "Still answered." });
    expect(errors.some((e) => e instanceof Error && e.message === "index down")).toBe(true);
  });
});
