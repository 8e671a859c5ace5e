/**
 * What a window shows and how it is followed: its log's projections, the
 * conversation's state, the event streams open on it, and whether closing it
 * now would cut anything off.
 */
import type { ActorRefFrom } from "xstate";
import type { conversationMachine } from "../../machines/conversationMachine.ts";
import type { GiveUpReason } from "../../machines/supervisorMachine.ts";
import type { Clock } from "../../runtime/ports/clock.ts";
import { eventsOf, followLog, MAX_BEHIND } from "../log/follow.ts";
import type { WindowLog } from "../log/windowLog.ts";
import { type StreamCounts, StreamsRefused } from "../support/limits.ts";
import type { LiveRegistry } from "../support/liveQueries.ts";
import type { OpenWindow } from "./deps.ts";

type Conversation = ActorRefFrom<typeof conversationMachine>;

/** The parts of an open window that read it. */
export type WindowView = Pick<
  OpenWindow,
  | "follow"
  | "events$"
  | "touch"
  | "lastUsed"
  | "busy"
  | "panel"
  | "history"
  | "usage"
  | "state"
  | "context"
  | "failed"
  | "lastSeq"
  | "settled"
  | "running"
>;

/** A window's view, over its log and the window's state as it is now. */
export const windowView = (w: {
  readonly log: WindowLog;
  readonly clientId: string;
  readonly clock: Clock;
  readonly live: LiveRegistry;
  /** Told when the window's last event stream ends. */
  readonly onIdle: () => void;
  /** Once the log is read: refuses another user's window. */
  readonly owned: () => Promise<void>;
  /** Settles when the conversation (re)starts, or the window is given up or closed. */
  readonly starting: () => Promise<void>;
  readonly failed: () => { readonly error: unknown; readonly reason: GiveUpReason } | undefined;
  readonly closed: () => boolean;
  readonly actor: () => Conversation | undefined;
  /** Confirmations waiting for an answer. */
  readonly questions: () => number;
  /** Its streams' caps: `max` on the window, and the owner's in `counts`, across their windows. */
  readonly streams: { readonly owner: string; readonly max: number; readonly counts: StreamCounts };
}): WindowView => {
  const { log } = w;
  /** Event streams open now, and when the window was last used. */
  let streams = 0;
  let lastUsed = w.clock.now();
  const opened = () => {
    streams++;
  };
  /** One of the window's event streams ended: it was used now, and may have gone idle. */
  const ended = () => {
    streams--;
    lastUsed = w.clock.now();
    if (streams === 0) w.onIdle();
  };
  return {
    follow: async (lastEventId, options = {}) => {
      await w.owned();
      const failed = w.failed();
      if (failed?.reason === "unreadableLog") throw failed.error;
      const { owner, max, counts } = w.streams;
      if (streams >= max) throw new StreamsRefused({ reason: "window", limit: max });
      if (!counts.take(owner)) throw new StreamsRefused({ reason: "user", limit: counts.limit });
      opened();
      return followLog(log, lastEventId, options.maxBehind ?? MAX_BEHIND, () => {
        counts.give(owner);
        ended();
      });
    },
    events$: (fromSeq) => eventsOf(log, fromSeq, w.owned, opened, ended),
    touch: () => {
      lastUsed = w.clock.now();
    },
    lastUsed: () => lastUsed,
    busy: () => {
      const actor = w.actor();
      return (
        streams > 0 ||
        (!w.closed() && w.failed() === undefined && actor === undefined) ||
        (actor !== undefined && !actor.getSnapshot().matches("idle")) ||
        // On a shared store, a turn another host runs: this host's streams and goodbye follow it.
        log.status().running ||
        w.questions() > 0 ||
        w.live.queries(w.clientId).length > 0
      );
    },
    panel: () => log.panel(),
    history: () => log.history(),
    usage: () => log.usage(),
    state: () => w.actor()?.getSnapshot().value,
    context: () => {
      const context = w.actor()?.getSnapshot().context;
      return {
        turn: context?.turn ?? log.status().turn,
        tokensUsed: context?.tokensUsed ?? log.usage().total,
      };
    },
    failed: () => w.failed() !== undefined,
    lastSeq: () => log.lastSeq(),
    running: () => log.status().running,
    settled: async () => {
      await w.starting();
      await log.idle();
    },
  };
};
