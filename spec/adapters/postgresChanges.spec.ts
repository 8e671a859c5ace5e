/**
 * postgresStore's change feed against a real PostgreSQL 15 on loopback: two
 * stores on one database (two pools, as two processes), NOTIFY only at
 * commit, a LISTEN connection killed and made again (Resync), unsubscribe,
 * close, and a listener that throws.
 */
import type { StoreChange } from "elyra-assistant/log";
import { type PostgresStore, postgresStore } from "elyra-assistant/postgres";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { changeFeed } from "../../src/adapters/store/postgres/changes.ts";
import { deltas } from "../fixtures/storeContract.ts";
import {
  havePostgres,
  type PostgresServer,
  postgresSuite,
  startPostgres,
} from "./postgresServer.ts";

/** Polls `check` every 10 ms until it holds, failing after `ms`. */
const until = async (check: () => boolean | Promise<boolean>, ms = 5_000): Promise<number> => {
  const start = performance.now();
  while (!(await check())) {
    if (performance.now() - start > ms) expect.fail(`not so after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return performance.now() - start;
};

const appended = (changes: ReadonlyArray<StoreChange>) =>
  changes.filter((change) => change._tag === "Appended");
const resyncs = (changes: ReadonlyArray<StoreChange>) =>
  changes.filter((change) => change._tag === "Resync").length;

describe.skipIf(!havePostgres)(postgresSuite("postgresStore changes"), () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  let opened: Array<{ close: () => Promise<void> } | pg.Pool> = [];
  let schemas = 0;

  beforeAll(async () => {
    server = await startPostgres();
    admin = new pg.Pool({ connectionString: server.url });
    admin.on("error", () => {});
  });
  afterEach(async () => {
    for (const made of opened.reverse())
      await (made instanceof pg.Pool ? made.end() : made.close());
    opened = [];
  });
  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });

  /** Two stores on one fresh schema: A from a connection string, B over a pool of its own. */
  const twoProcesses = async (): Promise<{ a: PostgresStore; b: PostgresStore }> => {
    const schema = `changes_${++schemas}`;
    const a = postgresStore(server.url, { schema });
    const pool = new pg.Pool({ connectionString: server.url });
    pool.on("error", () => {});
    const b = postgresStore(pool, { schema });
    opened.push(pool, a, b);
    await a.ready();
    return { a, b };
  };

  /** The pids of the connections listening now. */
  const listening = async (): Promise<number[]> =>
    (
      await admin.query(
        "SELECT pid FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()",
      )
    ).rows.map((row: { pid: number }) => row.pid);

  /** Subscribes, and resolves once the feed listens (its first Resync). */
  const subscribe = async (store: PostgresStore) => {
    const seen: StoreChange[] = [];
    const stop = store.changes((change) => seen.push(change));
    await until(() => resyncs(seen) === 1);
    return { seen, stop };
  };

  it("B is told A's appends, stream and last seq, in order per stream, and its own", async () => {
    const { a, b } = await twoProcesses();
    const start = performance.now();
    const { seen } = await subscribe(b);
    const listened = performance.now() - start;
    await a.append("w1", deltas(2), 0);
    await a.append("w2", deltas(1), 0);
    await a.append("w1", deltas(3), 2);
    await b.append("w2", deltas(1), 1);
    const told = await until(() => appended(seen).length === 4);
    expect(seen).toEqual([
      { _tag: "Resync" },
      { _tag: "Appended", stream: "w1", seq: 2 },
      { _tag: "Appended", stream: "w2", seq: 1 },
      { _tag: "Appended", stream: "w1", seq: 5 },
      { _tag: "Appended", stream: "w2", seq: 2 },
    ]);
    console.info(`listening after ${listened.toFixed(0)} ms; told ${told.toFixed(0)} ms after`);
  });

  it("an append that rolls back tells nothing", async () => {
    const { a, b } = await twoProcesses();
    const { seen } = await subscribe(b);
    await a.append("w1", deltas(1), 0);
    // A conflict found by the check …
    await expect(a.append("w1", deltas(1), 0)).rejects.toMatchObject({ _tag: "AppendConflict" });
    // … and one found by the key, once the insert ran: a row written past the lock, committed
    // while the append's insert waits for it.
    const other = await admin.connect();
    try {
      await other.query("BEGIN");
      await other.query(
        `INSERT INTO "changes_${schemas}".elyra_events VALUES ('w2', 1, 1, 'Reset', '{"_tag":"Reset","seq":1,"at":1,"turn":0}')`,
      );
      const append = a.append("w2", deltas(2), 0);
      await until(
        async () =>
          (
            await admin.query(
              "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%WITH found AS%'",
            )
          ).rows.length === 1,
      );
      await other.query("COMMIT");
      await expect(append).rejects.toMatchObject({ _tag: "AppendConflict", actualSeq: 1 });
    } finally {
      await other.query("ROLLBACK");
      other.release();
    }
    await a.append("w3", deltas(1), 0);
    // Notifications arrive in commit order: once w3's is here, any before it is too.
    await until(() => appended(seen).length >= 2);
    expect(appended(seen)).toEqual([
      { _tag: "Appended", stream: "w1", seq: 1 },
      { _tag: "Appended", stream: "w3", seq: 1 },
    ]);
  });

  it("a killed LISTEN connection is made again, with Resync, and then tells appends again", async () => {
    const { a, b } = await twoProcesses();
    const { seen } = await subscribe(b);
    const [pid, ...others] = await listening();
    expect(others).toEqual([]);
    const start = performance.now();
    await admin.query("SELECT pg_terminate_backend($1)", [pid]);
    await until(() => resyncs(seen) === 2);
    const back = performance.now() - start;
    const [again] = await listening();
    expect(again).not.toBe(pid);
    await a.append("w1", deltas(1), 0);
    await until(() => appended(seen).length === 1);
    expect(seen).toEqual([
      { _tag: "Resync" },
      { _tag: "Resync" },
      { _tag: "Appended", stream: "w1", seq: 1 },
    ]);
    // Killed twice in a row, it comes back each time (the backoff starts over once it listens).
    await admin.query("SELECT pg_terminate_backend($1)", [again]);
    await until(() => resyncs(seen) === 3);
    await a.append("w1", deltas(1), 1);
    await until(() => appended(seen).length === 2);
    console.info(`listening again ${back.toFixed(0)} ms after the kill`);
  });

  it("unsubscribing stops the telling; the last one ends the LISTEN connection", async () => {
    const { a, b } = await twoProcesses();
    const first = await subscribe(b);
    const second: StoreChange[] = [];
    const stopSecond = b.changes((change) => second.push(change));
    expect(await listening()).toHaveLength(1);
    await a.append("w1", deltas(1), 0);
    await until(() => appended(first.seen).length === 1 && appended(second).length === 1);
    first.stop();
    first.stop();
    await a.append("w1", deltas(1), 1);
    await until(() => appended(second).length === 2);
    expect(appended(first.seen)).toHaveLength(1);
    expect(await listening()).toHaveLength(1);
    stopSecond();
    await until(async () => (await listening()).length === 0);
    await a.append("w1", deltas(1), 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(appended(second)).toHaveLength(2);
    // A new subscriber listens again.
    const third = await subscribe(b);
    await a.append("w1", deltas(1), 3);
    await until(() => appended(third.seen).length === 1);
    expect(appended(third.seen)).toEqual([{ _tag: "Appended", stream: "w1", seq: 4 }]);
  });

  it("close ends the LISTEN connection; a closed store tells nothing", async () => {
    const { a, b } = await twoProcesses();
    const { seen } = await subscribe(b);
    expect(await listening()).toHaveLength(1);
    await b.close();
    await until(async () => (await listening()).length === 0);
    await a.append("w1", deltas(1), 0);
    const late: StoreChange[] = [];
    b.changes((change) => late.push(change))();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen).toEqual([{ _tag: "Resync" }]);
    expect(late).toEqual([]);
    expect(await listening()).toHaveLength(0);
  });

  it("a listener that throws does not stop the others, nor the feed", async () => {
    const { a, b } = await twoProcesses();
    b.changes(() => {
      throw new Error("boom");
    });
    const { seen } = await subscribe(b);
    await a.append("w1", deltas(1), 0);
    await a.append("w1", deltas(1), 1);
    await until(() => appended(seen).length === 2);
  });

  it("a stream whose name would pass NOTIFY's limit is told as Resync", async () => {
    const { a, b } = await twoProcesses();
    const { seen } = await subscribe(b);
    await a.append("x".repeat(5_000), deltas(1), 0);
    await a.append("w1", deltas(1), 0);
    await until(() => appended(seen).length === 1);
    expect(seen).toEqual([
      { _tag: "Resync" },
      { _tag: "Resync" },
      { _tag: "Appended", stream: "w1", seq: 1 },
    ]);
  });

  it("stores on two tables are not told each other's appends", async () => {
    const { b } = await twoProcesses();
    const other = postgresStore(server.url, { schema: `changes_${schemas}`, table: "other" });
    opened.push(other);
    const { seen } = await subscribe(b);
    await other.append("w1", deltas(1), 0);
    await b.append("w9", deltas(1), 0);
    await until(() => appended(seen).length === 1);
    expect(appended(seen)).toEqual([{ _tag: "Appended", stream: "w9", seq: 1 }]);
  });
});

describe("changeFeed's retries", () => {
  it("wait 100 ms, doubling to 5 s, and stop at close", async () => {
    vi.useFakeTimers();
    try {
      const tries: number[] = [];
      const feed = changeFeed("elyra_test", async () => {
        tries.push(Date.now());
        throw new Error("ECONNREFUSED");
      });
      const start = Date.now();
      feed.subscribe(() => {});
      await vi.advanceTimersByTimeAsync(20_000);
      expect(tries.map((at) => at - start)).toEqual([
        0, 100, 300, 700, 1_500, 3_100, 6_300, 11_300, 16_300,
      ]);
      feed.close();
      await vi.advanceTimersByTimeAsync(20_000);
      expect(tries).toHaveLength(9);
    } finally {
      vi.useRealTimers();
    }
  });
});
