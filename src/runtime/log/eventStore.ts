/**
 * The event store port: one stream of events per window's conversation, with
 * optimistic concurrency, as in KurrentDB's expected revision.
 */
import { Data } from "effect";
import type { LogEvent, NewEvent } from "./events.ts";

/** An append whose `expectedSeq` is not the stream's last seq: someone else appended first. */
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
 * Where logs live. `append` writes all of `events` or none, numbering them
 * from `expectedSeq + 1`, and resolves with the events as written (a window
 * whose store resolves with none fails with `StoreContractBroken`); it fails
 * with {@link AppendConflict} when the stream's last seq is not `expectedSeq`
 * (0 for a new stream). `read` gives the events with `seq > fromSeq` (and
 * `seq <= toSeq` when given: a page, so a long log is sent on a page at a
 * time), in order, and may skip events of types this code does not know (rows a newer
 * version wrote); `lastSeq` counts them, so a reader appends at `lastSeq`,
 * never at the seq of the last event it read.
 */
export interface EventStore {
  readonly append: (
    stream: string,
    events: ReadonlyArray<NewEvent>,
    expectedSeq: number,
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
  /** Forgets a stream (a memory store does, when its window closes). */
  readonly drop: (stream: string) => Promise<void>;
  /** Whether closing a window keeps its log (true for durable stores). */
  readonly durable: boolean;
  readonly close?: () => Promise<void>;
}
