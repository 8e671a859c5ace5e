/**
 * Issue 33, item 4 (export): `host.export({ user })` writes everything the
 * log keeps of a person's conversations as one JSON document, in pieces of
 * at most a page of events: theirs only, the same after a restart.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp, createHost } from "elyra-assistant";
import { sqliteStore } from "elyra-assistant/sqlite";
import { fakeModel, memoryStore } from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";
import { recordOwnership, USAGE_PAGE } from "../../src/actors/log/userUsage.ts";
import { streamOf } from "../../src/actors/log/windowLog.ts";
import { defaultUserKey } from "../../src/runtime/commands/userKey.ts";
import type { EventStore } from "../../src/runtime/log/eventStore.ts";

const app = createApp({ commands: [], userAbilities: () => [], assistant: { allow: [] } });
const ada = { id: "ada" };
const bob = { id: "bob" };

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

const sqliteAt = async () => {
  const dir = await mkdtemp(join(tmpdir(), "elyra-export-"));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return join(dir, "assistant.db");
};

/** Ada asks in w1 and w3, Bob in w2; w3's log is then made longer than a page of events. */
const converse = async (store: EventStore) => {
  const host = createHost(app, {
    model: fakeModel().says("Ada's first answer.").says("Bob's secret answer.").says("Everything."),
    store,
  });
  for (const [id, user, text] of [
    ["w1", ada, "Hello"],
    ["w2", bob, "Hi"],
    ["w3", ada, "Tell me everything"],
  ] as const) {
    const w = host.window(id, { user });
    expect((await w.prompt(text))._tag).toBe("Answered");
    await w.settled();
  }
  const w3 = streamOf("w3");
  const selections = Array.from({ length: USAGE_PAGE + 50 }, (_, i) => ({
    _tag: "SelectionChanged" as const,
    at: i,
    turn: 1,
    kind: "customer",
    ids: [i],
    route: "/customers",
  }));
  await store.append(w3, selections, await store.lastSeq(w3));
  return host;
};

const exported = async (pieces: AsyncIterable<string>) => {
  const all: string[] = [];
  for await (const piece of pieces) all.push(piece);
  return { pieces: all, document: JSON.parse(all.join("")) as Record<string, unknown> };
};

describe("host.export", () => {
  it("writes the user's conversations, every event as the log keeps it, and none of anyone else's", async () => {
    const store = sqliteStore(await sqliteAt());
    cleanup.push(async () => store.close?.());
    const host = await converse(store);
    cleanup.push(() => host.close());
    const { pieces, document } = await exported(host.export({ user: ada }));
    expect(document.owner).toBe(defaultUserKey(ada));
    expect(typeof document.exportedAt).toBe("string");
    const conversations = document.conversations as Array<{ clientId: string; events: unknown[] }>;
    expect(conversations.map((c) => c.clientId)).toEqual(["w1", "w3"]);
    for (const c of conversations)
      expect(c.events).toEqual(
        JSON.parse(JSON.stringify(await store.read(streamOf(c.clientId), 0))),
      );
    expect(pieces.join("")).not.toContain("Bob's secret");
    // Written a page at a time: no piece holds more than a page of events.
    for (const piece of pieces)
      expect((piece.match(/"_tag"/g) ?? []).length).toBeLessThanOrEqual(USAGE_PAGE);
    const bobs = (await exported(host.export({ user: bob }))).document;
    expect((bobs.conversations as Array<{ clientId: string }>).map((c) => c.clientId)).toEqual([
      "w2",
    ]);
  });

  it("leaves out a conversation its stream names but whose log names someone else", async () => {
    const store = sqliteStore(await sqliteAt());
    cleanup.push(async () => store.close?.());
    const host = await converse(store);
    cleanup.push(() => host.close());
    await recordOwnership(store, { now: () => 0 } as never, defaultUserKey(bob), "w1");
    const { document, pieces } = await exported(host.export({ user: bob }));
    expect((document.conversations as Array<{ clientId: string }>).map((c) => c.clientId)).toEqual([
      "w2",
    ]);
    expect(pieces.join("")).not.toContain("Ada's first answer");
  });

  it("on a memory store, the user's windows open here", async () => {
    const host = await converse(memoryStore());
    cleanup.push(() => host.close());
    const { document } = await exported(host.export({ user: ada }));
    expect((document.conversations as Array<{ clientId: string }>).map((c) => c.clientId)).toEqual([
      "w1",
      "w3",
    ]);
  });
});
