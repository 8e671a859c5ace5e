/**
 * The event store port: one stream of events per window's conversation, with
 * optimistic concurrency, as in KurrentDB's expected revision.
 */
import { Data } from "effect";
import type { ThreadIndex } from "../threads/threadIndex.ts";
import type { LogEvent, NewEvent } from "./events.ts";
import type { Writer, WriterLeases } from "./writerLeases.ts";

/**
 * An append whose `expectedSeq` is not the stream's last seq: someone else appended first.
 *
 * @example
 * ```ts
 * try {
 *   await store.append("w1", events, 0);
 * } catch (error) {
 *   if (!(error instanceof AppendConflict)) throw error;
 *   console.log(`read again from ${error.expectedSeq}: the stream is at ${error.actualSeq}`);
 * }
 * ```
 */
export class AppendConflict extends Data.TaggedError("AppendConflict")<{
  readonly stream: string;
  readonly expectedSeq: number;
  readonly actualSeq: number;
}> {
  override get message(): string {
    return `stream ${JSON.stringify(this.stream)} is at seq ${this.actualSeq}, not ${this.expectedSeq}`;
  }
}

/**
 * What a store's change feed tells: `Appended` when `stream` reached `seq`
 * (the last seq of an append's batch, written by any process, this one
 * included), or `Resync` when the feed may have missed some (it started, or
 * started again, listening), so that every reader reads again from its own
 * last seq. Never the events themselves: a reader reads them.
 *
 * @example
 * ```ts
 * const change: StoreChange = { _tag: "Appended", stream: "w1", seq: 7 };
 * ```
 */
export type StoreChange =
  | { readonly _tag: "Appended"; readonly stream: string; readonly seq: number }
  | { readonly _tag: "Resync" };

/**
 * Where logs live. `append` writes all of `events` or none, numbering them
 * from `expectedSeq + 1`, and resolves with the events as written (a window
 * whose store resolves with none fails with `StoreContractBroken`); it fails
 * with {@link AppendConflict} when the stream's last seq is not `expectedSeq`
 * (0 for a new stream). `read` gives the events with `seq > fromSeq` (and
 * `seq <= toSeq` when given: a page, so a long log is sent on a page at a
 * time), in order, and may skip events of types this code does not know (rows a newer
 * version wrote); `lastSeq` counts them, so a reader appends at `lastSeq`,
 * never at the seq of the last event it read. A store with `leases` refuses
 * an append given a `writer` that is not the stream's lease now with
 * `LeaseLost`, checked in the same step as `expectedSeq`.
 */
export interface EventStore {
  readonly append: (
    stream: string,
    events: ReadonlyArray<NewEvent>,
    expectedSeq: number,
    writer?: Writer,
  ) => Promise<ReadonlyArray<LogEvent>>;
  readonly read: (
    stream: string,
    fromSeq?: number,
    toSeq?: number,
  ) => Promise<ReadonlyArray<LogEvent>>;
  /**
   * The seq of the stream's last event, whether `read` gives that event or
   * skips it: where the next append goes. 0 when the stream has none.
   */
  readonly lastSeq: (stream: string) => Promise<number>;
  /**
   * Optional: what `lastSeq` then `read(stream, fromSeq)` give, read at one
   * moment, in one round trip (`postgresStore` has it: a store in the same
   * process has no round trip to save). A window reads its log so when the
   * store offers it, and asks the two otherwise.
   *
   * @example
   * ```ts
   * const { events, lastSeq } = (await store.readToEnd?.("w1", 0)) ?? {
   *   lastSeq: await store.lastSeq("w1"),
   *   events: await store.read("w1", 0),
   * };
   * ```
   */
  readonly readToEnd?: (
    stream: string,
    fromSeq: number,
  ) => Promise<{ readonly events: ReadonlyArray<LogEvent>; readonly lastSeq: number }>;
  /** Forgets a stream (a memory store does, when its window closes). */
  readonly drop: (stream: string) => Promise<void>;
  /**
   * Optional: erases a stream for good. Every event of it is deleted and its
   * only event is then an `Erased` tombstone (`at`, turn 0) one seq past its
   * last, in one step, so an append at the seq a writer knew is refused with
   * `AppendConflict`, and a reader reads the tombstone. Where the store can
   * say so, the erased events' bytes are gone from its files too (SQLite's
   * `secure_delete`, its WAL emptied). A stream with no event, or already
   * erased, is left as it is.
   *
   * @example
   * ```ts
   * await store.erase?.("conversation/t-1", Date.now());
   * await store.read("conversation/t-1"); // [{ _tag: "Erased", seq: 14, at: …, turn: 0 }]
   * ```
   */
  readonly erase?: (stream: string, at: number) => Promise<void>;
  /**
   * Optional: the store's own index of each user's threads, kept beside the
   * logs (the host keeps one in memory for a store without it).
   */
  readonly threads?: ThreadIndex;
  /** Whether closing a window keeps its log (true for durable stores). */
  readonly durable: boolean;
  readonly close?: () => Promise<void>;
  /**
   * The store's change feed, when it has one: `listener` is told a
   * {@link StoreChange} after each append that committed (by any process
   * sharing the store, this one included), in seq order per stream; never
   * for one that failed or rolled back. It carries the stream and seq, never
   * the events: read them (`read(stream, yourLastSeq)`). A listener may be
   * told a seq it already has (its own append, or one it read already) and
   * must ignore it. After `Resync` (the feed may have missed changes: its
   * connection dropped and came back) every reader reads again from its last
   * seq, so delivery is at least once. A listener that throws is skipped, not
   * the feed. Returns the unsubscribe function; the feed's resources (a
   * Postgres LISTEN connection) go with the last listener, or at `close`.
   *
   * @example
   * ```ts
   * const stop = store.changes?.((change) => {
   *   if (change._tag === "Resync" || (change.stream === "w1" && change.seq > seen))
   *     void catchUp("w1");
   * });
   * // later
   * stop?.();
   * ```
   */
  readonly changes?: (listener: (change: StoreChange) => void) => () => void;
  /**
   * One writer per stream among the processes sharing the store, when it
   * offers it (`postgresStore` does; `memoryStore({ shared: true })` for
   * in-process tests): hosts on the store take a window's lease to write it,
   * and tell the holder what its users ask elsewhere (decision (aj)).
   */
  readonly leases?: WriterLeases;
}
