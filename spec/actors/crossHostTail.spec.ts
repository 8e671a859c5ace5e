/**
 * Two hosts on one store (two processes on one database): an event stream
 * opened on one sees what the other appends to that window's log, each event
 * once and in order, and the reading host's window log keeps up (its last
 * seq, its projections) without writing anything itself.
 */
import { createHost, WindowOwnerMismatch } from "elyra-assistant";
import type { EventStore, LogEvent } from "elyra-assistant/log";
import { postgresStore } from "elyra-assistant/postgres";
import { fakeModel, memoryStore } from "elyra-assistant/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  havePostgres,
  type PostgresServer,
  postgresSuite,
  startPostgres,
} from "../adapters/postgresServer.ts";
import { spyApp, type TestUser } from "../fixtures/spyCommands.ts";

const ada: TestUser = { name: "Ada", abilities: ["customers.*"] };

/** A writer host on `writes`, a reader host on `reads` (the same store, or one on the same database). */
const tailed = async (writes: EventStore, reads: EventStore) => {
  const writer = createHost(spyApp(), { model: fakeModel().says("Hi from A."), store: writes });
  const reader = createHost(spyApp(), { model: fakeModel(), store: reads });
  const watched = reader.window("w", { user: ada });
  await watched.settled();
  const seen: LogEvent[] = [];
  const subscription = watched.events$().subscribe((event) => seen.push(event));

  const written = writer.window("w", { user: ada });
  expect((await written.prompt("hello"))._tag).toBe("Answered");
  await written.settled();
  const stored = await writes.read("conversation/w");
  await vi.waitFor(() => expect(seen).toHaveLength(stored.length));
  expect(seen).toEqual(stored);
  // The reading host's log kept up: its last seq and what it would show.
  expect(watched.lastSeq()).toBe(stored.length);
  expect(watched.history().messages).toEqual(written.history().messages);
  subscription.unsubscribe();
  await writer.close();
  await reader.close();
};

describe("a window's log on two hosts of one store", () => {
  it("an event stream on one host sees the other's appends, each once and in order", async () => {
    const store = memoryStore();
    await tailed(store, store);
  });
});

describe("a window opened on a host whose store's feed starts with Resync", () => {
  it("reads its log once, not once for the reload and again for the Resync", async () => {
    const inner: EventStore = { ...memoryStore(), durable: true };
    const written = createHost(spyApp(), { model: fakeModel().says("Hi."), store: inner });
    expect((await written.window("w", { user: ada }).prompt("hello"))._tag).toBe("Answered");
    const reads: number[] = [];
    const store: EventStore = {
      ...inner,
      read: (stream, fromSeq, toSeq) => {
        reads.push(fromSeq ?? 0);
        return inner.read(stream, fromSeq, toSeq);
      },
      // As postgresStore does when it starts listening: every reader reads again.
      changes: (listener) => {
        const stop = inner.changes?.(listener) ?? (() => {});
        listener({ _tag: "Resync" });
        return stop;
      },
    };
    const reader = createHost(spyApp(), { model: fakeModel(), store });
    const window = reader.window("w", { user: ada });
    await window.settled();
    expect(window.lastSeq()).toBe(await inner.lastSeq("conversation/w"));
    expect(reads.filter((from) => from === 0)).toHaveLength(1);
    await written.close();
    await reader.close();
  });
});

describe("two hosts that each opened a window for a different user", () => {
  it("the host whose user does not own the log shows none of it, and closes the window", async () => {
    // A durable store shared by two hosts: each opened window w, for a different user.
    const store: EventStore = { ...memoryStore(), durable: true };
    const adas = createHost(spyApp(), { model: fakeModel().says("Ada's secret plan."), store });
    const bobs = createHost(spyApp(), { model: fakeModel(), store });
    const bob: TestUser = { name: "Bob", abilities: ["customers.*"] };
    const watched = bobs.window("w", { user: bob });
    await watched.settled();
    const seen: LogEvent[] = [];
    let ended = false;
    watched.events$().subscribe({ next: (e) => seen.push(e), complete: () => (ended = true) });

    expect((await adas.window("w", { user: ada }).prompt("my plan"))._tag).toBe("Answered");
    await vi.waitFor(() => expect(ended).toBe(true));
    expect(seen).toEqual([]);
    expect(bobs.openWindows()).toBe(0);
    // Opened again on Bob's host, the log names Ada: Bob is refused, and nothing was written.
    const before = await store.lastSeq("conversation/w");
    await expect(bobs.window("w", { user: bob }).prompt("what plan?")).rejects.toBeInstanceOf(
      WindowOwnerMismatch,
    );
    expect(await store.lastSeq("conversation/w")).toBe(before);
    await adas.close();
    await bobs.close();
  });
});

describe.skipIf(!havePostgres)(postgresSuite("a window's log on two hosts of one database"), () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("an event stream on one host sees the appends of a host in another process, through LISTEN", async () => {
    const a = postgresStore(server.url, { schema: "tail" });
    const b = postgresStore(server.url, { schema: "tail" });
    try {
      await tailed(a, b);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
