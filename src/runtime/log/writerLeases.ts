/**
 * One writer per stream, across processes: the port a shared store offers so
 * that of several hosts on one database exactly one writes a window's log at
 * a time (decision (aj)). A host takes a stream's lease to run a turn (or to
 * write one event between turns) and gives it back when the turn ends; the
 * lease lives as long as its host's heartbeat, and every append names the
 * lease it is made under, so that an append of a host whose lease was taken
 * over is refused (a fencing token). Hosts tell each other what a window's
 * user asked for (answer a confirmation, stop, reset, select, prompt) by
 * message, sent to the holder.
 */
import { Data } from "effect";

/** The lease an append is made under: the store refuses it unless it is the stream's lease now. */
export interface Writer {
  /** The host holding the lease (its id, unique to the process). */
  readonly holder: string;
  /** The fencing token the lease was taken with: every taking gets a greater one. */
  readonly token: number;
}

/**
 * What taking a stream's lease gave: `Taken` (this host is the writer;
 * `tookOver` when the previous holder's heartbeat had stopped while it held
 * it, so a turn it ran may be in flight in the log), or `Held` by a live host.
 */
export type LeaseTaking =
  | {
      readonly _tag: "Taken";
      readonly token: number;
      readonly tookOver: boolean;
      /**
       * The stream's last seq as the lease was taken, when the store tells it
       * (read under the lock its appends take): a taker whose log is there has
       * nothing more to read.
       */
      readonly lastSeq?: number;
    }
  | { readonly _tag: "Held"; readonly holder: string };

/**
 * An append made under a lease that is no longer the stream's: its host's
 * heartbeat stopped long enough for another host to take the stream over (or
 * the lease was given back). Nothing of it was written.
 *
 * @example
 * ```ts
 * const written = await store.append(stream, events, lastSeq, writer).catch((error) => {
 *   if (error instanceof LeaseLost) return []; // another host writes this window now: stop writing it
 *   throw error;
 * });
 * ```
 */
export class LeaseLost extends Data.TaggedError("LeaseLost")<{
  readonly stream: string;
  readonly holder: string;
}> {
  override get message(): string {
    return `${this.holder} no longer holds the lease of ${JSON.stringify(this.stream)}: another host writes it now`;
  }
}

/** How a host takes part: its heartbeat runs and its messages reach it until `leave`. */
export interface Membership {
  /** Stops the heartbeat and gives back every lease the host holds: they are free at once. */
  readonly leave: () => Promise<void>;
}

/**
 * Leases on a shared store's streams, and messages between the hosts that
 * share it. A lease is held while its holder's heartbeat is fresh (it beats
 * every `heartbeatMs`; missed for `leaseMs`, the lease may be taken over).
 *
 * @example
 * ```ts
 * const member = await leases.join("host-a", (message) => route(message));
 * const taking = await leases.acquire("conversation/w1", "host-a");
 * if (taking._tag === "Taken") {
 *   const writer = { holder: "host-a", token: taking.token };
 *   await store.append("conversation/w1", events, lastSeq, writer);
 *   await leases.release("conversation/w1", writer);
 * } else {
 *   await leases.send(taking.holder, { _tag: "Stop", clientId: "w1" });
 * }
 * await member.leave();
 * ```
 */
export interface WriterLeases {
  /** How long a holder's heartbeat may be missed before its leases may be taken over, in ms. */
  readonly leaseMs: number;
  /**
   * Starts `holder`'s heartbeat and delivers the messages sent to it, each
   * once, to `onMessage` (JSON values, as sent). A holder joins once.
   */
  readonly join: (holder: string, onMessage: (message: unknown) => void) => Promise<Membership>;
  /**
   * Takes the stream's lease for `holder` when it is free, already
   * `holder`'s, or its holder's heartbeat stopped; otherwise says who holds it.
   */
  readonly acquire: (stream: string, holder: string) => Promise<LeaseTaking>;
  /** Gives the lease back if `writer` still holds it; otherwise does nothing. */
  readonly release: (stream: string, writer: Writer) => Promise<void>;
  /** Sends a JSON message to another host; it is dropped if that host never reads it. */
  readonly send: (to: string, message: unknown) => Promise<void>;
}
