/**
 * Erasure on a real PostgreSQL 15, an experiment as much as a test: a
 * thread's log and index entry carry a needle (in a prompt, a confirmation's
 * arguments and its edited ones, a tool's outcome, streamed text, an answer,
 * the title, preview and turn texts), beside a thread that must survive.
 * SQL reads the needle before; after `erase` and `remove` no query of the
 * tables finds it. Then the files: the spec reads each relation's file (the
 * heap, its TOAST table, every index, the GIN index too) in the cluster's
 * data directory, as root, after a CHECKPOINT. What it finds: a plain VACUUM
 * frees the dead rows' space but leaves their bytes where nothing was moved
 * over them, and the GIN index keeps the needle's word as a key; VACUUM FULL
 * rewrites every file without them, and the old files are emptied and
 * unlinked. ANALYZE's samples in `pg_statistic` hold copies until the next
 * ANALYZE, and its old rows until `pg_statistic` is rewritten too. The WAL
 * keeps the rows as written until its segments are recycled: only there is
 * the needle left at the end.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { StoreChange } from "elyra-assistant/log";
import { type PostgresStore, postgresStore } from "elyra-assistant/postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewEvent } from "../../src/runtime/log/events.ts";
import type { ThreadEntry } from "../../src/runtime/threads/threadIndex.ts";
import { conflictOf, deltas, numbered } from "../fixtures/storeContract.ts";
import {
  havePostgres,
  type PostgresServer,
  postgresSuite,
  startPostgres,
} from "./postgresServer.ts";

const SCHEMA = "erasure";
const TABLES = ["elyra_events", "elyra_events_threads", "elyra_events_texts"].map(
  (t) => `"${SCHEMA}"."${t}"`,
);
const ERASED = "conversation/t-erased";
const KEPT = "conversation/t-kept";

/** A text no compression shortens (so that TOAST keeps it whole, out of line), `mark` at both ends. */
const incompressible = (mark: string) => `${mark} ${randomBytes(3_000).toString("base64")} ${mark}`;

/** Events of every kind that carries a user's or a tool's text, each with `mark`. */
const marked = (mark: string): NewEvent[] => [
  { _tag: "TurnStarted", at: 1, turn: 1, text: `Find ${mark}`, route: "/", note: "<window/>" },
  {
    _tag: "ConfirmRequested",
    at: 2,
    turn: 1,
    confirmId: "c1",
    callId: "toolu_1",
    tool: "notes_add",
    description: "Add a note.",
    args: { note: `about ${mark}` },
  },
  {
    _tag: "ConfirmAnswered",
    at: 3,
    turn: 1,
    confirmId: "c1",
    answer: "accepted",
    edited: true,
    args: { note: `edited ${mark}` },
  },
  { _tag: "ToolFinished", at: 4, turn: 1, callId: "toolu_1", ok: true, outcome: `ok ${mark}` },
  { _tag: "TextDelta", at: 5, turn: 1, step: 1, text: incompressible(mark) },
  { _tag: "Answered", at: 6, turn: 1, text: `Noted ${mark}.` },
];

const entryOf = (id: string, mark: string, seq: number): ThreadEntry => ({
  id,
  owner: "id:ada",
  title: `About ${mark}`,
  createdAt: 1,
  lastAt: 6,
  preview: `Noted ${mark}.`,
  turns: 1,
  archived: false,
  seq,
});

/** A needle as the brief names it, and its last word: what the words, the tsvector and the GIN index hold. */
const needleOf = (label: string) => {
  const needle = `${label}-${randomUUID()}`;
  return { needle, word: needle.split("-").at(-1) ?? needle };
};

describe.skipIf(!havePostgres)(postgresSuite("erasure on PostgreSQL"), () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  let store: PostgresStore;
  let dataDir: string;
  const { needle, word } = needleOf("needle");
  const kept = needleOf("keeper");
  /** The surviving thread's events, made once: each `marked` holds new random text. */
  const keptEvents = marked(kept.needle);

  /** The files of the three tables: each heap, its TOAST table, and every index of both. */
  const relationFiles = async (): Promise<Array<{ name: string; path: string }>> => {
    const { rows } = await admin.query(
      `WITH heap AS (SELECT oid FROM pg_class WHERE oid = ANY($1::regclass[])),
        toast AS (SELECT reltoastrelid AS oid FROM pg_class WHERE oid IN (SELECT oid FROM heap)
          AND reltoastrelid <> 0),
        rel AS (SELECT oid FROM heap UNION ALL SELECT oid FROM toast
          UNION ALL SELECT indexrelid FROM pg_index
            WHERE indrelid IN (SELECT oid FROM heap UNION ALL SELECT oid FROM toast))
      SELECT c.relname::text AS name, pg_relation_filepath(c.oid) AS path
      FROM rel JOIN pg_class c ON c.oid = rel.oid ORDER BY 1`,
      [TABLES],
    );
    return rows;
  };

  /** What of `marks` each file holds after a CHECKPOINT: "name: mark" for each found, "name: gone" for a file not there. */
  const inFiles = async (
    files: ReadonlyArray<{ name: string; path: string }>,
    marks: ReadonlyArray<string>,
  ): Promise<string[]> => {
    await admin.query("CHECKPOINT");
    const found: string[] = [];
    for (const file of files) {
      const bytes = await readFile(join(dataDir, file.path)).catch(() => undefined);
      if (bytes === undefined) found.push(`${file.name}: gone`);
      else for (const mark of marks) if (bytes.includes(mark)) found.push(`${file.name}: ${mark}`);
    }
    return found;
  };

  /** Every file under the data directory that holds `mark`, relative to it. */
  const everyFileHolding = async (mark: string): Promise<string[]> => {
    await admin.query("CHECKPOINT");
    const found: string[] = [];
    for (const path of await readdir(dataDir, { recursive: true })) {
      const full = join(dataDir, path);
      if (!(await stat(full).catch(() => undefined))?.isFile()) continue;
      const bytes = await readFile(full).catch(() => undefined);
      if (bytes?.includes(mark)) found.push(path);
    }
    return found.sort();
  };

  /** The rows of the three tables (every column, as text) that hold `mark`, and the search hits. */
  const readBySql = async (mark: string) => {
    const { rows } = await admin.query(
      `SELECT 'events' AS "table", count(*)::int AS n FROM "${SCHEMA}".elyra_events e
        WHERE e::text LIKE '%' || $1 || '%'
      UNION ALL SELECT 'threads', count(*)::int FROM "${SCHEMA}".elyra_events_threads t
        WHERE t::text LIKE '%' || $1 || '%'
      UNION ALL SELECT 'texts', count(*)::int FROM "${SCHEMA}".elyra_events_texts x
        WHERE x::text LIKE '%' || $1 || '%' OR x.tsv @@ to_tsquery('simple', $1 || ':*')`,
      [mark],
    );
    return Object.fromEntries(rows.map((r) => [r.table, r.n]));
  };

  /** The columns whose ANALYZE sample (`pg_stats`) holds `mark`. */
  const inStatistics = async (mark: string): Promise<string[]> =>
    (
      await admin.query(
        `SELECT tablename || '.' || attname AS col FROM pg_stats WHERE schemaname = $1
          AND (most_common_vals::text LIKE '%' || $2 || '%'
            OR histogram_bounds::text LIKE '%' || $2 || '%') ORDER BY 1`,
        [SCHEMA, mark],
      )
    ).rows.map((r) => r.col);

  beforeAll(async () => {
    server = await startPostgres();
    admin = new pg.Pool({ connectionString: server.url });
    admin.on("error", () => {});
    dataDir = (await admin.query("SHOW data_directory")).rows[0].data_directory;
    store = postgresStore(server.url, { schema: SCHEMA });
    const index = store.threads;
    // What survives first: on each page it lies at the end, where a VACUUM leaves it in place.
    await store.append(KEPT, keptEvents, 0);
    await index.put(entryOf("t-kept", kept.needle, 6), { turn: 1, text: `Find ${kept.needle}` });
    await store.append(ERASED, marked(needle), 0);
    await index.put(entryOf("t-erased", needle, 1), { turn: 1, text: `Find ${needle}` });
    // The same turn again, at a later seq (its first row is now dead), and a long one (TOAST).
    await index.put(entryOf("t-erased", needle, 5), { turn: 1, text: `Find ${needle} now` });
    await index.put(entryOf("t-erased", needle, 6), { turn: 2, text: incompressible(needle) });
  });
  afterAll(async () => {
    await store?.close();
    await admin?.end();
    await server?.stop();
  });

  it("before: SQL reads the needle in every table, and the files hold it (the spec can see it)", async () => {
    expect(await readBySql(needle)).toEqual({ events: 6, threads: 1, texts: 2 });
    expect(await readBySql(word)).toEqual({ events: 6, threads: 1, texts: 2 });
    expect((await store.threads.search("id:ada", { text: word })).map((t) => t.id)).toEqual([
      "t-erased",
    ]);
    const found = await inFiles(await relationFiles(), [needle, word]);
    // The heaps and TOAST tables hold the text as written; the GIN index holds the word.
    expect(found).toEqual(
      expect.arrayContaining([
        `elyra_events: ${needle}`,
        `elyra_events_threads: ${needle}`,
        `elyra_events_texts: ${needle}`,
        `elyra_events_by_word: ${word}`,
      ]),
    );
    expect(found.filter((f) => f.startsWith("pg_toast_") && f.endsWith(needle))).toHaveLength(2);
    // As autovacuum would: a sample of each column goes into pg_statistic.
    await admin.query(`ANALYZE ${TABLES.join(", ")}`);
    expect(await inStatistics(needle)).not.toEqual([]);
  });

  it("erase and remove: no query of the tables finds it; the other thread is whole", async () => {
    const other = postgresStore(server.url, { schema: SCHEMA });
    const heard: StoreChange[] = [];
    const stop = other.changes((change) => heard.push(change));
    try {
      await expect.poll(() => heard.some((c) => c._tag === "Resync")).toBe(true);
      await store.erase(ERASED, 99);
      await store.threads.remove("id:ada", "t-erased");
      // Another host is told, and reads the tombstone.
      await expect
        .poll(() => heard.some((c) => c._tag === "Appended" && c.stream === ERASED))
        .toBe(true);
      expect(heard.filter((c) => c._tag === "Appended")).toEqual([
        { _tag: "Appended", stream: ERASED, seq: 7 },
      ]);
      expect(await other.read(ERASED)).toEqual([{ _tag: "Erased", seq: 7, at: 99, turn: 0 }]);
    } finally {
      stop();
      await other.close();
    }
    for (const mark of [needle, word])
      expect(await readBySql(mark)).toEqual({ events: 0, threads: 0, texts: 0 });
    expect(await store.threads.search("id:ada", { text: word })).toEqual([]);
    expect(await store.threads.get("id:ada", "t-erased")).toBeUndefined();
    expect(await store.read(KEPT)).toEqual(numbered(keptEvents));
    expect(await readBySql(kept.needle)).toEqual({ events: 6, threads: 1, texts: 1 });
    expect((await store.threads.search("id:ada", { text: kept.word })).map((t) => t.id)).toEqual([
      "t-kept",
    ]);
  });

  it("but ANALYZE's sample still holds it, until the next ANALYZE", async () => {
    expect(await inStatistics(needle)).not.toEqual([]);
    await admin.query(`ANALYZE ${TABLES.join(", ")}`);
    expect(await inStatistics(needle)).toEqual([]);
  });

  it("a plain VACUUM leaves its bytes: in a page's freed space, and as a key of the GIN index", async () => {
    const files = await relationFiles();
    expect(await inFiles(files, [needle, word])).toContain(`elyra_events: ${needle}`);
    await admin.query(`VACUUM ${TABLES.join(", ")}`);
    const left = await inFiles(files, [needle, word]);
    // Nothing moved over the dead rows (the live ones were at the pages' ends): their bytes stay.
    expect(left).toContain(`elyra_events: ${needle}`);
    // GIN keeps a key whose postings are all gone: the word stays in the index.
    expect(left).toContain(`elyra_events_by_word: ${word}`);
    // The same with the index cleanup forced, and with every row frozen.
    await admin.query(`VACUUM (INDEX_CLEANUP ON, FREEZE) ${TABLES.join(", ")}`);
    expect(await inFiles(files, [needle, word])).toEqual(expect.arrayContaining(left));
  });

  it("VACUUM FULL rewrites every file without it; the old files are gone", async () => {
    const before = await relationFiles();
    await admin.query(`VACUUM FULL ${TABLES.join(", ")}`);
    const after = await relationFiles();
    // New files, every one: a heap, its TOAST table and each index are written again.
    expect(after.filter((f) => before.some((b) => b.path === f.path))).toEqual([]);
    expect(await inFiles(after, [needle, word])).toEqual([]);
    expect(await inFiles(before, [needle, word])).toEqual(before.map((f) => `${f.name}: gone`));
    // The thread that survives is whole.
    expect(await inFiles(after, [kept.needle])).toEqual(
      expect.arrayContaining([`elyra_events: ${kept.needle}`]),
    );
    expect(await store.read(KEPT)).toEqual(numbered(keptEvents));
  });

  it("in the end only the WAL holds it, once pg_statistic's old rows are rewritten too", async () => {
    const catalog = (await admin.query("SELECT pg_relation_filepath('pg_statistic') AS path"))
      .rows[0].path as string;
    expect(await everyFileHolding(needle)).toEqual(
      expect.arrayContaining([catalog, expect.stringMatching(/^pg_wal\//)]),
    );
    await admin.query("VACUUM FULL pg_catalog.pg_statistic");
    const left = await everyFileHolding(needle);
    expect(left.length).toBeGreaterThan(0);
    expect(left.every((path) => path.startsWith("pg_wal/"))).toBe(true);
  });

  it("erase holds the stream's lock as an append does, and needs no writer", async () => {
    const stream = "conversation/t-locked";
    await store.append(stream, deltas(2), 0);
    // Another host holds the stream's lease: an append without a writer would be refused.
    const host = postgresStore(server.url, { schema: SCHEMA });
    try {
      const taken = await host.leases.acquire(stream, "host-b");
      expect(taken._tag).toBe("Taken");
      const other = await admin.connect();
      try {
        await other.query("BEGIN");
        await other.query("SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))", [
          `${SCHEMA}.elyra_events`,
          stream,
        ]);
        const erased = store.erase(stream, 42);
        const waited = await Promise.race([
          erased.then(() => false),
          new Promise((resolve) => setTimeout(() => resolve(true), 150)),
        ]);
        expect(waited).toBe(true);
        // Committed while erase waited: it is counted, and erased with the rest.
        await other.query(
          `INSERT INTO "${SCHEMA}".elyra_events VALUES ($1, 3, 3, 'Reset', '{"_tag":"Reset","seq":3,"at":3,"turn":0}')`,
          [stream],
        );
        await other.query("COMMIT");
        await erased;
      } finally {
        await other.query("ROLLBACK");
        other.release();
      }
      expect(await store.read(stream)).toEqual([{ _tag: "Erased", seq: 4, at: 42, turn: 0 }]);
      // The lease's holder, appending at the seq it knew, conflicts.
      if (taken._tag === "Taken")
        expect(
          await conflictOf(
            host.append(stream, deltas(1), 3, { holder: "host-b", token: taken.token }),
          ),
        ).toMatchObject({ expectedSeq: 3, actualSeq: 4 });
    } finally {
      await host.close();
    }
  });
});
