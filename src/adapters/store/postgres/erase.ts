/**
 * The erasure of a stream in `postgresStore`: in one transaction that holds
 * the stream's advisory lock (the lock an append holds, so that erasing is
 * ordered with appends), every row of the stream is deleted and the
 * `Erased` tombstone inserted one seq past its last, and the change feed is
 * told as after an append, at COMMIT.
 */
import { InvariantBroken } from "../../../runtime/errors.ts";
import type { NewEvent } from "../../../runtime/log/events.ts";
import { toRows } from "../eventCodec.ts";
import { payloadOf } from "./changes.ts";
import type { Connections } from "./connections.ts";

/** What erasing is lent by its store. */
export interface EraseTables {
  /** The events table, quoted. */
  readonly events: string;
  /** The first key of every stream lock. */
  readonly lockSpace: string;
  /** The change feed's channel. */
  readonly channel: string;
  /** Makes the store's tables, once. */
  readonly ready: () => Promise<void>;
  readonly transaction: Connections["transaction"];
}

/** The tombstone of a stream whose last seq is `last`, erased at `at`, encoded as an append encodes its events. */
const tombstoneAt = (last: number, at: number) => {
  const erased: NewEvent = { _tag: "Erased", at, turn: 0 };
  const [row] = toRows([erased], last).rows;
  if (row === undefined)
    throw new InvariantBroken({ where: "postgresErase", reason: "toRows gave no row" });
  return row;
};

/**
 * `EventStore.erase` on the store's tables. A stream with no row, or whose
 * only row is a tombstone, is left as it is, and nothing is told. An `at`
 * that would not read back (a NaN) is refused before any connection is
 * taken. No writer is asked for: erasing is the owner's, wherever the
 * stream's lease is, and the lease's holder, appending at the seq it knew,
 * then meets `AppendConflict`. The deleted rows' bytes stay in the table's
 * files, dead, until `VACUUM` reclaims them.
 */
export const postgresErase =
  (t: EraseTables) =>
  async (stream: string, at: number): Promise<void> => {
    tombstoneAt(0, at);
    await t.ready();
    await t.transaction(async (query) => {
      await query("SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))", [
        t.lockSpace,
        stream,
      ]);
      // Read under the lock: an append that committed while this waited is counted, and erased.
      const [found] = (await query(
        `SELECT coalesce(max(seq), 0)::text AS seq, count(*)::int AS n,
          bool_and(type = 'Erased') AS erased FROM ${t.events} WHERE stream = $1`,
        [stream],
      )) as ReadonlyArray<{ seq: string; n: number; erased: boolean | null }>;
      const last = Number(found?.seq ?? 0);
      const rows = Number(found?.n ?? 0);
      if (rows === 0 || (rows === 1 && found?.erased === true)) return;
      const row = tombstoneAt(last, at);
      // One statement: the delete and the insert see the same snapshot, so the tombstone stays.
      // The notification goes out at COMMIT, and only then.
      await query(
        `WITH gone AS (DELETE FROM ${t.events} WHERE stream = $1 RETURNING 1),
          put AS (INSERT INTO ${t.events} (stream, seq, at, type, data)
            SELECT $1, (e->>'seq')::bigint, (e->>'at')::float8, e->>'_tag', e
            FROM (SELECT $2::jsonb AS e) AS tombstone RETURNING 1)
        SELECT (SELECT count(*) FROM gone)::int AS gone, (SELECT count(*) FROM put)::int AS put,
          pg_notify($3, $4)`,
        [stream, row.data, t.channel, payloadOf(stream, row.seq)],
      );
    });
  };
