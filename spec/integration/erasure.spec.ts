/**
 * Issue 33, item 4: erasure that is provable. A unique word is planted in a
 * prompt, a confirmation's arguments, the arguments the user edited, the
 * answer, a selection and a thread's name; `host.erase({ user })` must then
 * leave it nowhere: not in any stream, the thread index, an export, the
 * host's open windows, nor the bytes of the SQLite file and its WAL. The
 * same check finds it before the erasure, so it can fail.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Schema } from "effect";
import { createApp, createHost, defineCommand, type Host } from "elyra-assistant";
import type { LogEvent } from "elyra-assistant/log";
import { sqliteStore } from "elyra-assistant/sqlite";
import { fakeModel, memoryStore } from "elyra-assistant/testing";
import { firstValueFrom } from "rxjs";
import { filter } from "rxjs/operators";
import { afterEach, describe, expect, it } from "vitest";
import { ownerStream } from "../../src/actors/log/userUsage.ts";
import { streamOf } from "../../src/actors/log/windowLog.ts";
import type { EventStore } from "../../src/runtime/log/eventStore.ts";

const ada = { id: "ada" };
const bob = { id: "bob" };

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const appWithNotes = () => {
  const runs: string[] = [];
  const app = createApp({
    commands: [
      defineCommand({
        name: "notes_write",
        description: "Write a note.",
        can: "notes.write",
        args: { text: Schema.String },
        editable: ["text"],
        run: ({ text }) => {
          runs.push(text);
          return { saved: text };
        },
      }),
    ],
    userAbilities: () => ["notes.write"],
    assistant: { allow: ["notes.*"], confirm: ["notes.write"] },
  });
  return { app, runs };
};

/** Ada's thread t1 holds the needle everywhere a person's words go; Bob's thread t2 must survive. */
const plant = async (store: EventStore, needle: string) => {
  const { app, runs } = appWithNotes();
  const host = createHost(app, {
    model: fakeModel()
      .toolCall("notes_write", { text: `asked ${needle}` })
      .says(`Saved it, ${needle}.`)
      .says("Bob's answer."),
    store,
  });
  cleanup.push(() => host.close());
  const w = host.window("t1", { user: ada });
  await w.select("note", [`note-${needle}`]);
  const asked = firstValueFrom(
    w.events$().pipe(filter((e: LogEvent) => e._tag === "ConfirmRequested")),
  );
  const turn = w.prompt(`Remember ${needle} for me`);
  const request = (await asked) as Extract<LogEvent, { _tag: "ConfirmRequested" }>;
  expect(
    await w.confirm(request.confirmId, true, {
      tool: request.tool,
      args: request.args,
      edited: { text: `edited ${needle}` },
    }),
  ).toMatchObject({ _tag: "Answered", edited: true });
  expect((await turn)._tag).toBe("Answered");
  expect(runs).toEqual([`edited ${needle}`]);
  await w.rename(`About ${needle}`);
  await w.settled();
  const b = host.window("t2", { user: bob });
  expect((await b.prompt("Bob keeps this"))._tag).toBe("Answered");
  await b.settled();
  await (w as unknown as { indexed: () => Promise<void> }).indexed();
  await (b as unknown as { indexed: () => Promise<void> }).indexed();
  return host;
};

/** Everything the host can give of Ada, as text: her streams, her threads, her export. */
const whatIsLeft = async (host: Host, store: EventStore, needle: string) => {
  const parts: string[] = [];
  for (const stream of [streamOf("t1"), ownerStream("id:ada")])
    parts.push(JSON.stringify(await store.read(stream, 0)));
  parts.push(JSON.stringify(await host.threads.list({ user: ada })));
  parts.push(JSON.stringify(await host.threads.list({ user: ada, archived: true })));
  parts.push(JSON.stringify(await host.threads.search({ user: ada, text: needle })));
  let exported = "";
  for await (const piece of host.export({ user: ada })) exported += piece;
  parts.push(exported);
  parts.push(JSON.stringify(await host.usage({ user: ada })));
  return parts.join("\n");
};

/** The files of a SQLite store (the database, its WAL and shared memory), as one buffer. */
const fileBytes = async (dir: string) => {
  const files = await readdir(dir);
  return Buffer.concat(await Promise.all(files.map((f) => readFile(join(dir, f)))));
};

const holds = (bytes: Buffer, needle: string) =>
  bytes.includes(Buffer.from(needle, "utf8")) || bytes.includes(Buffer.from(needle, "utf16le"));

describe("host.erase({ user })", () => {
  it("on a shared memory store: nothing of the user is readable after, and Bob's thread is whole", async () => {
    const needle = `needle${randomUUID().replaceAll("-", "")}`;
    const store = memoryStore({ shared: {} });
    const host = await plant(store, needle);
    expect(await whatIsLeft(host, store, needle)).toContain(needle);
    const bobs = await store.read(streamOf("t2"), 0);
    expect(await host.erase({ user: ada })).toEqual({ threads: 1 });
    expect(await whatIsLeft(host, store, needle)).not.toContain(needle);
    expect(host.openWindows()).toBe(1); // Bob's
    expect((await store.read(streamOf("t1"), 0)).map((e) => e._tag)).toEqual(["Erased"]);
    expect(await store.read(streamOf("t2"), 0)).toEqual(bobs);
    expect((await host.threads.list({ user: bob })).threads.map((t) => t.id)).toEqual(["t2"]);
  });

  it("on SQLite: the word is in none of the file's bytes, open or closed, after the erasure", async () => {
    const needle = `needle${randomUUID().replaceAll("-", "")}`;
    const dir = await mkdtemp(join(tmpdir(), "elyra-erasure-"));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const store = sqliteStore(join(dir, "assistant.db"));
    cleanup.push(async () => store.close());
    const host = await plant(store, needle);
    expect(holds(await fileBytes(dir), needle)).toBe(true);
    expect(await host.erase({ user: ada })).toEqual({ threads: 1 });
    expect(await whatIsLeft(host, store, needle)).not.toContain(needle);
    expect(holds(await fileBytes(dir), needle)).toBe(false);
    // Bob's thread, and its search, are untouched.
    expect((await host.threads.search({ user: bob, text: "keeps" })).map((t) => t.id)).toEqual([
      "t2",
    ]);
    await host.close();
    await store.close();
    expect(holds(await fileBytes(dir), needle)).toBe(false);
    // Opened again, the erased thread is a tombstone and Bob's log is whole.
    const again = sqliteStore(join(dir, "assistant.db"));
    cleanup.push(async () => again.close());
    expect((await again.read(streamOf("t1"), 0)).map((e) => e._tag)).toEqual(["Erased"]);
    expect((await again.read(streamOf("t2"), 0)).some((e) => e._tag === "Answered")).toBe(true);
  });
});
