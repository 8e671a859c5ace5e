/**
 * The append of `postgresStore` in one round trip (decision (ah)): after the
 * stream's advisory lock, one statement reads the stream's last seq and
 * whether the writer holds its lease (the fencing check), inserts the events
 * only if both are as expected, and sends the notification only if it
 * inserted. Sent with BEGIN, the lock and COMMIT as one query, so a host
 * never holds the lock between round trips of an append.
 */
import type { Writer } from "../../../runtime/log/writerLeases.ts";
import type { StoreNames } from "./schema.ts";
import { literal } from "./text.ts";

/** What the append's statement found, and what it did. */
export interface AppendOutcome {
  /** The stream's last seq before the append. */
  readonly seq: number;
  /** Whether the writer holds the stream's lease (with no writer: no live host holds it). */
  readonly held: boolean;
  /** With no writer: the live host that holds the stream's lease, if one does. */
  readonly holder: string | null;
  /** How many events it inserted: all of them, or none. */
  readonly added: number;
}

/**
 * The statement (values inlined as literals) that appends `data` (the
 * events' JSON array) to `stream` at `expectedSeq` under `writer`, telling
 * `payload` on `channel`; its one row is an {@link AppendOutcome}'s.
 */
export const appendStatement = (
  n: StoreNames,
  channel: string,
  a: {
    readonly stream: string;
    readonly expectedSeq: number;
    readonly writer: Writer | undefined;
    readonly data: string;
    readonly payload: string;
  },
): string => {
  const stream = literal(a.stream);
  const live = `SELECT l.holder FROM ${n.leases} l JOIN ${n.hosts} h ON h.holder = l.holder
    WHERE l.stream = ${stream} AND h.expires_at > clock_timestamp()`;
  const fence =
    a.writer === undefined
      ? `NOT EXISTS (${live}) AS held, (${live} LIMIT 1) AS holder`
      : `EXISTS (SELECT 1 FROM ${n.leases} WHERE stream = ${stream}
          AND holder = ${literal(a.writer.holder)} AND token = ${literal(String(a.writer.token))}::bigint) AS held,
        NULL::text AS holder`;
  // `seq`, `at` and `type` taken from the event itself, so that they cannot disagree with it.
  // The notification goes out at COMMIT, and only then, and only if the events were inserted.
  return `WITH found AS (SELECT coalesce(max(seq), 0) AS seq, ${fence}
      FROM ${n.events} WHERE stream = ${stream}),
    inserted AS (INSERT INTO ${n.events} (stream, seq, at, type, data)
      SELECT ${stream}, (e->>'seq')::bigint, (e->>'at')::float8, e->>'_tag', e
      FROM found, jsonb_array_elements(${literal(a.data)}::jsonb) AS e
      WHERE found.held AND found.seq = ${a.expectedSeq}
      RETURNING 1),
    told AS (SELECT pg_notify(${literal(channel)}, ${literal(a.payload)})
      FROM (SELECT 1 FROM inserted LIMIT 1) AS i)
    SELECT found.seq::text AS seq, found.held, found.holder,
      (SELECT count(*) FROM inserted)::int AS added, (SELECT count(*) FROM told)::int AS told
    FROM found`;
};

/** The outcome in the statement's row. */
export const outcomeOf = (rows: ReadonlyArray<unknown>): AppendOutcome => {
  const row = rows[0] as { seq: string; held: boolean; holder: string | null; added: number };
  return {
    seq: Number(row.seq),
    held: row.held === true,
    holder: row.holder ?? null,
    added: Number(row.added),
  };
};
