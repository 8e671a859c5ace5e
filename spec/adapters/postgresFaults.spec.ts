/**
 * postgresStore when PostgreSQL itself misbehaves (issue 29): backends
 * killed under appends and under the LISTEN connection (a failover, an
 * idle-in-transaction timeout, a pooler restart), a holder stalled inside
 * an append's transaction, and an append without a writer on a store that
 * has leases. A database fault is a store fault: a rejection with the
 * store's error, never an uncaught error, and the store works afterwards.
 */
import { createHost } from "elyra-assistant";
import type { EventStore, StoreChange } from "elyra-assistant/log";
import {
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresStore,
  PostgresUnavailable,
  PostgresWriterRequired,
  postgresStore,
} from "elyra-assistant/postgres";
import { fakeModel } from "elyra-assistant/testing";
import fc from "fast-check";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PostgresConfigError } from "../../src/adapters/store/postgres/errors.ts";
import { settingsOf } from "../../src/adapters/store/postgres/options.ts";
import { spyApp, type TestUser } from "../fixtures/spyCommands.ts";
import { deltas, numbered } from "../fixtures/storeContract.ts";
import {
  havePostgres,
  type PostgresServer,
  postgresSuite,
  startPostgres,
} from "./postgresServer.ts";

/** Polls `check` every 10 ms until it holds, failing after `ms`. */
const until = async (check: () => boolean | Promise<boolean>, ms = 10_000): Promise<number> => {
  const start = performance.now();
  while (!(await check())) {
    if (performance.now() - start > ms) expect.fail(`not so after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return performance.now() - start;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ada: TestUser = { name: "Ada", abilities: ["customers.*"] };

/** The rejection of `promise` (a resolution fails the test), and how long it took. */
const rejectionOf = async (promise: Promise<unknown>) => {
  const start = performance.now();
  const error = await promise.then(
    () => expect.fail("it resolved; expected a rejection"),
    (e: unknown) => e,
  );
  return { error: error as { _tag?: string; code?: string | null }, ms: performance.now() - start };
};

/**
 * A pool whose process can be paused: once `pause()` is called, the next
 * statement `stallsAt` matches, and every statement after it, waits until
 * `resume()`, as a stopped process sends nothing. Its connection stays open
 * and its transaction with it: what a host paused (SIGSTOP, a frozen VM)
 * inside an append leaves on the server.
 */
const pausable = (inner: pg.Pool, stallsAt: (text: string) => boolean) => {
  let paused: { gate: Promise<void>; open: () => void; stalled: boolean } | undefined;
  let stalledOnce: () => void = () => {};
  const stalledNow = new Promise<void>((resolve) => {
    stalledOnce = resolve;
  });
  const pool: PostgresPool = {
    connect: async () => {
      const client = await inner.connect();
      const lent: PostgresPoolClient & Pick<pg.PoolClient, "on" | "off"> = {
        query: async (text: string, values?: unknown[]) => {
          if (paused !== undefined && (paused.stalled || stallsAt(text))) {
            paused.stalled = true;
            stalledOnce();
            await paused.gate;
          }
          return client.query(text, values);
        },
        release: (destroy) => client.release(destroy),
        on: ((event: string, listener: () => void) =>
          client.on(event as "error", listener)) as never,
        off: ((event: string, listener: () => void) =>
          client.off(event as "error", listener)) as never,
      };
      return lent;
    },
    end: () => inner.end(),
  };
  return {
    pool,
    pause: () => {
      let open = () => {};
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      paused = { gate, open, stalled: false };
    },
    /** Resolves once a statement of the paused process is held. */
    stalled: () => stalledNow,
    resume: () => {
      paused?.open();
      paused = undefined;
    },
  };
};

describe("the bounds of a postgresStore's waits", () => {
  const url = "postgres://127.0.0.1/x";
  it("are derived from the lease unless given: idle in a transaction a lease, a lock wait two, a statement three, keepalive a lease", () => {
    fc.assert(
      fc.property(fc.integer({ min: 30, max: 10_000_000 }), (leaseMs) => {
        const s = settingsOf(url, { leaseMs });
        expect(s.idleInTransactionMs).toBe(leaseMs);
        expect(s.lockTimeoutMs).toBe(2 * leaseMs);
        expect(s.statementTimeoutMs).toBe(3 * leaseMs);
        expect(s.keepAliveMs).toBe(leaseMs);
        // A wait behind a stalled holder of the store ends when the server ends that holder's
        // transaction, before the wait's own bound, and the statement's bound is the last.
        expect(s.idleInTransactionMs).toBeLessThan(s.lockTimeoutMs);
        expect(s.lockTimeoutMs).toBeLessThan(s.statementTimeoutMs);
      }),
    );
    expect(settingsOf(url, {})).toMatchObject({
      leaseMs: 5_000,
      idleInTransactionMs: 5_000,
      lockTimeoutMs: 10_000,
      statementTimeoutMs: 15_000,
      keepAliveMs: 5_000,
    });
  });

  it("given, are taken as they are, 0 leaving the server's setting; anything else is refused", () => {
    expect(
      settingsOf(url, {
        idleInTransactionMs: 0,
        lockTimeoutMs: 250,
        statementTimeoutMs: 0,
        keepAliveMs: 0,
      }),
    ).toMatchObject({
      idleInTransactionMs: 0,
      lockTimeoutMs: 250,
      statementTimeoutMs: 0,
      keepAliveMs: 0,
    });
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, "10" as never])
      for (const name of [
        "idleInTransactionMs",
        "lockTimeoutMs",
        "statementTimeoutMs",
        "keepAliveMs",
      ])
        expect(() => settingsOf(url, { [name]: bad })).toThrow(PostgresConfigError);
    expect(() => settingsOf(url, { lockTimeoutMs: -1 })).toThrow(
      /lockTimeoutMs must be a whole number of ms from 0 \(the server's setting\)/,
    );
  });
});

describe.skipIf(!havePostgres)(postgresSuite("postgresStore faults"), () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  let names = 0;
  const opened: Array<{ close: () => Promise<void> } | pg.Pool> = [];
  /** Paused processes, resumed after each test whatever it found, so that their pools end. */
  const pausedOnes: Array<{ resume: () => void }> = [];
  /** What reached the process uncaught while a test ran. */
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);

  beforeAll(async () => {
    server = await startPostgres();
    admin = new pg.Pool({ connectionString: server.url });
    admin.on("error", () => {});
    process.on("uncaughtException", onUncaught);
    process.on("unhandledRejection", onUncaught);
  });
  afterEach(async () => {
    for (const one of pausedOnes.splice(0)) one.resume();
    for (const made of opened.reverse())
      await (made instanceof pg.Pool ? made.end() : made.close()).catch(() => {});
    opened.length = 0;
  });
  afterAll(async () => {
    process.off("uncaughtException", onUncaught);
    process.off("unhandledRejection", onUncaught);
    await admin?.end();
    await server?.stop();
  });

  /** A name for a schema and the application_name of its store's connections. */
  const fresh = () => `faults_${++names}`;
  const storeOf = (name: string, options = {}) => {
    const store = postgresStore(`${server.url}?application_name=${name}`, {
      schema: name,
      ...options,
    });
    opened.push(store);
    return store;
  };
  /** Kills every backend of `name`'s connections; resolves with how many. */
  const kill = async (name: string, where = "true"): Promise<number> =>
    (
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE application_name = $1 AND pid <> pg_backend_pid() AND ${where}`,
        [name],
      )
    ).rows.length;

  /**
   * A connection of another program in an open transaction holding
   * `stream`'s lock in `schema`: the lock an append takes (decision (ah)),
   * with no bound of the store's on it.
   */
  const holdingLock = async (schema: string, stream: string): Promise<pg.PoolClient> => {
    const other = await admin.connect();
    await other.query("BEGIN");
    await other.query("SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))", [
      `${schema}.elyra_events`,
      stream,
    ]);
    return other;
  };
  /** Ends `other`'s transaction and gives it back. */
  const letGo = async (other: pg.PoolClient) => {
    await other.query("ROLLBACK").catch(() => {});
    other.release();
  };
  /** Whether a backend of `name` waits for a lock now. */
  const waitingForLock = async (name: string) =>
    (
      await admin.query(
        "SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
        [name],
      )
    ).rows.length > 0;

  /** Appends to `streams` in a loop until `stop()`; counts what resolved and what rejected. */
  const appending = (store: PostgresStore, streams: ReadonlyArray<string>) => {
    const outcome = { stored: 0, failed: [] as unknown[] };
    let running = true;
    const loops = streams.map(async (stream) => {
      while (running) {
        try {
          const at = await store.lastSeq(stream);
          await store.append(stream, deltas(2), at);
          outcome.stored++;
        } catch (error) {
          outcome.failed.push(error);
          await sleep(5);
        }
      }
    });
    return {
      outcome,
      stop: async () => {
        running = false;
        await Promise.all(loops);
        return outcome;
      },
    };
  };

  describe("a killed backend", () => {
    it("under appends in a loop: each fails as PostgresUnavailable, nothing is uncaught, the store works after", async () => {
      const name = fresh();
      const store = storeOf(name);
      await store.ready();
      uncaught.length = 0;
      const loop = appending(store, ["w1", "w2", "w3", "w4", "w5", "w6"]);
      // Kills at every moment of a connection's life: connecting, lent, in a transaction, idle.
      let killed = 0;
      const end = performance.now() + 2_500;
      for (let round = 0; performance.now() < end; round++) {
        // Now and then a quiet spell, so that some appends get through.
        await sleep(round % 10 === 0 ? 60 : round % 5);
        killed += await kill(name);
      }
      const { stored, failed } = await loop.stop();
      await sleep(200);
      expect(uncaught).toEqual([]);
      expect(killed).toBeGreaterThan(0);
      expect(stored).toBeGreaterThan(0);
      for (const error of failed) expect(error).toBeInstanceOf(PostgresUnavailable);
      const at = await store.lastSeq("w1");
      await store.append("w1", deltas(1), at);
      expect(await store.lastSeq("w1")).toBe(at + 1);
      console.info(`${killed} backends killed; ${stored} appends stored, ${failed.length} failed`);
    });

    it("the LISTEN connection killed: nothing is uncaught, the feed listens again and tells Resync", async () => {
      const name = fresh();
      const store = storeOf(name);
      const seen: StoreChange[] = [];
      store.changes((change) => seen.push(change));
      await until(() => seen.length === 1);
      uncaught.length = 0;
      const loop = appending(store, ["w1", "w2"]);
      await sleep(50);
      expect(await kill(name, "query LIKE 'LISTEN%'")).toBe(1);
      const resynced = await until(
        () => seen.filter((change) => change._tag === "Resync").length === 2,
      );
      // Then every backend of the store, again and again: the feed's connection too, as it is
      // made again.
      const end = performance.now() + 1_500;
      for (let round = 0; performance.now() < end; round++) {
        await sleep(round % 7);
        await kill(name);
      }
      const { stored } = await loop.stop();
      // The feed listens again after the storm: an append then is told. The storm's last kill
      // may or may not have cut the feed's newest connection, so no further Resync is awaited;
      // an append the store refused while its pool reconnects is simply made again.
      await until(async () => {
        const at = await store.lastSeq("w9").catch(() => -1);
        if (at >= 0) await store.append("w9", deltas(1), at).catch(() => undefined);
        await sleep(100);
        return seen.some((change) => change._tag === "Appended" && change.stream === "w9");
      });
      await sleep(200);
      expect(uncaught).toEqual([]);
      expect(stored).toBeGreaterThan(0);
      console.info(`Resync ${resynced.toFixed(0)} ms after the LISTEN backend was killed`);
    });
  });

  describe("a killed backend, through a host", () => {
    it("a turn whose append is cut fails as a store fault; the host lives and the next prompt is answered", async () => {
      const name = fresh();
      const store = storeOf(name);
      await store.ready();
      uncaught.length = 0;
      let other: pg.PoolClient | undefined;
      // Once the turn has started, another program takes the window's lock, so that the turn's
      // next append waits at the database: it is killed there.
      const seen: EventStore = {
        ...store,
        append: async (stream, events, expectedSeq, writer) => {
          const added = await store.append(stream, events, expectedSeq, writer);
          if (other === undefined && events.some((event) => event._tag === "TurnStarted"))
            other = await holdingLock(name, stream);
          return added;
        },
      };
      const errors: unknown[] = [];
      const host = createHost(spyApp(), {
        model: fakeModel().says("Hi.").says("Hello again."),
        store: seen,
        onError: (error) => errors.push(error),
      });
      opened.push(host);
      const w = host.window("w", { user: ada });
      await w.settled();
      const first = w.prompt("hello").then(
        (end) => end,
        (error: unknown) => error,
      );
      await until(() => waitingForLock(name));
      expect(await kill(name, "wait_event_type = 'Lock'")).toBe(1);
      // And every other backend of the host, for a while: its pool's, its LISTEN connection's,
      // as they are made again (a failover's storm).
      const storm = performance.now() + 600;
      for (let round = 0; performance.now() < storm; round++) {
        await sleep(round % 4);
        await kill(name);
      }
      if (other !== undefined) await letGo(other);
      const end = await first;
      // The turn had started: it ends Failed (the window, rebuilt from its log, records it
      // interrupted), or its prompt rejects with the store's error when the storm cut the
      // window's reads too; the host is told the store's error either way.
      if (end instanceof Error) expect(end).toBeInstanceOf(PostgresUnavailable);
      else expect(end).toMatchObject({ _tag: "Failed" });
      expect(errors.some((error) => error instanceof PostgresUnavailable)).toBe(true);
      // The next request, as the HTTP host makes it (the window by its client id), gets new
      // connections and is answered. (A window whose own recovery read the storm cut stays
      // failed: the host opens it again from its log.)
      await w.settled().catch(() => {});
      const next = host.window("w", { user: ada });
      expect((await next.prompt("again"))._tag).toBe("Answered");
      await sleep(100);
      expect(uncaught).toEqual([]);
    });
  });

  describe("a holder stalled inside an append", () => {
    it("another store's append waiting for the lock fails within lockTimeoutMs as a store fault, and may be tried again", async () => {
      const name = fresh();
      const leaseMs = 1_000;
      const store = storeOf(name, { leaseMs });
      await store.append("w1", deltas(1), 0);
      const other = await holdingLock(name, "w1");
      let outcome: Awaited<ReturnType<typeof rejectionOf>>;
      try {
        outcome = await rejectionOf(store.append("w1", deltas(1), 1));
      } finally {
        await letGo(other);
      }
      expect(outcome.error).toBeInstanceOf(PostgresUnavailable);
      expect(outcome.error.code).toBe("55P03");
      expect(String(outcome.error)).toMatch(/lockTimeoutMs \(2000 ms\)/);
      // The bound is the server's (lock_timeout, twice the lease); generous above it.
      expect(outcome.ms).toBeGreaterThanOrEqual(2 * leaseMs - 50);
      expect(outcome.ms).toBeLessThan(2 * leaseMs + 5_000);
      // Nothing was written, and the connection is fine: tried again, it is stored.
      expect(await store.append("w1", deltas(1, "again"), 1)).toEqual(
        numbered(deltas(1, "again"), 1),
      );
      console.info(`a lock wait failed after ${outcome.ms.toFixed(0)} ms (lockTimeoutMs 2000)`);
    });

    it("a store paused holding the lock (inside a drop, the one write of several round trips): the server ends its transaction after idleInTransactionMs; others append, it gets a store fault", async () => {
      const name = fresh();
      const leaseMs = 1_000;
      const inner = new pg.Pool({ connectionString: `${server.url}?application_name=${name}` });
      inner.on("error", () => {});
      opened.push(inner);
      const paused = pausable(inner, (text) => text.startsWith("DELETE FROM"));
      pausedOnes.push(paused);
      const stalled = postgresStore(paused.pool, { schema: name, leaseMs });
      opened.push(stalled);
      const store = storeOf(`${name}_b`, { schema: name, leaseMs });
      await stalled.append("w1", deltas(1), 0);
      uncaught.length = 0;
      paused.pause();
      // Its drop has the stream's lock; its delete is never sent.
      const stuck = rejectionOf(stalled.drop("w1"));
      await paused.stalled();
      const start = performance.now();
      const added = await store.append("w1", deltas(1, "other"), 1);
      const waited = performance.now() - start;
      expect(added).toEqual(numbered(deltas(1, "other"), 1));
      expect(waited).toBeLessThan(leaseMs + 5_000);
      // The server ended the paused one's session (its row goes a moment after its locks).
      await until(
        async () =>
          (
            await admin.query(
              "SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND state LIKE 'idle in transaction%'",
              [name],
            )
          ).rows.length === 0,
      );
      // The paused process goes on: its connection is gone, and its drop is a store fault.
      paused.resume();
      const { error } = await stuck;
      expect(error).toBeInstanceOf(PostgresUnavailable);
      expect(await stalled.read("w1")).toEqual([
        ...numbered(deltas(1)),
        ...numbered(deltas(1, "other"), 1),
      ]);
      expect(await stalled.append("w1", deltas(1, "after"), 2)).toEqual(
        numbered(deltas(1, "after"), 2),
      );
      await sleep(100);
      expect(uncaught).toEqual([]);
      console.info(
        `an append behind a paused holder waited ${waited.toFixed(0)} ms (idleInTransactionMs ${leaseMs})`,
      );
    });

    it("through hosts: a prompt to another host while the holder is paused mid-append is answered within the lease and the bounds", async () => {
      const name = fresh();
      const leaseMs = 1_000;
      const inner = new pg.Pool({ connectionString: `${server.url}?application_name=${name}` });
      inner.on("error", () => {});
      opened.push(inner);
      const paused = pausable(inner, (text) => text.includes("WITH found AS"));
      pausedOnes.push(paused);
      const a = postgresStore(paused.pool, { schema: name, leaseMs });
      const b = storeOf(`${name}_b`, { schema: name, leaseMs });
      opened.push(a);
      await b.ready();
      uncaught.length = 0;
      const hostA = createHost(spyApp(), {
        model: fakeModel().says("never"),
        store: a,
        hostId: "a",
        onError: () => {},
      });
      const hostB = createHost(spyApp(), {
        model: fakeModel().says("Answered by B."),
        store: b,
        hostId: "b",
      });
      opened.push(hostB, hostA);
      const onA = hostA.window("w", { user: ada });
      await onA.settled();
      paused.pause();
      // Host A takes the lease and stalls as it sends its first append (one round trip, so it
      // holds no lock), its heartbeat with it.
      void onA.prompt("hello").catch(() => {});
      await paused.stalled();
      const start = performance.now();
      const onB = hostB.window("w", { user: ada });
      await onB.settled();
      const end = await onB.prompt("are you there?");
      const took = performance.now() - start;
      expect(end._tag).toBe("Answered");
      // A lease for A's heartbeat to lapse, and a lease more for B's question to A to go
      // unanswered; generous beyond that.
      expect(took).toBeLessThan(3 * leaseMs + 10_000);
      paused.resume();
      await sleep(300);
      expect(uncaught).toEqual([]);
      console.info(`taken over ${took.toFixed(0)} ms after the holder paused (leaseMs ${leaseMs})`);
    });
  });

  describe("an append without a writer", () => {
    it("is refused by a store whose leases are in use, before it reaches the database", async () => {
      const name = fresh();
      const store = storeOf(name);
      // Until its leases are used, a store appends without a writer: one host, a script.
      await store.append("w1", deltas(1), 0);
      const taking = await store.leases.acquire("w1", "a");
      if (taking._tag !== "Taken") expect.fail("not taken");
      const { error } = await rejectionOf(store.append("w1", deltas(1), 1));
      expect(error).toBeInstanceOf(PostgresWriterRequired);
      expect(error).toMatchObject({ stream: "w1", holder: null });
      expect(String(error)).toMatch(/names no writer.*take the stream's lease/);
      // Any stream, leased or not, and an empty append too.
      await expect(store.append("w2", deltas(1), 0)).rejects.toBeInstanceOf(PostgresWriterRequired);
      await expect(store.append("w2", [], 0)).rejects.toBeInstanceOf(PostgresWriterRequired);
      expect(await store.append("w1", deltas(1), 1, { holder: "a", token: taking.token })).toEqual(
        numbered(deltas(1), 1),
      );
      expect(await store.lastSeq("w2")).toBe(0);
    });

    it("is refused by any store while a live host holds the stream's lease; free, it is written", async () => {
      const name = fresh();
      const leasing = storeOf(name);
      const script = storeOf(`${name}_script`, { schema: name });
      const taking = await leasing.leases.acquire("w1", "host-a");
      if (taking._tag !== "Taken") expect.fail("not taken");
      const { error } = await rejectionOf(script.append("w1", deltas(1), 0));
      expect(error).toBeInstanceOf(PostgresWriterRequired);
      expect(error).toMatchObject({ stream: "w1", holder: "host-a" });
      expect(String(error)).toMatch(/"host-a" holds its lease/);
      await expect(script.append("w1", [], 0)).rejects.toBeInstanceOf(PostgresWriterRequired);
      // Another stream has no lease: written as ever.
      expect(await script.append("w2", deltas(1), 0)).toEqual(numbered(deltas(1)));
      await leasing.leases.release("w1", { holder: "host-a", token: taking.token });
      expect(await script.append("w1", deltas(1), 0)).toEqual(numbered(deltas(1)));
      expect(await script.lastSeq("w1")).toBe(1);
    });
  });
});
