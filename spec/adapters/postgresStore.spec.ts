/**
 * postgresStore against a real PostgreSQL 15 on loopback: the EventStore
 * contract and its thread index's ThreadIndex contract (a fresh schema per
 * test), the table it makes and how it reads it,
 * two processes (two pools) appending at one seq, the lock and the primary
 * key that decide it, migrations racing, connections that fail, and close.
 */
import { inspect } from "node:util";
import {
  PostgresConfigError,
  type PostgresPool,
  type PostgresStore,
  PostgresUnavailable,
  postgresStore,
} from "elyra-assistant/postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewEvent } from "../../src/runtime/log/events.ts";
import {
  conflictOf,
  deltas,
  everyType,
  numbered,
  storeContract,
} from "../fixtures/storeContract.ts";
import { threadIndexContract } from "../fixtures/threadIndexContract.ts";
import {
  havePostgres,
  type PostgresServer,
  postgresSuite,
  startPostgres,
} from "./postgresServer.ts";
import { freePort } from "./redisServer.ts";

/** The rejection of `promise`, which must be an instance of `type`. */
const rejection = async <E>(promise: Promise<unknown>, type: new (...args: never[]) => E) => {
  const error = await promise.then(
    () => expect.fail(`resolved; expected ${type.name}`),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  return error as E;
};

/** Whether `promise` is still pending after `ms`. */
const pendingAfter = (promise: Promise<unknown>, ms: number): Promise<boolean> =>
  Promise.race([
    promise.then(
      () => false,
      () => false,
    ),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(true), ms)),
  ]);

describe.skipIf(!havePostgres)(postgresSuite("postgresStore"), () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  const pools: pg.Pool[] = [];
  const stores: PostgresStore[] = [];
  let schemas = 0;
  /** A schema no other test uses. */
  const fresh = () => `spec_${++schemas}`;
  /** A pool the spec owns (a "process"), ended after the file's tests. */
  const pool = (url = server.url) => {
    const made = new pg.Pool({ connectionString: url });
    made.on("error", () => {});
    pools.push(made);
    return made;
  };
  /** A store closed after the file's tests. */
  const store = (...args: Parameters<typeof postgresStore>) => {
    const made = postgresStore(...args);
    stores.push(made);
    return made;
  };
  /** Writes a row as another program (or a newer version) would, past the store. */
  const insertRow = (schema: string, stream: string, seq: number, data: object) =>
    admin.query(
      `INSERT INTO "${schema}".elyra_events (stream, seq, at, type, data) VALUES ($1, $2, $3, $4, $5)`,
      [stream, seq, seq, (data as { _tag: string })._tag, JSON.stringify(data)],
    );

  /**
   * A connection of another process in an open transaction holding stream
   * `w1`'s lock in `schema`: the lock an append takes, as the table's comment
   * and decision (ah) give it.
   */
  const holdingLock = async (schema: string): Promise<pg.PoolClient> => {
    const other = await admin.connect();
    await other.query("BEGIN");
    await other.query("SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))", [
      `${schema}.elyra_events`,
      "w1",
    ]);
    return other;
  };

  beforeAll(async () => {
    server = await startPostgres();
    admin = pool();
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await Promise.all(pools.map((p) => p.end()));
    await server?.stop();
  });

  storeContract(
    "postgresStore (a fresh schema per test)",
    () => {
      const schema = fresh();
      const s = postgresStore(server.url, { schema });
      return {
        store: s,
        dispose: async () => {
          await s.close();
          await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        },
      };
    },
    { durable: true },
  );

  threadIndexContract("postgresStore's threads (a fresh schema per test)", () => {
    const schema = fresh();
    const s = postgresStore(server.url, { schema });
    return {
      index: s.threads,
      dispose: async () => {
        await s.close();
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      },
    };
  });

  describe("the table", () => {
    it("is made on first use: the event as jsonb, with its type and time beside it for SQL", async () => {
      const schema = fresh();
      const s = store(server.url, { schema });
      await s.append("w1", everyType.slice(0, 3), 0);
      const { rows } = await admin.query(
        `SELECT stream, seq::int, at, type, data->>'text' AS text, jsonb_typeof(data) AS json
         FROM "${schema}".elyra_events ORDER BY seq`,
      );
      expect(rows).toEqual([
        { stream: "w1", seq: 1, at: 1, type: "TurnStarted", text: "hi", json: "object" },
        { stream: "w1", seq: 2, at: 2, type: "StepStarted", text: null, json: "object" },
        { stream: "w1", seq: 3, at: 3, type: "TextDelta", text: "Let me look.", json: "object" },
      ]);
      const columns = await admin.query(
        `SELECT column_name, data_type FROM information_schema.columns
         WHERE table_schema = $1 AND table_name = 'elyra_events' ORDER BY ordinal_position`,
        [schema],
      );
      expect(columns.rows).toEqual([
        { column_name: "stream", data_type: "text" },
        { column_name: "seq", data_type: "bigint" },
        { column_name: "at", data_type: "double precision" },
        { column_name: "type", data_type: "text" },
        { column_name: "data", data_type: "jsonb" },
      ]);
      const key = await admin.query(
        `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint
         WHERE conrelid = $1::regclass AND contype = 'p'`,
        [`"${schema}".elyra_events`],
      );
      expect(key.rows).toEqual([{ def: "PRIMARY KEY (stream, seq)" }]);
    });

    it("the schema and table are the options'; each store keeps to its own", async () => {
      const schema = fresh();
      const one = store(server.url, { schema, table: "log_one" });
      const two = store(server.url, { schema, table: "Log_Two" });
      await one.append("w1", deltas(2, "one"), 0);
      await two.append("w1", deltas(1, "two"), 0);
      expect(await one.read("w1")).toEqual(numbered(deltas(2, "one")));
      expect(await two.read("w1")).toEqual(numbered(deltas(1, "two")));
      const { rows } = await admin.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1",
        [schema],
      );
      // Each with its lease, host and message tables beside it, and its thread index's.
      expect(rows.map((r) => r.table_name)).toEqual(
        ["Log_Two", "log_one"].flatMap((t) => [
          t,
          ...["hosts", "leases", "messages", "texts", "threads"].map((x) => `${t}_${x}`),
        ]),
      );
    });

    it("options it cannot use throw PostgresConfigError at once, naming the problem", () => {
      const refused = (make: () => unknown): string => {
        try {
          make();
        } catch (error) {
          expect(error).toBeInstanceOf(PostgresConfigError);
          return (error as PostgresConfigError).message;
        }
        return expect.fail("no PostgresConfigError");
      };
      const url = "postgres://127.0.0.1:1/x";
      expect(refused(() => postgresStore(url, { table: "events; DROP TABLE users" }))).toBe(
        'postgresStore: the table must be a name of letters, digits and _, not starting with a digit, at most 54 long, not "events; DROP TABLE users"',
      );
      for (const schema of ["", "1st", "my-schema", 'a"b', "a.b", "x".repeat(64)])
        expect(refused(() => postgresStore(url, { schema }))).toMatch(/^postgresStore: the schema/);
      expect(refused(() => postgresStore(url, { table: 7 as unknown as string }))).toMatch(
        /the table must be/,
      );
      for (const connectTimeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
        expect(refused(() => postgresStore(url, { connectTimeoutMs }))).toMatch(
          /connectTimeoutMs must be a number of ms above 0/,
        );
      expect(refused(() => postgresStore(" "))).toBe(
        "postgresStore: the connection string is empty",
      );
      for (const notAPool of [null, 5, {}, { connect: () => null }])
        expect(refused(() => postgresStore(notAPool as unknown as PostgresPool))).toMatch(
          /give a pg Pool or a connection string/,
        );
      for (const leaseMs of [0, 29, 1.5, Number.NaN])
        expect(refused(() => postgresStore(url, { leaseMs }))).toMatch(/leaseMs must be/);
      for (const heartbeatMs of [0, 5_000, 9_000, 2.5])
        expect(refused(() => postgresStore(url, { leaseMs: 5_000, heartbeatMs }))).toMatch(
          /heartbeatMs must be .* under leaseMs \(5000\)/,
        );
      // A longest name is fine: the lease tables beside it add at most 9 characters.
      expect(() => postgresStore(url, { table: "t".repeat(54) })).not.toThrow();
      expect(refused(() => postgresStore(url, { table: "t".repeat(55) }))).toMatch(/at most 54/);
      expect(refused(() => postgresStore(url, { schema: "s".repeat(64) }))).toMatch(/at most 63/);
    });

    it("a table of that name that is not an event log is refused on first use, and left alone", async () => {
      const schema = fresh();
      await admin.query(
        `CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".orders (id int, at int)`,
      );
      const s = store(server.url, { schema, table: "orders" });
      const error = await rejection(s.lastSeq("w1"), PostgresConfigError);
      expect(error.message).toBe(
        `postgresStore: the table "${schema}"."orders" is there and is not an event log (it has no stream, seq, type, data): name another table`,
      );
      await rejection(s.append("w1", deltas(1), 0), PostgresConfigError);
      const { rows } = await admin.query(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 ORDER BY 1",
        [schema],
      );
      expect(rows.map((r) => r.column_name)).toEqual(["at", "id"]);
    });

    it("a role that may not create anything uses a table made for it", async () => {
      const schema = fresh();
      await store(server.url, { schema }).ready();
      await admin.query(`CREATE ROLE app_${schema} LOGIN;
        GRANT USAGE ON SCHEMA "${schema}" TO app_${schema};
        GRANT SELECT, INSERT, DELETE ON "${schema}".elyra_events TO app_${schema};
        GRANT SELECT, INSERT, UPDATE, DELETE ON "${schema}".elyra_events_leases,
          "${schema}".elyra_events_hosts, "${schema}".elyra_events_messages TO app_${schema};
        GRANT USAGE ON "${schema}".elyra_events_tokens, "${schema}".elyra_events_messages_id_seq
          TO app_${schema}`);
      const s = store(server.urlOf("postgres", `app_${schema}`), { schema });
      await s.append("w1", deltas(2), 0);
      expect(await s.read("w1")).toEqual(numbered(deltas(2)));
      // Its leases too.
      const taken = await s.leases.acquire("w1", "host-a");
      expect(taken).toMatchObject({ _tag: "Taken", tookOver: false });
      if (taken._tag === "Taken")
        await s.append("w1", deltas(1, "more"), 2, { holder: "host-a", token: taken.token });
      await s.drop("w1");
      expect(await s.lastSeq("w1")).toBe(0);
      // The same role cannot make a table: PostgreSQL's refusal, as it is.
      await expect(
        store(server.urlOf("postgres", `app_${schema}`), { schema, table: "other" }).ready(),
      ).rejects.toThrow(/permission denied for schema/);
    });

    it("stores starting together make the schema and table once; later starts find them", async () => {
      const schema = fresh();
      const many = Array.from({ length: 8 }, () => store(server.url, { schema }));
      await Promise.all(many.map((s) => s.ready()));
      // Each appends to its own stream, at once: all on the one table.
      await Promise.all(many.map((s, i) => s.append(`w${i}`, deltas(1, `s${i}`), 0)));
      const again = Array.from({ length: 4 }, () => store(server.url, { schema }));
      await Promise.all(again.map((s) => s.ready()));
      const { rows } = await admin.query(
        `SELECT (SELECT count(*)::int FROM information_schema.tables WHERE table_schema = $1) AS tables,
                (SELECT count(*)::int FROM "${schema}".elyra_events) AS events`,
        [schema],
      );
      expect(rows).toEqual([{ tables: 6, events: 8 }]);
      expect(await again[0]!.read("w3")).toEqual(numbered(deltas(1, "s3")));
    });
  });

  describe("reading and writing", () => {
    it("skips an event of a type it does not know (a newer writer's), and counts its seq", async () => {
      const schema = fresh();
      const s = store(server.url, { schema });
      await s.append("w1", deltas(1, "before"), 0);
      await insertRow(schema, "w1", 2, {
        _tag: "HoloProjected",
        seq: 2,
        at: 2,
        turn: 1,
        hologram: true,
      });
      expect(await s.lastSeq("w1")).toBe(2);
      await conflictOf(s.append("w1", deltas(1), 1));
      await s.append("w1", deltas(1, "after"), 2);
      expect(await s.read("w1")).toEqual([
        ...numbered(deltas(1, "before")),
        ...numbered(deltas(1, "after"), 2),
      ]);
      expect(await s.lastSeq("w1")).toBe(3);
      // Read with its last seq in one round trip: the skipped row counted there too.
      expect(await s.readToEnd?.("w1", 1)).toEqual({
        events: numbered(deltas(1, "after"), 2),
        lastSeq: 3,
      });
    });

    it("an event of a known type that does not decode is an error, not skipped", async () => {
      const schema = fresh();
      const s = store(server.url, { schema });
      await s.ready();
      await insertRow(schema, "w1", 1, { _tag: "Answered", seq: 1, at: 1, turn: 1, text: 42 });
      await expect(s.read("w1")).rejects.toThrow(/Expected string, actual 42/);
    });

    it("refuses an event that would not read back (at: NaN becomes null in JSON), and writes none of the batch", async () => {
      const s = store(server.url, { schema: fresh() });
      const nan = { _tag: "Reset", at: Number.NaN, turn: 0 } as const;
      await expect(s.append("w1", [...deltas(1), nan], 0)).rejects.toThrow(/at/);
      const infinite = { _tag: "Reset", at: Number.POSITIVE_INFINITY, turn: 0 } as const;
      await expect(s.append("w1", [infinite], 0)).rejects.toThrow(/at/);
      expect(await s.lastSeq("w1")).toBe(0);
      await s.append("w1", deltas(1), 0);
      expect(await s.read("w1")).toEqual(numbered(deltas(1)));
    });

    it("stores a NUL or half a surrogate pair (which jsonb refuses) as U+FFFD, and gives back what it stored", async () => {
      const s = store(server.url, { schema: fresh() });
      const text = (t: string): NewEvent => ({
        _tag: "TextDelta",
        at: 1,
        turn: 1,
        step: 1,
        text: t,
      });
      const args: NewEvent = {
        _tag: "ConfirmRequested",
        at: 1,
        turn: 1,
        confirmId: "c1",
        callId: "t1",
        tool: "notes_add",
        description: "Add a note.",
        args: { "key\u0000": "\ud83d" },
      };
      const stored = await s.append(
        "w1",
        [text("fine"), text("a\u0000b"), text("\ud83d"), args],
        0,
      );
      const expected = numbered([
        text("fine"),
        text("a\ufffdb"),
        text("\ufffd"),
        { ...args, args: { "key\ufffd": "\ufffd" } } as NewEvent,
      ]);
      expect(stored).toEqual(expected);
      expect(await s.read("w1")).toEqual(expected);
      // A whole pair, and every other character, is stored and read back as it was.
      const hard = text('😀 "quoted" \\u0000 \u0001 \u2028 é\n\t');
      expect(await s.append("w1", [hard], 4)).toEqual(numbered([hard], 4));
      expect(await s.read("w1", 4)).toEqual(numbered([hard], 4));
    });

    it("gives back from append exactly what read gives, numbers included", async () => {
      const s = store(server.url, { schema: fresh() });
      const numbers: NewEvent[] = [
        { _tag: "Reset", at: 1_700_000_000_123.456, turn: 0 },
        { _tag: "Reset", at: 5e-324, turn: 0 },
        { _tag: "Reset", at: -1.7976931348623157e308, turn: 0 },
        { _tag: "Reset", at: 0.1 + 0.2, turn: 0 },
      ];
      const appended = await s.append("w1", [...everyType, ...numbers], 0);
      expect(await s.read("w1")).toStrictEqual(appended);
      expect(appended.slice(-4).map((e) => e.at)).toEqual(numbers.map((e) => e.at));
    });

    it("reads a page for any bounds: fractional, negative, infinite, NaN", async () => {
      const s = store(server.url, { schema: fresh() });
      await s.append("w1", deltas(5), 0);
      const seqs = async (from?: number, to?: number) =>
        (await s.read("w1", from, to)).map((e) => e.seq);
      expect(await seqs(1.5, 3.5)).toEqual([2, 3]);
      expect(await seqs(-3)).toEqual([1, 2, 3, 4, 5]);
      expect(await seqs(Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY)).toEqual([
        1, 2, 3, 4, 5,
      ]);
      expect(await seqs(2, -1)).toEqual([]);
      expect(await seqs(Number.NaN)).toEqual([]);
      expect(await seqs(0, Number.NaN)).toEqual([]);
    });
  });

  describe("two processes, one stream", () => {
    it("two appends at the same expectedSeq from two pools: exactly one wins, every time", async () => {
      const schema = fresh();
      const first = store(pool(), { schema });
      const second = store(pool(), { schema });
      await Promise.all([first.ready(), second.ready()]);
      const wins = [0, 0];
      for (let round = 0; round < 60; round++) {
        const stream = `race-${round}`;
        const prefix = deltas(round % 3, "p");
        await first.append(stream, prefix, 0);
        const batches = [deltas(1 + (round % 4), "a"), deltas(2, "b")] as const;
        const settled = await Promise.allSettled([
          first.append(stream, batches[0], prefix.length),
          second.append(stream, batches[1], prefix.length),
        ]);
        const winner = settled.findIndex((s) => s.status === "fulfilled");
        expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(1);
        wins[winner] = (wins[winner] ?? 0) + 1;
        const lost = settled[1 - winner];
        expect(lost?.status === "rejected" && lost.reason).toMatchObject({
          _tag: "AppendConflict",
          stream,
          expectedSeq: prefix.length,
          actualSeq: prefix.length + batches[winner as 0 | 1].length,
        });
        expect(await second.read(stream)).toEqual([
          ...numbered(prefix),
          ...numbered(batches[winner as 0 | 1], prefix.length),
        ]);
      }
      expect(wins[0]! + wins[1]!).toBe(60);
    });

    it("an append waits for the stream's lock another process holds, then checks against what it committed", async () => {
      const schema = fresh();
      const s = store(server.url, { schema });
      await s.ready();
      const other = await holdingLock(schema);
      try {
        const append = s.append("w1", deltas(1), 0);
        // Nothing of the stream is written yet: only the lock holds the append.
        expect(await pendingAfter(append, 150)).toBe(true);
        // Another stream of the table is not held up.
        await s.append("w2", deltas(1), 0);
        await other.query(
          `INSERT INTO "${schema}".elyra_events VALUES ('w1', 1, 1, 'Reset', '{"_tag":"Reset","seq":1,"at":1,"turn":0}')`,
        );
        await other.query("COMMIT");
        expect(await conflictOf(append)).toMatchObject({ expectedSeq: 0, actualSeq: 1 });
      } finally {
        // Nothing left open on the admin's pool should an expectation fail midway.
        await other.query("ROLLBACK");
        other.release();
      }
      expect((await s.read("w1")).map((e) => e._tag)).toEqual(["Reset"]);
    });

    it("the primary key is the last guard: a row written past the lock makes the append conflict, or wait and win", async () => {
      const schema = fresh();
      const s = store(server.url, { schema });
      await s.ready();
      const other = await admin.connect();
      const row = `INSERT INTO "${schema}".elyra_events VALUES ($1, 1, 1, 'Reset', '{"_tag":"Reset","seq":1,"at":1,"turn":0}')`;
      try {
        // Committed: the append, which saw seq 0, meets the key and conflicts.
        await other.query("BEGIN");
        await other.query(row, ["w1"]);
        const append = s.append("w1", deltas(1), 0);
        expect(await pendingAfter(append, 150)).toBe(true);
        await other.query("COMMIT");
        expect(await conflictOf(append)).toMatchObject({ expectedSeq: 0, actualSeq: 1 });
        // Rolled back: the key is free again, and the append goes in.
        await other.query("BEGIN");
        await other.query(row, ["w2"]);
        const wins = s.append("w2", deltas(1), 0);
        expect(await pendingAfter(wins, 150)).toBe(true);
        await other.query("ROLLBACK");
        expect(await wins).toEqual(numbered(deltas(1)));
      } finally {
        // Nothing left open on the admin's pool should an expectation fail midway.
        await other.query("ROLLBACK");
        other.release();
      }
    });

    it("drop waits for an append in flight, so none is left half dropped", async () => {
      const schema = fresh();
      const s = store(server.url, { schema });
      await s.append("w1", deltas(2), 0);
      const other = await holdingLock(schema);
      try {
        const dropped = s.drop("w1");
        expect(await pendingAfter(dropped, 100)).toBe(true);
        await other.query("COMMIT");
        await dropped;
      } finally {
        // Nothing left open on the admin's pool should an expectation fail midway.
        await other.query("ROLLBACK");
        other.release();
      }
      expect(await s.lastSeq("w1")).toBe(0);
    });
  });

  describe("connections", () => {
    it("a connection refused rejects with PostgresUnavailable, naming the server and not the password", async () => {
      const port = await freePort();
      const s = store(`postgres://ada:s3cret-pw@127.0.0.1:${port}/crm`);
      const error = await rejection(s.lastSeq("w1"), PostgresUnavailable);
      expect(error).toMatchObject({ server: `127.0.0.1:${port}/crm`, code: "ECONNREFUSED" });
      expect(error.message).toBe(
        `postgresStore cannot use PostgreSQL at 127.0.0.1:${port}/crm: connect ECONNREFUSED 127.0.0.1:${port}`,
      );
      expect(inspect(error)).not.toMatch(/s3cret/);
      expect(JSON.stringify(error)).not.toMatch(/s3cret/);
      await rejection(s.append("w1", deltas(1), 0), PostgresUnavailable);
      await rejection(s.read("w1"), PostgresUnavailable);
      await rejection(s.drop("w1"), PostgresUnavailable);
    });

    it("localhost, where every address refuses, says so too", async () => {
      const port = await freePort();
      const error = await rejection(
        store(`postgres://localhost:${port}/crm`).ready(),
        PostgresUnavailable,
      );
      expect(error.message).toMatch(
        new RegExp(`^postgresStore cannot use PostgreSQL at localhost:${port}/crm: .*ECONNREFUSED`),
      );
    });

    it("a database or a role that is not there is named, with PostgreSQL's code", async () => {
      const noDatabase = await rejection(
        store(server.urlOf("nowhere")).ready(),
        PostgresUnavailable,
      );
      expect(noDatabase).toMatchObject({
        code: "3D000",
        server: `127.0.0.1:${server.port}/nowhere`,
      });
      expect(noDatabase.message).toMatch(/database "nowhere" does not exist$/);
      const noRole = await rejection(
        store(server.urlOf("postgres", "nobody")).ready(),
        PostgresUnavailable,
      );
      expect(noRole).toMatchObject({ code: "28000" });
      expect(noRole.message).toMatch(/role "nobody" does not exist$/);
    });

    it("a pool given that cannot connect: the same error, naming the pool's server", async () => {
      const port = await freePort();
      const given = new pg.Pool({ host: "127.0.0.1", port, database: "crm", password: "hunter22" });
      pools.push(given);
      const error = await rejection(store(given).read("w1"), PostgresUnavailable);
      expect(error.server).toBe(`127.0.0.1:${port}/crm`);
      expect(inspect(error)).not.toMatch(/hunter22/);
    });

    it("a failed first use is tried again: the store works once the database does", async () => {
      const real = pool();
      let refuse = 2;
      const flaky: PostgresPool = {
        connect: () =>
          refuse-- > 0
            ? Promise.reject(
                Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
              )
            : real.connect(),
        end: () => Promise.resolve(),
      };
      const s = store(flaky, { schema: fresh() });
      await rejection(s.ready(), PostgresUnavailable);
      await rejection(s.append("w1", deltas(1), 0), PostgresUnavailable);
      expect(await s.append("w1", deltas(1), 0)).toEqual(numbered(deltas(1)));
    });

    it("a connection the server ends mid-append rejects with PostgresUnavailable; the next append gets a new one", async () => {
      const schema = fresh();
      const s = store(`${server.url}?application_name=${schema}`, { schema });
      await s.append("w1", deltas(1), 0);
      const other = await holdingLock(schema);
      try {
        const append = s.append("w1", deltas(1), 1);
        expect(await pendingAfter(append, 100)).toBe(true);
        await admin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
          [schema],
        );
        const error = await rejection(append, PostgresUnavailable);
        expect(error.code).toBe("57P01");
        expect(error.message).toMatch(/terminating connection due to administrator command/);
        await other.query("ROLLBACK");
      } finally {
        // Nothing left open on the admin's pool should an expectation fail midway.
        await other.query("ROLLBACK");
        other.release();
      }
      expect(await s.append("w1", deltas(1, "again"), 1)).toEqual(numbered(deltas(1, "again"), 1));
    });
  });

  describe("close", () => {
    /** The connections open to the server under `name`, once `settled` holds of their count (or 3 s passed). */
    const connections = async (name: string, settled: (n: number) => boolean) => {
      const deadline = Date.now() + 3_000;
      for (;;) {
        const { rows } = await admin.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1",
          [name],
        );
        const n = rows[0].n as number;
        if (settled(n) || Date.now() > deadline) return n;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };

    it("ends the pool the store made from a connection string; the store then refuses, and closing again is fine", async () => {
      const schema = fresh();
      const s = postgresStore(`${server.url}?application_name=${schema}`, { schema });
      await Promise.all([s.append("w1", deltas(1), 0), s.lastSeq("w2"), s.read("w3")]);
      expect(await connections(schema, (n) => n > 0)).toBeGreaterThan(0);
      await s.close();
      expect(await connections(schema, (n) => n === 0)).toBe(0);
      const error = await rejection(s.read("w1"), PostgresUnavailable);
      expect(error.message).toMatch(/: the store is closed$/);
      await rejection(s.append("w1", deltas(1), 1), PostgresUnavailable);
      await s.close();
      // The log stays for the next store.
      expect(await store(server.url, { schema }).read("w1")).toEqual(numbered(deltas(1)));
    });

    it("leaves a pool it was given open", async () => {
      const given = pool();
      const s = postgresStore(given, { schema: fresh() });
      await s.append("w1", deltas(1), 0);
      await s.close();
      expect((await given.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
      await rejection(s.lastSeq("w1"), PostgresUnavailable);
    });
  });
});
