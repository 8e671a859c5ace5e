/**
 * postgresStore's writer leases against a real PostgreSQL 15 on loopback: the
 * WriterLeases contract (a fresh schema per test; every joined host a
 * "process" of its own, a store with its own pool, whose close is its
 * crash), then what only a database shows: two processes racing to take a
 * stream, two processes appending at one seq under their leases, and a
 * message sent while its host's LISTEN connection was cut.
 */
import { type PostgresStore, postgresStore } from "elyra-assistant/postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { channelOf } from "../../src/adapters/store/postgres/changes.ts";
import type { Membership, Writer, WriterLeases } from "../../src/runtime/log/writerLeases.ts";
import { deltas } from "../fixtures/storeContract.ts";
import {
  havePostgres,
  type PostgresServer,
  postgresSuite,
  startPostgres,
} from "./postgresServer.ts";
import { settle, until, writerLeasesContract } from "./writerLeases.contract.ts";

/** Short, for real timers: a heartbeat every 100 ms, a lease of 400 ms. */
const LEASE_MS = 400;
const HEARTBEAT_MS = 100;

describe.skipIf(!havePostgres)(postgresSuite("postgresLeases"), () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  let schemas = 0;
  /** A schema no other test uses. */
  const fresh = () => `leases_${++schemas}`;
  /** Stores a test opened, closed (and their schemas dropped) after it. */
  let opened: PostgresStore[] = [];
  const open = (schema: string, leaseMs = LEASE_MS, heartbeatMs = HEARTBEAT_MS) => {
    const store = postgresStore(server.url, { schema, leaseMs, heartbeatMs });
    opened.push(store);
    return store;
  };
  const closeAll = async (schema: string) => {
    await Promise.all(opened.map((store) => store.close()));
    opened = [];
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  };

  beforeAll(async () => {
    server = await startPostgres();
    admin = new pg.Pool({ connectionString: server.url });
    admin.on("error", () => {});
  });
  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });

  writerLeasesContract("postgresLeases (a fresh schema per test)", async () => {
    const schema = fresh();
    const store = open(schema);
    await store.ready();
    /** The store of each joined host: its process. */
    const processes = new Map<string, PostgresStore>();
    const members: Array<{ process: PostgresStore; member: Membership }> = [];
    const leases: WriterLeases = {
      leaseMs: store.leases.leaseMs,
      join: async (holder, onMessage) => {
        const process = open(schema);
        processes.set(holder, process);
        const member = await process.leases.join(holder, onMessage);
        members.push({ process, member });
        return member;
      },
      acquire: store.leases.acquire,
      release: store.leases.release,
      send: store.leases.send,
    };
    return {
      store,
      leases,
      // A joined host's process dies (its store closes: no heartbeat, no messages); one that
      // never joined simply stops beating. Either way its lease runs out leaseMs later.
      expire: async (holder) => {
        const process = processes.get(holder);
        processes.delete(holder);
        await process?.close();
        await settle(LEASE_MS + 50);
      },
      pass: (ms) => settle(ms),
      close: async () => {
        for (const { member } of members) await member.leave().catch(() => undefined);
        await closeAll(schema);
      },
    };
  });

  it("two processes taking 50 fresh streams at once: each stream is Taken by one, Held naming it for the other", async () => {
    const schema = fresh();
    try {
      const one = open(schema, 5_000, 1_000);
      const two = open(schema, 5_000, 1_000);
      await Promise.all([one.ready(), two.ready()]);
      const streams = Array.from({ length: 50 }, (_, i) => `race/${i}`);
      const takings = await Promise.all(
        streams.map((stream) =>
          Promise.all([one.leases.acquire(stream, "one"), two.leases.acquire(stream, "two")]),
        ),
      );
      const tokens = new Set<number>();
      for (const [a, b] of takings) {
        const winners = [a, b].filter((t) => t._tag === "Taken");
        expect(winners).toHaveLength(1);
        const winner = a._tag === "Taken" ? "one" : "two";
        expect(a._tag === "Taken" ? b : a).toEqual({ _tag: "Held", holder: winner });
        const taken = winners[0]!;
        if (taken._tag === "Taken") {
          expect(taken.tookOver).toBe(false);
          tokens.add(taken.token);
        }
      }
      // Every taking had a token of its own.
      expect(tokens.size).toBe(50);
      const { rows } = await admin.query(
        `SELECT count(*)::int AS n FROM "${schema}".elyra_events_leases`,
      );
      expect(rows).toEqual([{ n: 50 }]);
    } finally {
      await closeAll(schema);
    }
  });

  it("two processes appending at one seq, each under its own lease attempt: one wins each seq, the log is one line", async () => {
    const schema = fresh();
    try {
      const processes = [
        { name: "one", store: open(schema, 5_000, 1_000), last: undefined as Writer | undefined },
        { name: "two", store: open(schema, 5_000, 1_000), last: undefined as Writer | undefined },
      ];
      await Promise.all(processes.map((p) => p.store.ready()));
      const stream = "contended";
      const winners: string[] = [];
      for (let round = 0; round < 30; round++) {
        const seq = await processes[0]!.store.lastSeq(stream);
        const outcomes = await Promise.all(
          processes.map(async (p) => {
            const taking = await p.store.leases.acquire(stream, p.name);
            // Held: it writes anyway, under the last lease it had (a zombie's append).
            const writer =
              taking._tag === "Taken"
                ? { holder: p.name, token: taking.token }
                : (p.last ?? { holder: p.name, token: 0 });
            p.last = writer;
            try {
              await p.store.append(stream, deltas(1, `${p.name}@${round}`), seq, writer);
              return "ok";
            } catch (error) {
              return (error as { _tag?: string })._tag ?? String(error);
            } finally {
              if (taking._tag === "Taken") await p.store.leases.release(stream, writer);
            }
          }),
        );
        expect(outcomes.filter((o) => o === "ok")).toHaveLength(1);
        for (const outcome of outcomes)
          expect(["ok", "AppendConflict", "LeaseLost"]).toContain(outcome);
        winners.push(processes[outcomes.indexOf("ok")]!.name);
      }
      const log = await processes[1]!.store.read(stream);
      expect(log.map((e) => e.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      expect(log.map((e) => (e as { text?: string }).text)).toEqual(
        winners.map((name, round) => `${name}@${round}0`),
      );
    } finally {
      await closeAll(schema);
    }
  });

  it("a message sent while its host's LISTEN connection was cut is delivered once, after it listens again", async () => {
    const schema = fresh();
    try {
      const receiver = open(schema);
      const sender = open(schema);
      await Promise.all([receiver.ready(), sender.ready()]);
      const listening = async (): Promise<number[]> =>
        (
          await admin.query(
            "SELECT pid FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND query = $1",
            [`LISTEN "${channelOf(schema, "elyra_events")}"`],
          )
        ).rows.map((row: { pid: number }) => row.pid);
      const got: unknown[] = [];
      const member = await receiver.leases.join("rx", (message) => got.push(message));
      await sender.leases.send("rx", { n: 0 });
      await until(() => got.length === 1, 3_000, "the first message");
      const [pid] = await listening();
      expect(pid).toBeDefined();
      await admin.query("SELECT pg_terminate_backend($1)", [pid]);
      await sender.leases.send("rx", { n: 1 });
      await sender.leases.send("rx", { n: 2 });
      // Sent while no one listened (the feed waits 100 ms before it listens again).
      expect((await listening()).filter((p) => p !== pid)).toEqual([]);
      await until(async () => (await listening()).some((p) => p !== pid), 3_000, "LISTEN again");
      await until(() => got.length >= 3, 3_000, "the messages sent in the gap");
      await settle(300);
      expect(got).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
      const { rows } = await admin.query(
        `SELECT count(*)::int AS n FROM "${schema}".elyra_events_messages`,
      );
      expect(rows).toEqual([{ n: 0 }]);
      await member.leave();
    } finally {
      await closeAll(schema);
    }
  });

  it("an empty append under a lease that is not the stream's is refused, as one with events is", async () => {
    const schema = fresh();
    const store = open(schema);
    await expect(store.append("w", [], 0, { holder: "nobody", token: 99 })).rejects.toMatchObject({
      _tag: "LeaseLost",
      holder: "nobody",
    });
    const taken = await store.leases.acquire("w", "a");
    if (taken._tag !== "Taken") throw new Error("free, so taken");
    expect(await store.append("w", [], 0, { holder: "a", token: taken.token })).toEqual([]);
    await closeAll(schema);
  });

  it("a message older than a lease when its host reads it is dropped, not done: a late stop stops nothing", async () => {
    const schema = fresh();
    const sender = open(schema);
    await sender.ready();
    // Sent to a host that is not listening yet; it joins after a lease has passed.
    await sender.leases.send("late", { n: "stale" });
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 100));
    await sender.leases.send("late", { n: "fresh" });
    const got: unknown[] = [];
    const receiver = open(schema);
    await receiver.leases.join("late", (message) => got.push(message));
    await until(() => got.length >= 1, 5_000);
    await settle(300);
    expect(got).toEqual([{ n: "fresh" }]);
    // Both are gone from the table: the stale one was claimed and dropped.
    const { rows } = await admin.query(
      `SELECT count(*)::int AS n FROM "${schema}".elyra_events_messages`,
    );
    expect(rows).toEqual([{ n: 0 }]);
    await closeAll(schema);
  });
});
