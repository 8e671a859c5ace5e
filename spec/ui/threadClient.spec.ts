/**
 * Issue 33, item 6: the browser client's thread routes against the real
 * HTTP handler (list, pages, search, get, rename, archive, delete, typed by
 * the wire's types, refusals as `HostError`s), sent without the client
 * header; and switching the thread a window shows: a new one under a new
 * random id, or one of the list, its log folded by the store from the start.
 */
import { fakeModel } from "elyra-assistant/testing";
import {
  type AssistantClient,
  assistantClient,
  ConnectionError,
  createAssistantStore,
  HostError,
} from "elyra-assistant/ui";
import { describe, expect, it, vi } from "vitest";
import { setup, TOKEN } from "../http/fixture.ts";

const over = (model = fakeModel()) => {
  const t = setup(model);
  const sent: Request[] = [];
  const client = assistantClient({
    token: TOKEN,
    clientId: "t1",
    baseUrl: "http://app.test/__assistant",
    backoff: { firstMs: 5, maxMs: 20 },
    fetch: async (input, init) => {
      const request = new Request(input, init);
      request.headers.set("x-test-user", "ada");
      sent.push(request.clone());
      return t.handle(request);
    },
  });
  return { t, client, sent };
};

/** Asks `text` in the client's thread and waits until the host has it indexed. */
const ask = async (t: ReturnType<typeof setup>, client: AssistantClient, text: string) => {
  await client.prompt(text);
  const w = t.host.window(client.clientId, { user: { name: "Ada" } });
  await w.settled();
  await (w as unknown as { indexed: () => Promise<void> }).indexed();
};

const texts = (store: ReturnType<typeof createAssistantStore>) =>
  store.getSnapshot().items.flatMap((item) => ("text" in item ? [item.text] : []));

describe("assistantClient: the user's threads", () => {
  it("lists, pages, searches, gets, renames, archives and deletes, without the client header", async () => {
    const { t, client, sent } = over(
      fakeModel().says("Her credit limit is 20 000.").says("Three invoices are overdue."),
    );
    await ask(t, client, "What is Ada Lovelace's credit limit?");
    client.switchThread("t2");
    await ask(t, client, "Which invoices are overdue?");

    const page = await client.threads.list();
    expect(page.threads.map((x) => x.id)).toEqual(["t2", "t1"]);
    expect(page.threads[1]).toMatchObject({
      title: "What is Ada Lovelace's credit limit?",
      preview: "Her credit limit is 20 000.",
      turns: 1,
      archived: false,
    });
    const first = await client.threads.list({ limit: 1 });
    expect(first.threads.map((x) => x.id)).toEqual(["t2"]);
    const second = await client.threads.list({ limit: 1, after: first.next });
    expect(second.threads.map((x) => x.id)).toEqual(["t1"]);
    expect(second.next).toBeUndefined();

    const found = await client.threads.search("lovelace");
    expect(found.threads.map((x) => x.id)).toEqual(["t1"]);
    expect(found.threads[0]?.snippet).toContain("Lovelace");

    await client.threads.rename("t1", "Ada's limit");
    expect(await client.threads.get("t1")).toMatchObject({ id: "t1", title: "Ada's limit" });
    await client.threads.rename("t1", "");
    expect((await client.threads.get("t1")).title).toBe("What is Ada Lovelace's credit limit?");
    await client.threads.archive("t1");
    expect((await client.threads.list()).threads.map((x) => x.id)).toEqual(["t2"]);
    expect((await client.threads.list({ archived: true })).threads.map((x) => x.id)).toEqual([
      "t1",
    ]);
    await client.threads.archive("t1", false);
    expect((await client.threads.list()).threads.map((x) => x.id).sort()).toEqual(["t1", "t2"]);
    await client.threads.delete("t1");
    const gone = await client.threads.get("t1").catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(HostError);
    expect(gone).toMatchObject({ status: 404, type: "threadNotFound" });

    const routes = sent.filter((r) => new URL(r.url).pathname.includes("/threads"));
    expect(routes.length).toBeGreaterThan(10);
    for (const request of routes) {
      expect(request.headers.get("x-elyra-token")).toBe(TOKEN);
      expect(request.headers.get("x-elyra-client")).toBeNull();
    }
    expect(await routes[0]?.text()).toBe("{}");
  });

  it("another user's thread is a threadNotFound HostError; an unreachable host a ConnectionError", async () => {
    const { t, client } = over(fakeModel().says("Bob's answer."));
    await t.call("prompt", { client: "b1", user: "bob", body: { text: "Bob's question" } });
    await t.host.window("b1", { user: { name: "Bob" } }).settled();
    for (const attempt of [
      () => client.threads.get("b1"),
      () => client.threads.rename("b1", "mine now"),
      () => client.threads.archive("b1"),
      () => client.threads.delete("b1"),
    ])
      expect(await attempt().catch((e: unknown) => e)).toMatchObject({
        _tag: "HostError",
        status: 404,
        type: "threadNotFound",
      });
    const offline = assistantClient({
      token: TOKEN,
      fetch: async () => {
        throw new TypeError("Failed to fetch");
      },
    });
    expect(await offline.threads.list().catch((e: unknown) => e)).toBeInstanceOf(ConnectionError);
  });

  it("switchThread: a new thread under a new random id, or the one given", () => {
    const { client } = over();
    expect(client.clientId).toBe("t1");
    const fresh = client.switchThread();
    expect(fresh).toMatch(/^[0-9a-f]{32}$/);
    expect(client.clientId).toBe(fresh);
    expect(client.switchThread()).not.toBe(fresh);
    expect(client.switchThread("t1")).toBe("t1");
    expect(client.clientId).toBe("t1");
  });
});

describe("the store switching threads", () => {
  it("forgets what it showed and folds the other thread's log from its start, on a stream of its own", async () => {
    const { t, client, sent } = over(
      fakeModel().says("Her credit limit is 20 000.").says("Three invoices are overdue."),
    );
    const told: string[] = [];
    const store = createAssistantStore(client, {
      route: () => "/",
      onThread: (id) => told.push(id),
    });
    const stop = store.subscribe(() => {});
    await vi.waitFor(() => expect(store.getSnapshot().connected).toBe(true));
    await store.prompt("What is Ada Lovelace's credit limit?");
    await vi.waitFor(() => expect(texts(store)).toContain("Her credit limit is 20 000."));
    expect(store.thread?.()).toBe("t1");

    const fresh = store.switchThread?.();
    expect(fresh).toMatch(/^[0-9a-f]{32}$/);
    expect(store.thread?.()).toBe(fresh);
    expect(store.getSnapshot().items).toEqual([]);
    await vi.waitFor(() => expect(store.getSnapshot().connected).toBe(true));
    await store.prompt("Which invoices are overdue?");
    await vi.waitFor(() => expect(texts(store)).toContain("Three invoices are overdue."));
    expect(texts(store)).toEqual(["Which invoices are overdue?", "Three invoices are overdue."]);

    // Back to the first: its log from the start, each event once.
    expect(store.switchThread?.("t1")).toBe("t1");
    await vi.waitFor(() =>
      expect(texts(store)).toEqual([
        "What is Ada Lovelace's credit limit?",
        "Her credit limit is 20 000.",
      ]),
    );
    // The same thread again changes nothing.
    const before = store.getSnapshot();
    expect(store.switchThread?.("t1")).toBe("t1");
    expect(store.getSnapshot()).toBe(before);
    expect(told).toEqual([fresh, "t1"]);

    const streams = sent.filter((r) => new URL(r.url).pathname.endsWith("/events"));
    expect(streams.map((r) => r.headers.get("x-elyra-client"))).toEqual(["t1", fresh, "t1"]);
    // Each opened from the start of its thread's log.
    expect(streams.map((r) => r.headers.get("last-event-id"))).toEqual([null, null, null]);
    stop();
    await t.host.close();
  });

  it("a store whose client cannot switch has no switchThread and no threads", () => {
    const client: AssistantClient = { ...assistantClient({ token: TOKEN, clientId: "x" }) };
    const { switchThread: _s, threads: _t, ...plain } = client;
    const store = createAssistantStore(plain as AssistantClient);
    expect(store.switchThread).toBeUndefined();
    expect(store.threads).toBeUndefined();
  });
});
