/**
 * The change feed of `postgresStore`: an append sends `pg_notify` in its
 * transaction, so a notification goes out only if it commits; this module
 * LISTENs on a connection of its own, and tells `Resync` whenever it starts
 * (or starts again) listening (decision (ai)).
 */
import { createHash } from "node:crypto";
import type { StoreChange } from "../../../runtime/log/eventStore.ts";

/**
 * A notification's payload is at most this many bytes of UTF-8: half of
 * NOTIFY's limit (under 8 000 bytes in the server's encoding), so that no
 * server encoding takes it past the limit.
 */
export const MAX_PAYLOAD_BYTES = 3_999;

/** Waits before listening again after a drop: 100 ms, doubling to 5 s. */
export const FIRST_RETRY_MS = 100;
export const LAST_RETRY_MS = 5_000;

/**
 * The channel of a table's notifications: `elyra_` and 32 hex digits of the
 * SHA-256 of `schema.table`, a lower-case identifier under PostgreSQL's 63
 * bytes whatever the names, one per table.
 *
 * @example
 * ```ts
 * channelOf("public", "elyra_events"); // "elyra_…" (38 characters)
 * ```
 */
export const channelOf = (schema: string, table: string): string =>
  `elyra_${createHash("sha256").update(`${schema}.${table}`).digest("hex").slice(0, 32)}`;

/**
 * The payload that tells `stream` reached `seq`: `{"stream":…,"seq":…}`, or
 * `{"seq":…}` when the stream's name would take it past
 * {@link MAX_PAYLOAD_BYTES} (a listener then tells `Resync`).
 *
 * @example
 * ```ts
 * payloadOf("w1", 7); // '{"stream":"w1","seq":7}'
 * ```
 */
export const payloadOf = (stream: string, seq: number): string => {
  const payload = JSON.stringify({ stream, seq });
  return Buffer.byteLength(payload) <= MAX_PAYLOAD_BYTES ? payload : JSON.stringify({ seq });
};

/**
 * What the feed tells: a change of the log, or a message waiting in the
 * messages table for host `to` (its `id`), sent by `WriterLeases.send`.
 */
export type Notice =
  | StoreChange
  | { readonly _tag: "Message"; readonly to: string; readonly id: number };

/** What a payload tells; `undefined` for one this code did not send (ignored). */
const changeOf = (payload: string | undefined): Notice | undefined => {
  if (payload === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const { stream, seq, to, message } = value as {
    stream?: unknown;
    seq?: unknown;
    to?: unknown;
    message?: unknown;
  };
  if (typeof to === "string" && typeof message === "number" && Number.isSafeInteger(message))
    return { _tag: "Message", to, id: message };
  if (typeof seq !== "number" || !Number.isSafeInteger(seq)) return undefined;
  if (stream === undefined) return { _tag: "Resync" };
  return typeof stream === "string" ? { _tag: "Appended", stream, seq } : undefined;
};

/** A notification as pg's `Client` emits it. */
interface Notification {
  readonly channel: string;
  readonly payload?: string;
}

/**
 * The connection the feed listens on: a pg `PoolClient` is one. Its events
 * are how notifications and a drop arrive.
 */
export interface ListenConnection {
  query(text: string): Promise<unknown>;
  release(destroy?: Error | boolean): void;
  on(event: "notification", listener: (message: Notification) => void): unknown;
  on(event: "error" | "end", listener: () => void): unknown;
  off(event: "notification", listener: (message: Notification) => void): unknown;
  off(event: "error" | "end", listener: () => void): unknown;
}

/** A feed of one table's changes, shared by its store's listeners. */
export interface ChangeFeed {
  readonly subscribe: (listener: (notice: Notice) => void) => () => void;
  /** Ends the LISTEN connection and any retry; a later subscriber gets nothing. */
  readonly close: () => void;
}

/**
 * A feed that LISTENs on `channel` over a connection `connect` lends (taken
 * at the first subscriber, ended at the last unsubscribe or at `close`). A
 * connection that drops, or one that could not be had, is tried again after
 * 100 ms, doubling to 5 s; every time it listens, it tells `Resync`.
 *
 * @example
 * ```ts
 * const feed = changeFeed(channelOf("public", "elyra_events"), () => pool.connect());
 * const stop = feed.subscribe((change) => console.log(change));
 * ```
 */
export const changeFeed = (
  channel: string,
  connect: () => Promise<ListenConnection>,
): ChangeFeed => {
  // Entries, not functions: one function subscribed twice is two subscriptions.
  const listeners = new Set<{ readonly listener: (notice: Notice) => void }>();
  let closed = false;
  /** Bumped at every stop: a connection made for an older run is ended, not used. */
  let run = 0;
  let active = false;
  /** Ends the connection listening now, if one is: its run is over, so no retry follows. */
  let ending: (() => void) | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let retryMs = FIRST_RETRY_MS;

  const tell = (change: Notice) => {
    for (const { listener } of [...listeners]) {
      try {
        listener(change);
      } catch {
        // A listener's failure is its own: the others, and the feed, go on.
      }
    }
  };

  const end = (client: ListenConnection, detach: () => void) => {
    detach();
    try {
      // Ended, never given back: a pooled connection must not go on listening.
      client.release(true);
    } catch {
      // Released already (pg throws on a second release).
    }
  };

  const retry = (of: number) => {
    if (of !== run || closed || listeners.size === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      void listen(of);
    }, retryMs);
    retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
  };

  const listen = async (of: number): Promise<void> => {
    let client: ListenConnection;
    try {
      client = await connect();
    } catch {
      retry(of);
      return;
    }
    let gone = false;
    const onNotification = (message: Notification) => {
      if (gone || message.channel !== channel) return;
      const change = changeOf(message.payload);
      if (change !== undefined) tell(change);
    };
    const onDrop = () => {
      if (gone) return;
      gone = true;
      end(client, detach);
      if (ending === endThis) ending = undefined;
      retry(of);
    };
    const endThis = () => {
      gone = true;
      end(client, detach);
    };
    const detach = () => {
      client.off("notification", onNotification);
      client.off("error", onDrop);
      client.off("end", onDrop);
      // A late error of a connection being ended must not be uncaught.
      client.on("error", () => {});
    };
    if (of !== run) {
      gone = true;
      end(client, () => client.on("error", () => {}));
      return;
    }
    client.on("notification", onNotification);
    client.on("error", onDrop);
    client.on("end", onDrop);
    try {
      await client.query(`LISTEN "${channel}"`);
    } catch {
      onDrop();
      return;
    }
    if (gone) return;
    if (of !== run) {
      endThis();
      return;
    }
    ending = endThis;
    retryMs = FIRST_RETRY_MS;
    // Whatever committed before LISTEN took effect was not told: every reader reads again.
    tell({ _tag: "Resync" });
  };

  const stop = () => {
    run++;
    active = false;
    retryMs = FIRST_RETRY_MS;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    ending?.();
    ending = undefined;
  };

  return {
    subscribe: (listener) => {
      if (closed) return () => {};
      const entry = { listener };
      listeners.add(entry);
      if (!active) {
        active = true;
        void listen(run);
      }
      return () => {
        if (!listeners.delete(entry) || listeners.size > 0) return;
        stop();
      };
    },
    close: () => {
      closed = true;
      listeners.clear();
      stop();
    },
  };
};
