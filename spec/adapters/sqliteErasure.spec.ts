/**
 * Erasure, proved on the bytes: what `sqliteStore`'s `erase` and
 * `threads.remove` delete is found in none of the store's files afterwards
 * (the database, its WAL, its shared memory when there is one), while the
 * store is open and after it closed, and what they did not delete still works.
 */
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { type SqliteStore, sqliteStore } from "elyra-assistant/sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NewEvent } from "../../src/runtime/log/events.ts";
import { deltas, numbered } from "../fixtures/storeContract.ts";
import { entry } from "../fixtures/threadIndexContract.ts";

/** The events of a turn, each carrying `needle` where an event of its type keeps what people wrote or a tool gave. */
const turnWith = (needle: string): NewEvent[] => [
  {
    _tag: "TurnStarted",
    at: 1,
    turn: 1,
    text: `Set the limit of ${needle} to 50 000`,
    route: "/customers/7",
    note: null,
  },
  { _tag: "TextDelta", at: 2, turn: 1, step: 1, text: `Looking up ${needle}.` },
  {
    _tag: "ConfirmRequested",
    at: 3,
    turn: 1,
    confirmId: "c1",
    callId: "toolu_1",
    tool: "customers_update",
    description: "Update a customer.",
    args: { id: 7, name: needle, limit: 50_000 },
  },
  {
    _tag: "ConfirmAnswered",
    at: 4,
    turn: 1,
    confirmId: "c1",
    answer: "accepted",
    edited: true,
    args: { id: 7, name: needle, limit: 40_000 },
  },
  { _tag: "ToolFinished", at: 5, turn: 1, callId: "toolu_1", ok: true, outcome: `ok ${needle}` },
  { _tag: "Answered", at: 6, turn: 1, text: `Done: ${needle} now has 40 000.` },
];

/** Many more events of the stream, some long (overflow pages), so it spans many pages of the file. */
const bulkWith = (needle: string): NewEvent[] =>
  Array.from({ length: 400 }, (_, i) => ({
    _tag: "TextDelta" as const,
    at: 10 + i,
    turn: 2,
    step: 1,
    text: i % 50 === 0 ? `${"filler ".repeat(2_000)}${needle}` : `part ${i} of ${needle}`,
  }));

/** The files of the store at `file` that exist, with their bytes. */
const filesOf = (file: string): Array<{ readonly name: string; readonly bytes: Buffer }> =>
  [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]
    .filter((name) => existsSync(name))
    .map((name) => ({ name, bytes: readFileSync(name) }));

/** The files in which `text` is found, in UTF-8 or UTF-16LE. */
const holding = (file: string, text: string): string[] =>
  filesOf(file)
    .filter(
      ({ bytes }) =>
        bytes.includes(Buffer.from(text, "utf8")) || bytes.includes(Buffer.from(text, "utf16le")),
    )
    .map(({ name }) => name);

describe("sqliteStore erasure, on the file's bytes", () => {
  let dir: string;
  let file: string;
  let store: SqliteStore | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "elyra-erasure-"));
    file = join(dir, "events.db");
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it("erase and remove leave none of a thread's text in the database, its WAL or its index", async () => {
    // One word (letters and digits), so the index's words hold it whole. Its random tail is
    // what is looked for: it is in every copy, whatever a copy was cut or compressed from.
    const needle = `needle${randomUUID().replaceAll("-", "")}`;
    const mark = needle.slice(-24);
    const secret = "conversation/t-secret";
    const other = "conversation/t-other";
    const open = sqliteStore(file);
    store = open;

    // Streams written in turns, so their pages and the index's segments are shared.
    await open.append(other, deltas(50, "invoice"), 0);
    await open.append(secret, turnWith(needle), 0);
    await open.append(other, deltas(50, "payroll"), 50);
    await open.append(secret, bulkWith(needle), 6);
    const otherLog = await open.read(other);
    const secretLast = await open.lastSeq(secret);

    const owner = "id:ada";
    await open.threads.put(entry("t-other", owner, 900), { turn: 1, text: "Invoice 1043 for Bob" });
    await open.threads.put(
      entry("t-secret", owner, 1_000, { title: `About ${needle}`, preview: `Done: ${needle}` }),
      { turn: 1, text: `Set the limit of ${needle} to 50 000\n\nDone: ${needle} now has 40 000.` },
    );
    for (let turn = 2; turn <= 4; turn++)
      await open.threads.put(entry("t-secret", owner, 1_000 + turn, { seq: turn }), {
        turn,
        text: `${"more words ".repeat(turn * 300)} ${needle} again`,
      });
    // A turn's text replaced: the words it had are deleted, then the thread itself.
    await open.threads.put(entry("t-secret", owner, 1_010, { seq: 9 }), {
      turn: 4,
      text: `replaced, still ${needle}`,
    });
    for (let i = 0; i < 30; i++)
      await open.threads.put(entry(`t-filler-${i}`, "id:bob", i), {
        turn: 1,
        text: `filler thread ${i} invoice`,
      });
    expect((await open.threads.search(owner, { text: needle })).map((t) => t.id)).toEqual([
      "t-secret",
    ]);

    // The check can fail: the needle is in the files now.
    expect(holding(file, mark)).not.toEqual([]);
    expect(holding(file, needle)).not.toEqual([]);

    await open.erase(secret, 5_000);
    await open.threads.remove(owner, "t-secret");

    expect(holding(file, mark)).toEqual([]);
    // What is left still works.
    expect(await open.read(other)).toEqual(otherLog);
    expect(await open.read(secret)).toEqual([
      { _tag: "Erased", seq: secretLast + 1, at: 5_000, turn: 0 },
    ]);
    expect(await open.threads.get(owner, "t-secret")).toBeUndefined();
    expect(await open.threads.search(owner, { text: needle })).toEqual([]);
    expect(await open.threads.search(owner, { text: "again" })).toEqual([]);
    expect((await open.threads.search(owner, { text: "invoice 1043" })).map((t) => t.id)).toEqual([
      "t-other",
    ]);
    expect(await open.threads.search("id:bob", { text: "filler" })).toHaveLength(20);

    await open.close();
    store = undefined;
    expect(holding(file, mark)).toEqual([]);

    // The file reads back whole: its index is sound, the tombstone and the other stream are there.
    const bare = new Database(file);
    expect(bare.pragma("integrity_check", { simple: true })).toBe("ok");
    bare.prepare("INSERT INTO thread_words (thread_words) VALUES ('integrity-check')").run();
    bare.close();
    const again = sqliteStore(file);
    store = again;
    expect(await again.read(secret)).toEqual([
      { _tag: "Erased", seq: secretLast + 1, at: 5_000, turn: 0 },
    ]);
    expect(await again.read(other)).toEqual(otherLog);
    expect((await again.threads.search(owner, { text: "bob" })).map((t) => t.id)).toEqual([
      "t-other",
    ]);
    expect(await again.append(secret, deltas(1, "after"), secretLast + 1)).toEqual(
      numbered(deltas(1, "after"), secretLast + 1),
    );
  });

  it("sets the index's secure-delete option in the file", async () => {
    const open = sqliteStore(file);
    store = open;
    await open.close();
    store = undefined;
    const bare = new Database(file);
    expect(
      bare.prepare("SELECT v FROM thread_words_config WHERE k = 'secure-delete'").pluck().get(),
    ).toBe(1);
    bare.close();
  });
});
