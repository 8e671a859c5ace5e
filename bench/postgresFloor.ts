/**
 * The floor under a PostgreSQL-backed turn, for `clusterProcesses`: what
 * one round trip costs (a bare `SELECT 1`), and what the store's calls of a
 * turn cost each (a read, a fenced append of one event, a lease taken and
 * given back), against a SQLite append, all in this process, one at a time:
 * this process's CPU and PostgreSQL's, per call.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NewEvent } from "elyra-assistant/log";
import { postgresStore } from "elyra-assistant/postgres";
import { sqliteStore } from "elyra-assistant/sqlite";
import pg from "pg";

const CALLS = 1_000;
const event = (i: number): NewEvent => ({
  _tag: "TextDelta",
  at: 1_700_000_000_000 + i,
  turn: 1,
  step: 1,
  text: `piece ${i}`,
});

export interface FloorRow {
  readonly case: string;
  /** This process's CPU a call, ms. */
  readonly hostCpuMs: number;
  /** PostgreSQL's CPU a call, ms. */
  readonly dbCpuMs: number;
  /** Wall time a call, ms. */
  readonly wallMs: number;
}

/** Each call `CALLS` times, one at a time, after 100 not counted. */
export const floor = async (
  url: string,
  postgresCpuMs: () => Promise<number>,
): Promise<FloorRow[]> => {
  const dir = await mkdtemp(join(tmpdir(), "elyra-floor-"));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const store = postgresStore(url, { schema: "floor" });
  await store.ready();
  const sqlite = sqliteStore(join(dir, "events.db"));
  const taking = await store.leases.acquire("appended", "floor-host");
  if (taking._tag !== "Taken") throw new Error("floor: the lease is held");
  const writer = { holder: "floor-host", token: taking.token };
  let [seq, sqliteSeq, turn] = [0, 0, 0];
  const cases: ReadonlyArray<readonly [string, () => Promise<unknown>]> = [
    ["floor: one round trip (SELECT 1, pg)", () => client.query("SELECT 1")],
    ["floor: postgresStore.lastSeq (a read)", () => store.lastSeq("appended")],
    [
      "floor: postgresStore.append, 1 event, fenced",
      async () => {
        seq = (await store.append("appended", [event(seq)], seq, writer)).at(-1)!.seq;
      },
    ],
    [
      "floor: lease taken and given back",
      async () => {
        const stream = `turn-${turn++}`;
        const taken = await store.leases.acquire(stream, "floor-host");
        if (taken._tag === "Taken")
          await store.leases.release(stream, { holder: "floor-host", token: taken.token });
      },
    ],
    [
      "floor: sqliteStore.append, 1 event",
      async () => {
        sqliteSeq = (await sqlite.append("appended", [event(sqliteSeq)], sqliteSeq)).at(-1)!.seq;
      },
    ],
  ];
  const rows: FloorRow[] = [];
  try {
    for (const [name, call] of cases) {
      for (let i = 0; i < 100; i++) await call();
      const db = await postgresCpuMs();
      const own = process.cpuUsage();
      const started = performance.now();
      for (let i = 0; i < CALLS; i++) await call();
      const wallMs = performance.now() - started;
      const mine = process.cpuUsage(own);
      rows.push({
        case: name,
        hostCpuMs: (mine.user + mine.system) / 1000 / CALLS,
        dbCpuMs: ((await postgresCpuMs()) - db) / CALLS,
        wallMs: wallMs / CALLS,
      });
    }
  } finally {
    await client.end();
    await store.close();
    await sqlite.close();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
};
