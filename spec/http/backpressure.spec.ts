/**
 * Event streams with backpressure: a client that does not read is sent only
 * a page of a long log (the rest is read from the store as it reads), and
 * one that falls too far behind the live events is cut, letting go of the
 * window, and resumes from its last id with nothing missed or twice.
 */
import { createHost } from "elyra-assistant";
import { assistantHttp } from "elyra-assistant/http";
import type { EventStore, LogEvent } from "elyra-assistant/log";
import { fakeModel, memoryStore } from "elyra-assistant/testing";
import { describe, expect, it, vi } from "vitest";
import { spyApp } from "../fixtures/spyCommands.ts";
import { readSse, TOKEN, users } from "./fixture.ts";

/** A host whose store counts the events it reads, over HTTP. */
const served = (maxEventsBehind?: number) => {
  const inner = memoryStore();
  const reads = { events: 0 };
  const store: EventStore = {
    ...inner,
    read: async (stream, fromSeq, toSeq) => {
      const events = await inner.read(stream, fromSeq, toSeq);
      reads.events += events.length;
      return events;
    },
  };
  const app = spyApp();
  const host = createHost(app, { model: fakeModel(), store });
  const handle = assistantHttp(host, {
    token: TOKEN,
    authenticate: () => users.ada,
    heartbeatMs: 60_000,
    ...(maxEventsBehind === undefined ? {} : { maxEventsBehind }),
  });
  const events = (lastEventId?: string) =>
    handle(
      new Request("http://app.test/__assistant/events", {
        headers: {
          "x-elyra-token": TOKEN,
          "x-elyra-client": "w1",
          ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
        },
      }),
    );
  const window = host.window("w1", { user: users.ada });
  /** `n` events in the log: selections, each its own event. */
  const grow = async (n: number) => {
    for (let i = 0; i < n; i++) await window.select("customer", [i]);
  };
  return { host, window, events, grow, reads };
};

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/**
 * A client that reads nothing of `response` while `meanwhile` runs, then
 * reads it to its end: the ids and events it got.
 */
const readAfter = async (response: Response, meanwhile: () => Promise<void>) => {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  await meanwhile();
  await tick();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return {
    ids: [...text.matchAll(/^id: (\S+)$/gm)].map((m) => m[1] as string),
    events: [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1] as string) as LogEvent),
  };
};

describe("event streams with backpressure", () => {
  it("a client that does not read is sent one page of a long log; reading, it gets all in order", async () => {
    const { window, events, grow, reads } = served();
    await grow(1_000);
    await window.settled();
    reads.events = 0;
    const response = await events();
    await tick();
    // One page is read for the stream's queue; none more until the client reads.
    expect(reads.events).toBeLessThanOrEqual(256);

    const stream = readSse(response);
    await vi.waitFor(() => expect(stream.events()).toHaveLength(1_000));
    expect(stream.events().map((e) => e.seq)).toEqual(
      Array.from({ length: 1_000 }, (_, i) => i + 1),
    );
    expect(reads.events).toBe(1_000);
    await stream.cancel();
  });

  it("a client too far behind the live events is cut and lets go of the window; resuming, it misses nothing", async () => {
    const { host, window, events, grow } = served(50);
    await window.settled();
    // The client reads nothing while 200 events are appended; then its stream has ended.
    const { ids } = await readAfter(await events(), () => grow(200));
    // The window has no stream open: it may be closed when idle.
    expect(ids.length).toBeLessThan(200);
    await host.closeWindow("w1", { user: users.ada });
    expect(host.openWindows()).toBe(0);

    // The window opens again on demand (a memory store starts a fresh log, so it starts over).
    const again = readSse(await events(ids.at(-1)));
    await vi.waitFor(() => expect(again.messages.length).toBeGreaterThan(0));
    expect(again.messages[0]?.event).toBe("startOver");
    await again.cancel();
  });

  it("resuming after a cut, with the log kept, gives exactly the events after the last id", async () => {
    const { window, events, grow } = served(50);
    await grow(10);
    await window.settled();
    const { ids, events: seen } = await readAfter(await events(), () => grow(200));
    const lastId = ids.at(-1) as string;
    const rest = readSse(await events(lastId));
    await vi.waitFor(() => expect(seen.length + rest.events().length).toBe(210));
    expect([...seen, ...rest.events()].map((e) => e.seq)).toEqual(
      Array.from({ length: 210 }, (_, i) => i + 1),
    );
    await rest.cancel();
  });
});
