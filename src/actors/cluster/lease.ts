/**
 * A window's side of its lease, wired to its log and its conversation: the
 * writer (cluster/writer.ts); a turn that a taking finds running with no live
 * host to run it, recorded interrupted; and what the window does when it
 * learns that another host took the window over.
 */
import type { ActorRefFrom } from "xstate";
import type { conversationMachine } from "../../machines/conversationMachine.ts";
import type { UnstampedEvent } from "../../runtime/log/events.ts";
import { LeaseLost } from "../../runtime/log/writerLeases.ts";
import { INTERRUPTED } from "../../runtime/prompt/limits.ts";
import { WindowOwnerMismatch } from "../assistantWindow.ts";
import type { WindowLog } from "../log/windowLog.ts";
import type { Routing } from "./routing.ts";
import { type LeaseChange, type WindowWriter, windowWriter } from "./writer.ts";

type Conversation = ActorRefFrom<typeof conversationMachine>;

export interface WindowLease {
  readonly writer: WindowWriter;
  /** A turn the log shows running while none runs here was cut off: recorded so, by the writer. */
  readonly interrupt: () => Promise<void>;
  /**
   * Reads what the store told of the window (up to `toSeq`). A log naming
   * another owner calls `close`; events this host did not write, while it
   * holds the lease or runs a turn, mean another host took the window over
   * (this one was paused or cut off past its lease): the lease is lost.
   */
  readonly catchUp: (toSeq: number | undefined, close: () => void) => void;
}

/** The lease of one window (decision (aj)). */
export const windowLease = (w: {
  readonly routing: Routing | undefined;
  readonly log: WindowLog;
  readonly clientId: string;
  readonly owner: string;
  /** Whether the conversation has nothing running: no turn, no question waiting, no tool step. */
  readonly idle: () => boolean;
  /** Told what a catch-up's read failed with. */
  readonly onError: (error: unknown) => void;
  /** The running conversation, if any. */
  readonly actor: () => Conversation | undefined;
  /** Settles when the conversation has started again. */
  readonly started: () => Promise<void>;
  readonly record: (event: UnstampedEvent) => Promise<unknown>;
  /** The log has events, so it names its owner already. */
  readonly ownerSeen: () => void;
  /** The fault the conversation is ended with, kept for the prompts it refuses. */
  readonly faulted: (error: unknown) => void;
  /** Told as this host takes the lease, gives it back, or learns it lost it. */
  readonly leaseChanged: (event: LeaseChange) => void;
}): WindowLease => {
  const { log } = w;
  const quiet = () => {
    const actor = w.actor();
    return actor === undefined || actor.getSnapshot().matches("idle");
  };
  const interrupt = async () => {
    const { running, turn } = log.status();
    if (running && quiet()) await w.record({ _tag: "Failed", turn, error: INTERRUPTED });
  };
  const writer = windowWriter({
    routing: w.routing,
    stream: log.stream,
    logIdle: () => log.idle(),
    idle: w.idle,
    onTaken: async (_, lastSeq) => {
      // Taken anew: what other hosts wrote is read first, and a turn no live host runs ends. A
      // store that told its last seq with the lease is read only if the log is behind it.
      if ((await log.catchUp(lastSeq, w.owner)) === "foreign")
        throw new WindowOwnerMismatch({ clientId: w.clientId });
      if (log.lastSeq() > 0) w.ownerSeen();
      await interrupt();
      w.actor()?.send({
        type: "CAUGHT_UP",
        turn: log.status().turn,
        tokensUsed: log.usage().total,
      });
    },
    onLost: () => lostLease(),
    leaseChanged: w.leaseChanged,
  });
  // Another host writes the window now, though this one thought it did: what runs here (a turn,
  // a question waiting) ends unwritten, as after a refused append, and the conversation is
  // rebuilt from the log. Resolves once it is.
  const lostLease = async () => {
    writer.lost();
    const running = w.actor();
    if (running === undefined || running.getSnapshot().matches("idle")) return;
    const error = new LeaseLost({ stream: log.stream, holder: w.routing?.hostId ?? "" });
    w.faulted(error);
    running.send({ type: "FAULT", error });
    await w.started();
  };
  const catchUp: WindowLease["catchUp"] = (toSeq, close) => {
    const takenOver = writer.takeover();
    log.catchUp(toSeq, w.owner).then((kept) => {
      if (kept === "foreign") close();
      else if (kept === "read" && writer.leased && takenOver()) void lostLease();
    }, w.onError);
  };
  return { writer, interrupt, catchUp };
};
