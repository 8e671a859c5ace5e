import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { sqliteStore } from "elyra-assistant/sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  conflictOf,
  deltas,
  everyType,
  numbered,
  storeContract,
} from "../fixtures/storeContract.ts";

storeContract(
  "sqliteStore(':memory:')",
  () => {
    const store = sqliteStore(":memory:");
    return { store, dispose: store.close };
  },
  { durable: true },
);

describe("sqliteStore, on a file", () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "elyra-sqlite-"));
    file = join(dir, "events.db");
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A second, bare connection to the file, to see and change it from outside the store. */
  const bare = () => new Database(file);

  it("reopening the file keeps the log, and appends go on from it", async () => {
    const first = sqliteStore(file);
    await first.append("w1", everyType, 0);
    await first.close();
    const again = sqliteStore(file);
    expect(await again.read("w1")).toEqual(numbered(everyType));
    expect(await again.lastSeq("w1")).toBe(everyType.length);
    await conflictOf(again.append("w1", deltas(1), 0));
    await again.append("w1", deltas(1), everyType.length);
    await again.close();
  });

  it("writes in WAL mode, in the one events table", async () => {
    const store = sqliteStore(file);
    await store.append("w1", deltas(2), 0);
    const db = bare();
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.prepare("SELECT stream, seq, at, type FROM events ORDER BY seq").all()).toEqual([
      { stream: "w1", seq: 1, at: 100, type: "TextDelta" },
      { stream: "w1", seq: 2, at: 101, type: "TextDelta" },
    ]);
    db.close();
    await store.close();
  });

  it("skips an event of a type it does not know (a newer writer's), and counts its seq", async () => {
    const store = sqliteStore(file);
    await store.append("w1", deltas(1, "before"), 0);
    const db = bare();
    db.prepare("INSERT INTO events VALUES (?, ?, ?, ?, ?)").run(
      "w1",
      2,
      200,
      "HoloProjected",
      JSON.stringify({ _tag: "HoloProjected", seq: 2, at: 200, turn: 1, hologram: true }),
    );
    db.close();
    expect(await store.lastSeq("w1")).toBe(2);
    await store.append("w1", deltas(1, "after"), 2);
    expect(await store.read("w1")).toEqual([
      ...numbered(deltas(1, "before")),
      ...numbered(deltas(1, "after"), 2),
    ]);
    await store.close();
  });

  it("an event of a known type that does not decode is an error, not skipped", async () => {
    const store = sqliteStore(file);
    const db = bare();
    db.prepare("INSERT INTO events VALUES (?, ?, ?, ?, ?)").run(
      "w1",
      1,
      1,
      "Answered",
      JSON.stringify({ _tag: "Answered", seq: 1, at: 1, turn: 1, text: 42 }),
    );
    db.close();
    await expect(store.read("w1")).rejects.toThrow(/Expected string, actual 42/);
    await store.close();
  });

  it("an append through another connection to the file makes this one's a conflict", async () => {
    const a = sqliteStore(file);
    const b = sqliteStore(file);
    await a.append("w1", deltas(2, "a"), 0);
    expect(await conflictOf(b.append("w1", deltas(1, "b"), 0))).toMatchObject({ actualSeq: 2 });
    expect(await b.read("w1")).toEqual(numbered(deltas(2, "a")));
    await a.close();
    await b.close();
  });

  it("a batch that fails while it is written leaves nothing behind", async () => {
    const store = sqliteStore(file);
    const db = bare();
    db.exec(`CREATE TRIGGER third_fails BEFORE INSERT ON events WHEN NEW.seq = 3
      BEGIN SELECT RAISE(ABORT, 'disk says no'); END`);
    db.close();
    await expect(store.append("w1", deltas(5), 0)).rejects.toThrow("disk says no");
    expect(await store.read("w1")).toEqual([]);
    expect(await store.lastSeq("w1")).toBe(0);
    await store.close();
  });
});

describe("sqliteStore, checks on append", () => {
  it("refuses a batch with an event that does not match LogEvent, and writes none of it", async () => {
    const store = sqliteStore(":memory:");
    const bad = { _tag: "TextDelta", at: 1, turn: 1, step: -1, text: "x" } as const;
    await expect(store.append("w1", [...deltas(2), bad], 0)).rejects.toThrow(/step/);
    expect(await store.read("w1")).toEqual([]);
    await store.close();
  });

  it("refuses an event that would not read back (at: NaN becomes null in JSON)", async () => {
    const store = sqliteStore(":memory:");
    const nan = { _tag: "Reset", at: Number.NaN, turn: 0 } as const;
    await expect(store.append("w1", [...deltas(1), nan], 0)).rejects.toThrow(/at/);
    expect(await store.lastSeq("w1")).toBe(0);
    await store.append("w1", deltas(1), 0);
    expect(await store.read("w1")).toEqual(numbered(deltas(1)));
    await store.close();
  });

  it("gives back from append exactly what read gives", async () => {
    const store = sqliteStore(":memory:");
    const appended = await store.append("w1", everyType, 0);
    expect(await store.read("w1")).toStrictEqual(appended);
    await store.close();
  });

  it("a closed store refuses to work", async () => {
    const store = sqliteStore(":memory:");
    await store.close();
    await expect(store.read("w1")).rejects.toThrow(/not open/);
    await expect(store.append("w1", deltas(1), 0)).rejects.toThrow(/not open/);
  });
});
