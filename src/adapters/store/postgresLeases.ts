/**
 * Writer leases and host messages of `postgresStore` (decision (aj)): rows
 * in three tables beside the events, taken under the stream's advisory lock
 * (the lock an append holds), a fencing token from a sequence, a heartbeat
 * per host rather than per lease, and messages as rows announced by NOTIFY
 * on the store's channel.
 */
import type {
  LeaseTaking,
  Membership,
  Writer,
  WriterLeases,
} from "../../runtime/log/writerLeases.ts";
import type { Notice } from "./postgresChanges.ts";

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
  readonly leases: string;
  readonly hosts: string;
  readonly messages: string;
  readonly tokens: string;
  readonly channel: string;
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  /** A transaction holding the stream's advisory lock from its start. */
  readonly locked: <A>(stream: string, body: (query: Query) => Promise<A>) => Promise<A>;
  readonly transaction: <A>(body: (query: Query) => Promise<A>) => Promise<A>;
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
    acquire: (stream, holder) =>
      t.locked(stream, async (query): Promise<LeaseTaking> => {
        const [lease] = (await query(
          `SELECT l.holder, l.token::text AS token,
             coalesce(h.expires_at > clock_timestamp(), false) AS alive
           FROM ${t.leases} l LEFT JOIN ${t.hosts} h ON h.holder = l.holder
           WHERE l.stream = $1`,
          [stream],
        )) as ReadonlyArray<{ holder: string; token: string; alive: boolean }>;
        if (lease?.alive && lease.holder !== holder) return { _tag: "Held", holder: lease.holder };
        // The taker's heartbeat is fresh from now, whether or not it joined.
        await beat(query, holder);
        if (lease !== undefined && lease.holder === holder)
          return { _tag: "Taken", token: Number(lease.token), tookOver: false };
        const [next] = (await query(
          `INSERT INTO ${t.leases} (stream, holder, token) VALUES ($1, $2, nextval('${t.tokens}'))
           ON CONFLICT (stream) DO UPDATE SET holder = EXCLUDED.holder, token = EXCLUDED.token
           RETURNING token::text AS token`,
          [stream, holder],
        )) as ReadonlyArray<{ token: string }>;
        return { _tag: "Taken", token: Number(next?.token), tookOver: lease !== undefined };
      }),
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
