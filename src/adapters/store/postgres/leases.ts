/**
 * Writer leases and host messages of `postgresStore` (decision (aj)): rows
 * in three tables beside the events, taken under the stream's advisory lock
 * (the lock an append holds), a fencing token from a sequence, a heartbeat
 * per host rather than per lease, and messages as rows announced by NOTIFY
 * on the store's channel.
 */
import { InvariantBroken } from "../../../runtime/errors.ts";
import type {
  LeaseTaking,
  Membership,
  Writer,
  WriterLeases,
} from "../../../runtime/log/writerLeases.ts";
import type { Notice } from "./changes.ts";
import { literal } from "./text.ts";

/** Missed heartbeats for this long free a host's leases: 5 s. */
export const LEASE_MS = 5_000;
/** A host's heartbeat: every second. */
export const HEARTBEAT_MS = 1_000;
/** A message no host claimed in this long is deleted. */
export const MESSAGE_TTL = "10 minutes";
/** A host row whose heartbeat stopped this long ago is deleted. */
const HOST_TTL = "1 hour";

type Query = (text: string, values?: unknown[]) => Promise<ReadonlyArray<unknown>>;

/** The tables, and what the store lends the leases. */
export interface LeaseTables {
  /** The events table: a taking tells the stream's last seq, read under the same lock. */
  readonly events: string;
  readonly leases: string;
  readonly hosts: string;
  readonly messages: string;
  readonly tokens: string;
  readonly channel: string;
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  readonly transaction: <A>(body: (query: Query) => Promise<A>) => Promise<A>;
  /** `statement` (values inlined) in a transaction holding the stream's advisory lock, in one round trip. */
  readonly oneTrip: (stream: string, statement: string) => Promise<ReadonlyArray<unknown>>;
  readonly query: Query;
  readonly notices: (listener: (notice: Notice) => void) => () => void;
}

/** The DDL of the lease tables, run in the store's migration. */
export const leaseTablesDdl = (
  t: Pick<LeaseTables, "leases" | "hosts" | "messages" | "tokens">,
) => [
  `CREATE SEQUENCE IF NOT EXISTS ${t.tokens}`,
  `CREATE TABLE IF NOT EXISTS ${t.hosts} (
    holder text PRIMARY KEY,
    expires_at timestamptz NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS ${t.leases} (
    stream text PRIMARY KEY,
    holder text NOT NULL,
    token bigint NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS ${t.messages} (
    id bigserial PRIMARY KEY,
    to_host text NOT NULL,
    body jsonb NOT NULL,
    at timestamptz NOT NULL DEFAULT clock_timestamp()
  )`,
];

/** The SQL that says whether `writer` holds the stream's lease (parameters $1 stream, $2 holder, $3 token). */
export const holdsSql = (leases: string): string =>
  `EXISTS (SELECT 1 FROM ${leases} WHERE stream = $1 AND holder = $2 AND token = $3)`;

/** The leases of one store's tables. */
export const postgresLeases = (t: LeaseTables): WriterLeases => {
  const BEAT = `INSERT INTO ${t.hosts} (holder, expires_at)
    VALUES ($1, clock_timestamp() + $2 * interval '1 millisecond')
    ON CONFLICT (holder) DO UPDATE SET expires_at = EXCLUDED.expires_at`;
  const beat = (query: Query, holder: string) => query(BEAT, [holder, t.leaseMs]);
  const deliver = async (holder: string, onMessage: (message: unknown) => void, id?: number) => {
    // A message older than a lease is dropped, not done: its sender gave up on it by then, and
    // a stop read late (after a dropped LISTEN connection) must not stop a later turn.
    const fresh = `id, body::text AS body,
      at > clock_timestamp() - ${t.leaseMs} * interval '1 millisecond' AS fresh`;
    const rows =
      id === undefined
        ? await t.query(`DELETE FROM ${t.messages} WHERE to_host = $1 RETURNING ${fresh}`, [holder])
        : await t.query(
            `DELETE FROM ${t.messages} WHERE id = $1 AND to_host = $2 RETURNING ${fresh}`,
            [id, holder],
          );
    const sorted = [...(rows as ReadonlyArray<{ id: string; body: string; fresh: boolean }>)]
      .filter((row) => row.fresh)
      .sort((a, b) => Number(a.id) - Number(b.id));
    for (const row of sorted) {
      try {
        onMessage(JSON.parse(row.body));
      } catch {
        // A message its host cannot take is its own loss; the next ones go on.
      }
    }
  };

  return {
    leaseMs: t.leaseMs,
    join: async (holder, onMessage): Promise<Membership> => {
      await beat(t.query, holder);
      let beats = 0;
      const timer = setInterval(() => {
        beats++;
        void beat(t.query, holder).catch(() => undefined);
        // Now and then, what no one will read goes: messages to dead hosts, hosts long dead.
        if (beats % 60 === 0)
          void t
            .query(
              `WITH m AS (DELETE FROM ${t.messages} WHERE at < clock_timestamp() - interval '${MESSAGE_TTL}')
               DELETE FROM ${t.hosts} WHERE expires_at < clock_timestamp() - interval '${HOST_TTL}'`,
            )
            .catch(() => undefined);
      }, t.heartbeatMs);
      timer.unref();
      // One read at a time, in the order the notices came: messages reach the host as sent.
      let reading: Promise<void> = Promise.resolve();
      const read = (id?: number) => {
        reading = reading.then(() => deliver(holder, onMessage, id)).catch(() => undefined);
      };
      const stop = t.notices((notice) => {
        // After a drop of the LISTEN connection, every message waiting for this host is read.
        if (notice._tag === "Resync") read();
        else if (notice._tag === "Message" && notice.to === holder) read(notice.id);
      });
      return {
        leave: async () => {
          clearInterval(timer);
          stop();
          await t.transaction(async (query) => {
            await query(`DELETE FROM ${t.leases} WHERE holder = $1`, [holder]);
            await query(`DELETE FROM ${t.hosts} WHERE holder = $1`, [holder]);
          });
        },
      };
    },
    // One round trip, under the stream's lock: the lease as it is, and, unless another live host
    // holds it, the taker's heartbeat made fresh (whether or not it joined) and the lease kept
    // (its own, same token) or taken (a new token); and the stream's last seq, so that a taker
    // whose log is there already reads nothing more.
    acquire: async (stream, holder): Promise<LeaseTaking> => {
      const [s, h] = [literal(stream), literal(holder)];
      const [row] = (await t.oneTrip(
        stream,
        `WITH lease AS (SELECT l.holder, l.token,
             coalesce(hb.expires_at > clock_timestamp(), false) AS alive
           FROM ${t.leases} l LEFT JOIN ${t.hosts} hb ON hb.holder = l.holder WHERE l.stream = ${s}),
         free AS (SELECT NOT EXISTS (SELECT 1 FROM lease WHERE alive AND holder <> ${h}) AS ok),
         beat AS (INSERT INTO ${t.hosts} (holder, expires_at)
           SELECT ${h}, clock_timestamp() + ${t.leaseMs} * interval '1 millisecond' FROM free WHERE ok
           ON CONFLICT (holder) DO UPDATE SET expires_at = EXCLUDED.expires_at RETURNING 1),
         taken AS (INSERT INTO ${t.leases} (stream, holder, token)
           SELECT ${s}, ${h}, nextval('${t.tokens}') FROM free
           WHERE ok AND NOT EXISTS (SELECT 1 FROM lease WHERE holder = ${h})
           ON CONFLICT (stream) DO UPDATE SET holder = EXCLUDED.holder, token = EXCLUDED.token
           RETURNING token)
         SELECT (SELECT holder FROM lease) AS holder, (SELECT token::text FROM lease) AS token,
           (SELECT ok FROM free) AS ok, (SELECT token::text FROM taken) AS taken,
           (SELECT count(*) FROM beat)::int AS beats,
           (SELECT coalesce(max(seq), 0)::text FROM ${t.events} WHERE stream = ${s}) AS seq`,
      )) as ReadonlyArray<{
        holder: string | null;
        token: string | null;
        ok: boolean;
        taken: string | null;
        seq: string;
      }>;
      if (row === undefined)
        throw new InvariantBroken({ where: "postgresLeases", reason: "a taking gave no row" });
      if (!row.ok) return { _tag: "Held", holder: row.holder ?? "" };
      if (row.holder === holder)
        return {
          _tag: "Taken",
          token: Number(row.token),
          tookOver: false,
          lastSeq: Number(row.seq),
        };
      return {
        _tag: "Taken",
        token: Number(row.taken),
        tookOver: row.holder !== null,
        lastSeq: Number(row.seq),
      };
    },
    release: async (stream: string, writer: Writer) => {
      await t.query(`DELETE FROM ${t.leases} WHERE stream = $1 AND holder = $2 AND token = $3`, [
        stream,
        writer.holder,
        writer.token,
      ]);
    },
    send: async (to, message) => {
      await t.query(
        `WITH m AS (INSERT INTO ${t.messages} (to_host, body) VALUES ($1, $2::jsonb) RETURNING id)
         SELECT pg_notify('${t.channel}', json_build_object('to', $1::text, 'message', m.id)::text) FROM m`,
        [to, JSON.stringify(message)],
      );
    },
  };
};
