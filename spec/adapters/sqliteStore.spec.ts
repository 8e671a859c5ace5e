import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { createApp, createHost } from "elyra-assistant";
import { StoreInUse, sqliteStore } from "elyra-assistant/sqlite";
import { fakeModel, simulatedClock } from "elyra-assistant/testing";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { windowLog } from "../../src/actors/log/windowLog.ts";
import type { NewEvent } from "../../src/runtime/log/events.ts";
import { SOURCE_NODE_ARGS } from "../fixtures/sourceNode.ts";
import {
  conflictOf,
  deltas,
  everyType,
  numbered,
  storeContract,
} from "../fixtures/storeContract.ts";
import { entry, threadIndexContract } from "../fixtures/threadIndexContract.ts";
import { runs } from "../properties/runs.ts";

const root = join(import.meta.dirname, "..", "..");

storeContract(
  "sqliteStore(':memory:')",
  () => {
    const store = sqliteStore(":memory:");
    return { store, dispose: store.close };
  },
  { durable: true },
);

threadIndexContract("sqliteStore's threads", () => {
  const store = sqliteStore(":memory:");
  return { index: store.threads, dispose: store.close };
});

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

  /** A bare connection to the file, to see and change it from outside a store (none may be open). */
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
    await store.close();
    const db = bare();
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.prepare("SELECT stream, seq, at, type FROM events ORDER BY seq").all()).toEqual([
      { stream: "w1", seq: 1, at: 100, type: "TextDelta" },
      { stream: "w1", seq: 2, at: 101, type: "TextDelta" },
    ]);
    db.close();
  });

  it("a file from before the thread index gains its tables; the index outlives a reopen", async () => {
    const old = bare();
    old.exec(`CREATE TABLE events (stream TEXT NOT NULL, seq INTEGER NOT NULL, at REAL NOT NULL,
      type TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (stream, seq)) WITHOUT ROWID`);
    old.close();
    const first = sqliteStore(file);
    await first.threads.put(entry("t1"), { turn: 1, text: "Invoice 1043" });
    await first.close();
    const again = sqliteStore(file);
    expect(await again.threads.get("id:ada", "t1")).toEqual(entry("t1"));
    expect((await again.threads.search("id:ada", { text: "invo" })).map((t) => t.id)).toEqual([
      "t1",
    ]);
    await again.close();
  });

  it("skips an event of a type it does not know (a newer writer's), and counts its seq", async () => {
    const first = sqliteStore(file);
    await first.append("w1", deltas(1, "before"), 0);
    await first.close();
    const db = bare();
    db.prepare("INSERT INTO events VALUES (?, ?, ?, ?, ?)").run(
      "w1",
      2,
      200,
      "HoloProjected",
      JSON.stringify({ _tag: "HoloProjected", seq: 2, at: 200, turn: 1, hologram: true }),
    );
    db.close();
    const store = sqliteStore(file);
    expect(await store.lastSeq("w1")).toBe(2);
    await store.append("w1", deltas(1, "after"), 2);
    expect(await store.read("w1")).toEqual([
      ...numbered(deltas(1, "before")),
      ...numbered(deltas(1, "after"), 2),
    ]);
    await store.close();
  });

  it("an event of a known type that does not decode is an error, not skipped", async () => {
    await sqliteStore(file).close();
    const db = bare();
    db.prepare("INSERT INTO events VALUES (?, ?, ?, ?, ?)").run(
      "w1",
      1,
      1,
      "Answered",
      JSON.stringify({ _tag: "Answered", seq: 1, at: 1, turn: 1, text: 42 }),
    );
    db.close();
    const store = sqliteStore(file);
    await expect(store.read("w1")).rejects.toThrow(/Expected string, actual 42/);
    await store.close();
  });

  it("while a store has the file open, no other connection reads or writes it", async () => {
    const store = sqliteStore(file);
    await store.append("w1", deltas(1), 0);
    const db = new Database(file, { timeout: 20 });
    expect(() => db.prepare("SELECT count(*) FROM events").get()).toThrow(/database is locked/);
    expect(() => db.exec("DELETE FROM events")).toThrow(/database is locked/);
    db.close();
    expect(await store.read("w1")).toEqual(numbered(deltas(1)));
    await store.close();
  });

  it("a batch that fails while it is written leaves nothing behind", async () => {
    await sqliteStore(file).close();
    const db = bare();
    db.exec(`CREATE TRIGGER third_fails BEFORE INSERT ON events WHEN NEW.seq = 3
      BEGIN SELECT RAISE(ABORT, 'disk says no'); END`);
    db.close();
    const store = sqliteStore(file);
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

/** The StoreInUse `open` threw (failing the test if it opened, or threw something else). */
const refusal = (open: () => unknown): StoreInUse => {
  try {
    open();
  } catch (error) {
    if (error instanceof StoreInUse) return error;
    throw error;
  }
  return expect.fail("the store opened; expected StoreInUse");
};

/** A row as a newer version may write it: a type this code does not know. */
const unknownRow = (seq: number) =>
  JSON.stringify({ _tag: "HoloProjected", seq, at: seq, turn: 1, hologram: true });

describe("sqliteStore, a log whose newest rows are of types this code does not know", () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "elyra-sqlite-"));
    file = join(dir, "events.db");
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Writes `rows` (true: a known event, false: an unknown one) to `stream`, numbered from 1, with no store open. */
  const writeRows = (stream: string, rows: ReadonlyArray<boolean>) => {
    const db = new Database(file);
    db.exec(`CREATE TABLE IF NOT EXISTS events (stream TEXT NOT NULL, seq INTEGER NOT NULL,
      at REAL NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (stream, seq)) WITHOUT ROWID`);
    const insert = db.prepare("INSERT INTO events VALUES (?, ?, ?, ?, ?)");
    rows.forEach((known, i) => {
      const seq = i + 1;
      const data = known ? JSON.stringify({ ...deltas(1, `k${seq}`)[0], seq }) : unknownRow(seq);
      insert.run(stream, seq, seq, known ? "TextDelta" : "HoloProjected", data);
    });
    db.close();
  };

  it("a window over it goes on after the store's last seq, not the last event it knows", async () => {
    const store = sqliteStore(file);
    const turn: NewEvent[] = [
      { _tag: "TurnStarted", at: 1, turn: 1, text: "hi", route: null, note: null },
      { _tag: "Answered", at: 2, turn: 1, text: "Hello." },
    ];
    await store.append("conversation/w1", turn, 0);
    await store.close();
    const db = new Database(file);
    db.prepare("INSERT INTO events VALUES (?, ?, ?, ?, ?)").run(
      "conversation/w1",
      3,
      3,
      "HoloProjected",
      unknownRow(3),
    );
    db.close();

    const reopened = sqliteStore(file);
    const errors: unknown[] = [];
    const app = createApp({ commands: [], userAbilities: () => [], assistant: { allow: [] } });
    const host = createHost(app, {
      model: fakeModel().says("Again."),
      store: reopened,
      onError: (error) => errors.push(error),
    });
    const w = host.window("w1", { user: { name: "Ada" } });
    const end = await Promise.race([
      w.prompt("again"),
      new Promise((resolve) => setTimeout(() => resolve("never settled"), 2_000)),
    ]);
    expect(end).toMatchObject({ _tag: "Answered", text: "Again." });
    expect(errors).toEqual([]);
    const log = await reopened.read("conversation/w1");
    expect(log.slice(0, 2).map((e) => e._tag)).toEqual(["TurnStarted", "Answered"]);
    // A log from before owners were recorded is claimed by the window's user, first.
    expect(log[2]).toMatchObject({ _tag: "WindowOwned", seq: 4, owner: "name:Ada" });
    expect(log[3]).toMatchObject({ _tag: "TurnStarted", seq: 5, turn: 2, text: "again" });
    expect(log.at(-1)).toMatchObject({ _tag: "Answered", turn: 2, text: "Again." });
    await host.close();
    await reopened.close();
  });

  it("for any known and unknown rows, the last seq is the newest row's and a window's log appends after it", async () => {
    let runsSoFar = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { maxLength: 6 }), async (rows) => {
        const stream = `conversation/p${++runsSoFar}`;
        writeRows(stream, rows);
        const store = sqliteStore(file);
        try {
          expect(await store.lastSeq(stream)).toBe(rows.length);
          const known = rows.flatMap((k, i) => (k ? [i + 1] : []));
          expect((await store.read(stream)).map((e) => e.seq)).toEqual(known);
          const log = windowLog(store, stream, simulatedClock(0), () => {});
          await log.reload();
          expect(log.lastSeq()).toBe(rows.length);
          expect(await log.append({ _tag: "Reset", turn: 0 })).toMatchObject({
            seq: rows.length + 1,
          });
          expect(await store.lastSeq(stream)).toBe(rows.length + 1);
        } finally {
          await store.close();
        }
      }),
      { numRuns: runs(1_000) },
    );
  });
});

describe("sqliteStore, one writer per file", () => {
  let dir: string;
  let file: string;
  const children: ChildProcess[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "elyra-sqlite-"));
    file = join(dir, "events.db");
  });
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  });

  /**
   * Starts a process that opens the file, appends one event to "w1" and waits
   * (until killed, or `holdMs`); resolves with what it first says.
   */
  const writer = async (holdMs?: number): Promise<{ child: ChildProcess; said: string }> => {
    const hold = holdMs === undefined ? [] : [String(holdMs)];
    const child = spawn(
      process.execPath,
      [...SOURCE_NODE_ARGS, join("spec", "fixtures", "sqliteWriter.ts"), file, ...hold],
      { cwd: root, stdio: ["ignore", "pipe", "inherit"] },
    );
    children.push(child);
    const said = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("\n")) resolve(out.trim());
      });
      child.once("exit", (code) =>
        out.includes("\n") ? undefined : reject(new Error(`exited ${code}`)),
      );
    });
    return { child, said };
  };

  const exited = (child: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once("exit", () => resolve());
    });

  it("a second store on a file this process writes is refused with StoreInUse, naming the file", async () => {
    const first = sqliteStore(file);
    await first.append("w1", deltas(1), 0);
    const error = refusal(() => sqliteStore(file, { busyTimeoutMs: 20 }));
    expect(error).toMatchObject({ _tag: "StoreInUse", path: file });
    expect(error.message).toBe(
      `SQLite file ${JSON.stringify(file)} is in use by another connection (another sqliteStore, in this process or another): one process writes a file, through one store; close the other first, or give several processes a store made for sharing (postgresStore, from elyra-assistant/postgres)`,
    );
    expect(await first.append("w1", deltas(1), 1)).toHaveLength(1);
    await first.close();
  });

  it("close releases the file: the next store opens it and goes on", async () => {
    const first = sqliteStore(file);
    await first.append("w1", deltas(1), 0);
    await first.close();
    const second = sqliteStore(file, { busyTimeoutMs: 20 });
    expect(await second.lastSeq("w1")).toBe(1);
    await second.close();
  });

  it("a file another process writes is refused; once that process is killed, it opens", async () => {
    const { child, said } = await writer();
    expect(said).toBe("open");
    expect(refusal(() => sqliteStore(file, { busyTimeoutMs: 20 })).path).toBe(file);
    child.kill("SIGKILL");
    await exited(child);
    const store = sqliteStore(file, { busyTimeoutMs: 20 });
    expect(await store.read("w1")).toMatchObject([{ _tag: "Reset", seq: 1 }]);
    await store.close();
  });

  it("opening waits up to busyTimeoutMs for a writer that closes the file (a process being replaced)", async () => {
    const { child, said } = await writer(300);
    expect(said).toBe("open");
    const store = sqliteStore(file, { busyTimeoutMs: 10_000 });
    expect(await store.read("w1")).toMatchObject([{ _tag: "Reset", seq: 1 }]);
    await store.close();
    await exited(child);
    expect(child.exitCode).toBe(0);
  });

  it("a process that finds the file in use says StoreInUse and writes nothing", async () => {
    const store = sqliteStore(file);
    await store.append("w1", deltas(1), 0);
    const { child, said } = await writer();
    expect(said).toMatch(/^refused StoreInUse: SQLite file .* is in use/);
    await exited(child);
    expect(child.exitCode).toBe(1);
    expect(await store.read("w1")).toEqual(numbered(deltas(1)));
    await store.close();
  });
});
