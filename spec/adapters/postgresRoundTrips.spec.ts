/**
 * What a PostgreSQL-backed turn costs the database (issue 29, cluster
 * throughput): an append and a lease taking are each one round trip (BEGIN
 * with the bounds, the stream's lock, the fenced statement and COMMIT sent
 * as one query), so a host paused as it sends one holds no lock; and the
 * values inlined in that query are data, whatever they hold.
 */

import { createHost } from "elyra-assistant";
import {
  type PostgresPool,
  type PostgresPoolClient,
  postgresStore,
} from "elyra-assistant/postgres";
import { fakeModel } from "elyra-assistant/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { literal } from "../../src/adapters/store/postgres/text.ts";
import { spyApp, type TestUser } from "../fixtures/spyCommands.ts";
import { deltas, numbered } from "../fixtures/storeContract.ts";
import {
  havePostgres,
  type PostgresServer,
  postgresSuite,
  startPostgres,
} from "./postgresServer.ts";

/** A pool that counts the queries its connections send, and can hold the ones `holds` matches. */
const watched = (inner: pg.Pool) => {
  const sent: string[] = [];
  let hold: { holds: (text: string) => boolean; gate: Promise<void> } | undefined;
  let held: () => void = () => {};
  const pool: PostgresPool = {
    connect: async () => {
      const client = await inner.connect();
      const lent: PostgresPoolClient & Pick<pg.PoolClient, "on" | "off"> = {
        query: async (text: string, values?: unknown[]) => {
          if (hold?.holds(text)) {
            held();
            await hold.gate;
          }
          sent.push(text);
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
    sent,
    /** Holds the next queries `holds` matches until the returned `go`; `reached` when one is held. */
    hold: (holds: (text: string) => boolean) => {
      let go = () => {};
      const gate = new Promise<void>((resolve) => {
        go = resolve;
      });
      const reached = new Promise<void>((resolve) => {
        held = resolve;
      });
      hold = { holds, gate };
      return {
        reached,
        go: () => {
          hold = undefined;
          go();
        },
      };
    },
  };
};

const ada: TestUser = { name: "Ada", abilities: ["customers.*"] };

describe.runIf(havePostgres)(postgresSuite("postgresStore round trips"), () => {
  let server: PostgresServer;
  const pools: pg.Pool[] = [];
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    await server?.stop();
  });
  const poolOf = (name: string) => {
    const inner = new pg.Pool({ connectionString: `${server.url}?application_name=${name}` });
    inner.on("error", () => {});
    pools.push(inner);
    return watched(inner);
  };

  it("an append under a lease and a lease taking are one query each; a refused append writes nothing and says why", async () => {
    const { pool, sent } = poolOf("trips");
    const store = postgresStore(pool, { schema: "trips" });
    await store.ready();
    sent.length = 0;
    const taking = await store.leases.acquire("w1", "a");
    if (taking._tag !== "Taken") expect.fail("not taken");
    expect(sent).toHaveLength(1);
    // Told with the lease, read under the same lock: the stream's last seq.
    expect(taking.lastSeq).toBe(0);
    const writer = { holder: "a", token: taking.token };
    sent.length = 0;
    expect(await store.append("w1", deltas(2), 0, writer)).toEqual(numbered(deltas(2)));
    expect(sent).toHaveLength(1);
    // Taken again by its holder: the same token, still one query.
    sent.length = 0;
    expect(await store.leases.acquire("w1", "a")).toEqual({
      ...taking,
      tookOver: false,
      lastSeq: 2,
    });
    expect(sent).toHaveLength(1);
    await expect(store.append("w1", deltas(1), 0, writer)).rejects.toMatchObject({
      _tag: "AppendConflict",
      actualSeq: 2,
    });
    await expect(
      store.append("w1", deltas(1), 2, { holder: "a", token: taking.token + 1 }),
    ).rejects.toMatchObject({ _tag: "LeaseLost" });
    expect(await store.read("w1")).toEqual(numbered(deltas(2)));
    await store.close();
  });

  it("a window opened and a turn on it: each read of the log is one round trip; the lease's taking tells the last seq, so the log is not read again; its events go in two appends", async () => {
    const { pool, sent } = poolOf("turn");
    const store = postgresStore(pool, { schema: "turn" });
    await store.ready();
    const kinds = () =>
      sent.map((text) =>
        text.includes("WITH found AS")
          ? "append"
          : text.includes("WITH lease AS")
            ? "take"
            : text.includes("WITH last AS")
              ? "toEnd"
              : text.includes("data::text AS data")
                ? "read"
                : text.includes("max(seq), 0)::text AS seq FROM")
                  ? "lastSeq"
                  : "other",
      );
    // The feed's first LISTEN tells a Resync, which reads the log once: that read is let go by first.
    const resynced = new Promise<void>((resolve) => {
      const stop = store.changes?.((change) => {
        if (change._tag !== "Resync") return;
        stop?.();
        resolve();
      });
    });
    sent.length = 0;
    const host = createHost(spyApp(), {
      model: fakeModel().says("Hello, Ada."),
      store,
      hostId: "host-a",
      onError: () => undefined,
    });
    const w = host.window("w1", { user: ada });
    await w.ready;
    await resynced;
    await w.settled();
    // Opened (and caught up after the Resync): its last seq and events in one statement each time.
    expect(kinds().filter((k) => k === "read" || k === "lastSeq")).toEqual([]);
    expect(kinds().filter((k) => k === "toEnd").length).toBeGreaterThanOrEqual(1);
    sent.length = 0;
    expect((await w.prompt("hi"))._tag).toBe("Answered");
    await w.settled();
    expect(kinds().filter((k) => k === "take")).toHaveLength(1);
    // Before: a read of the log (its last seq, then its events) after each taking.
    expect(kinds().filter((k) => k === "read" || k === "lastSeq" || k === "toEnd")).toEqual([]);
    // TurnStarted with StepStarted, then the step's text, its end and the answer.
    expect(kinds().filter((k) => k === "append").length).toBeLessThanOrEqual(3);
    await host.close();
    await store.close();
  });

  it("a store paused as it sends an append holds no lock: another's append goes through at once; the paused one, let go, is refused and wrote nothing", async () => {
    const watching = poolOf("paused");
    const stalled = postgresStore(watching.pool, { schema: "paused" });
    const other = postgresStore(server.url, { schema: "paused" });
    await stalled.append("w1", deltas(1), 0);
    const paused = watching.hold((text) => text.includes("WITH found AS"));
    const stuck = stalled.append("w1", deltas(1, "stuck"), 1).then(
      () => expect.fail("the paused append was stored"),
      (error: unknown) => error,
    );
    await paused.reached;
    const inTransaction = await pools[0]!.query(
      "SELECT 1 FROM pg_stat_activity WHERE application_name = 'paused' AND state LIKE 'idle in transaction%'",
    );
    expect(inTransaction.rows).toEqual([]);
    expect(await other.append("w1", deltas(1, "other"), 1)).toEqual(
      numbered(deltas(1, "other"), 1),
    );
    paused.go();
    expect(await stuck).toMatchObject({ _tag: "AppendConflict", expectedSeq: 1, actualSeq: 2 });
    expect(await other.read("w1")).toEqual([
      ...numbered(deltas(1)),
      ...numbered(deltas(1, "other"), 1),
    ]);
    await other.close();
    await stalled.close();
  });

  it("what the one query inlines is data: a stream, a holder and events of quotes, dollars and backslashes are stored and read back as given", async () => {
    const store = postgresStore(server.url, { schema: "inlined" });
    const stream = "w'1 $e$ \\ $$";
    const holder = "a'$e0$\\";
    const taking = await store.leases.acquire(stream, holder);
    if (taking._tag !== "Taken") expect.fail("not taken");
    const events = deltas(2, "it's $e$ $e0$ \\' $$ --");
    expect(await store.append(stream, events, 0, { holder, token: taking.token })).toEqual(
      numbered(events),
    );
    expect(await store.read(stream)).toEqual(numbered(events));
    expect(await store.leases.acquire(stream, "b")).toEqual({ _tag: "Held", holder });
    await store.close();
  });
});

describe("literal", () => {
  it("quotes any text as data: quotes, dollars, backslashes; a NUL is sent for the server to refuse", () => {
    expect(literal("it's")).toBe("$e$it's$e$");
    expect(literal("a$e$b")).toBe("$e0$a$e$b$e0$");
    expect(literal("x$e")).toBe("$e0$x$e$e0$");
    expect(literal("a\0b")).toBe("convert_from(decode('610062', 'hex'), 'UTF8')");
  });
});
