/**
 * A tab that outlives its host's memory: the host restarts on a memory store
 * (or the log begins again), the tab reconnects with the id of an event the
 * new log does not have, is told to start over, forgets what it showed, and
 * shows the new log, each event once.
 */
import { createHost, type Host } from "elyra-assistant";
import { assistantHttp } from "elyra-assistant/http";
import { fakeModel, memoryStore } from "elyra-assistant/testing";
import { assistantClient, createAssistantStore } from "elyra-assistant/ui";
import { describe, expect, it, vi } from "vitest";
import { spyApp, type TestUser } from "../fixtures/spyCommands.ts";

const ada: TestUser = { name: "Ada", abilities: ["customers.*"] };
const TOKEN = "host-token-0123456789";

const hostSaying = (...answers: string[]) => {
  const app = spyApp();
  let model = fakeModel();
  for (const answer of answers) model = model.says(answer);
  const host = createHost(app, { model, store: memoryStore() });
  return {
    host,
    handle: assistantHttp(host, { token: TOKEN, authenticate: () => ada, heartbeatMs: 60_000 }),
  };
};

describe("a tab whose host restarted", () => {
  it("starts over: what it showed is forgotten and the new log is shown", async () => {
    let serving: { host: Host; handle: (request: Request) => Promise<Response> } = hostSaying(
      "Before the restart.",
      "Older news.",
    );
    const client = assistantClient({
      token: TOKEN,
      clientId: "tab-1",
      baseUrl: "http://app.test/__assistant",
      backoff: { firstMs: 5, maxMs: 20 },
      fetch: (input, init) => serving.handle(new Request(input, init)),
    });
    const store = createAssistantStore(client, { route: () => "/" });
    const texts = () =>
      store.getSnapshot().items.flatMap((item) => ("text" in item ? [item.text] : []));
    const stop = store.subscribe(() => {});
    await vi.waitFor(() => expect(store.getSnapshot().connected).toBe(true));
    await store.prompt("first");
    await vi.waitFor(() => expect(texts()).toContain("Before the restart."));
    await store.prompt("second");
    await vi.waitFor(() => expect(texts()).toContain("Older news."));

    // The process restarts: a fresh memory store, and the tab's stream ends with the old host.
    const old = serving.host;
    serving = hostSaying("After the restart.");
    await old.close();
    await vi.waitFor(() => expect(store.getSnapshot().connected).toBe(true));
    await store.prompt("third");
    await vi.waitFor(() => expect(texts()).toContain("After the restart."));
    expect(texts()).toEqual(["third", "After the restart."]);
    stop();
    await serving.host.close();
  });
});
