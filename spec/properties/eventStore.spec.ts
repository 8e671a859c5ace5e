/**
 * E1: two appends at the same expected sequence: exactly one succeeds, the
 * other gets an AppendConflict, and the stream holds exactly the winner's
 * events. On every store, the appends one after the other and issued together
 * in an order fc.scheduler picks; on Postgres, through two pools, as two
 * processes would.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Arbitrary, Schema } from "effect";
import { memoryStore } from "elyra-assistant/log";
import { type PostgresStore, postgresStore } from "elyra-assistant/postgres";
import { type SqliteStore, sqliteStore } from "elyra-assistant/sqlite";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppendConflict, type EventStore } from "../../src/runtime/log/eventStore.ts";
import { LogEvent, type NewEvent } from "../../src/runtime/log/events.ts";
import {
  havePostgres,
  type PostgresServer,
  postgresSuite,
  startPostgres,
} from "../adapters/postgresServer.ts";
import { numbered } from "../fixtures/storeContract.ts";
import { runs, timeoutFor } from "./runs.ts";

const NUM_RUNS = 1000;
// Each Postgres run is four to six transactions over loopback (a few ms), against the memory
// store's microseconds: 200 runs keep each property near a second and still race the two pools
// hundreds of times.
const POSTGRES_RUNS = 200;

/**
 * Any event `LogEvent` allows, as JSON gives it back: no undefined fields, no
 * -0, and none of the NaNs and Infinities a durable store refuses (this
 * property is about who wins, not about what JSON can hold).
 */
const newEvent: fc.Arbitrary<NewEvent> = Arbitrary.make(LogEvent)
  .map((event) => JSON.parse(JSON.stringify(event)) as unknown)
  .filter(Schema.is(LogEvent))
  .map(({ seq: _seq, ...event }) => event as NewEvent);

const batch = fc.array(newEvent, { minLength: 1, maxLength: 5 });
const before = fc.array(newEvent, { maxLength: 4 });

type Settled = { readonly ok: true } | { readonly ok: false; readonly error: unknown };
const settle = (promise: Promise<unknown>): Promise<Settled> =>
  promise.then(
    () => ({ ok: true }),
    (error: unknown) => ({ ok: false, error }),
  );

/** Checks E1 once the two appends at `expectedSeq` have settled. */
const exactlyOneWon = async (
  store: EventStore,
  stream: string,
  prefix: ReadonlyArray<NewEvent>,
  batches: readonly [ReadonlyArray<NewEvent>, ReadonlyArray<NewEvent>],
  settled: readonly [Settled, Settled],
) => {
  const winners = settled.flatMap((s, i) => (s.ok ? [i] : []));
  expect(winners).toHaveLength(1);
  const winner = winners[0]!;
  const loser = settled[1 - winner]!;
  expect(loser.ok).toBe(false);
  if (!loser.ok) {
    expect(loser.error).toBeInstanceOf(AppendConflict);
    expect(loser.error).toMatchObject({
      stream,
      expectedSeq: prefix.length,
      actualSeq: prefix.length + batches[winner]!.length,
    });
  }
  expect(await store.read(stream)).toEqual([
    ...numbered(prefix),
    ...numbered(batches[winner]!, prefix.length),
  ]);
};

/**
 * The two properties on the stores `stores` gives: each append goes through
 * one of the two (the same store twice: a SQLite file has one store, which
 * refuses a second with StoreInUse), each run in a stream of its own.
 */
const e1 = (
  name: string,
  stores: () => readonly [EventStore, EventStore],
  numRuns: number = NUM_RUNS,
) => {
  let streams = 0;
  const fresh = () => `${name}-${++streams}`;

  it("one after the other: the first wins, the second conflicts", {
    timeout: timeoutFor(),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(before, batch, batch, fc.nat(1), async (prefix, a, b, via) => {
        const [one, other] = stores();
        const stream = fresh();
        await one.append(stream, prefix, 0);
        const first = await settle(one.append(stream, a, prefix.length));
        const second = await settle((via === 0 ? one : other).append(stream, b, prefix.length));
        expect(first.ok).toBe(true);
        await exactlyOneWon(one, stream, prefix, [a, b], [first, second]);
      }),
      { numRuns: runs(numRuns) },
    );
  });

  it("issued together, in an order fc.scheduler picks: exactly one wins", {
    timeout: timeoutFor(),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), before, batch, batch, async (s, prefix, a, b) => {
        const [one, other] = stores();
        const stream = fresh();
        await one.append(stream, prefix, 0);
        const appends = [
          [one, a],
          [other, b],
        ] as const;
        const settled = appends.map(([store, events], i) =>
          settle(
            s.schedule(Promise.resolve(), `append ${i}`).then(() => {
              const append = store.append(stream, events, prefix.length);
              // The scheduler reads the append only when it lets its reply through; a refusal
              // that comes first (a real database answers on its own time) is not left unhandled.
              append.catch(() => undefined);
              return s.schedule(append, `reply ${i}`);
            }),
          ),
        );
        await s.waitAll();
        const [x, y] = await Promise.all(settled);
        await exactlyOneWon(one, stream, prefix, [a, b], [x!, y!]);
      }),
      { numRuns: runs(numRuns) },
    );
  });
};

describe("E1: two appends at the same expected seq, exactly one succeeds", () => {
  describe("memoryStore", () => {
    const store = memoryStore();
    e1("memory", () => [store, store]);
  });

  describe("sqliteStore, on a file", () => {
    let dir: string;
    let store: SqliteStore;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "elyra-e1-"));
      store = sqliteStore(join(dir, "events.db"));
    });
    afterAll(async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    });
    e1("sqlite", () => [store, store]);
  });

  describe.skipIf(!havePostgres)(postgresSuite("postgresStore, through two pools"), () => {
    let server: PostgresServer;
    let one: PostgresStore;
    let other: PostgresStore;
    beforeAll(async () => {
      server = await startPostgres();
      one = postgresStore(server.url);
      other = postgresStore(server.url);
      await Promise.all([one.ready(), other.ready()]);
    });
    afterAll(async () => {
      await Promise.all([one?.close(), other?.close()]);
      await server?.stop();
    });
    e1("postgres", () => [one, other], POSTGRES_RUNS);
  });
});
