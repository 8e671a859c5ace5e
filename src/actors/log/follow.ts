/**
 * A client following a window's log: where it resumes from the id it last
 * saw, the feed from there, and the id each event is sent with.
 */
import { concatMap, defer, Observable } from "rxjs";
import type { LogEvent } from "../../runtime/log/events.ts";
import { eventIdOf, resume, resumePointOf } from "../../runtime/log/resumePoint.ts";
import type { Following } from "../assistantWindow.ts";
import type { WindowLog } from "./windowLog.ts";

/**
 * New events a feed keeps for a reader that has not pulled them: 4 096. Past
 * them the feed fails with `FeedBehind`, unless `follow` is given another `maxBehind`.
 *
 * @example
 * ```ts
 * const following = await assistantWindow.follow(lastEventId, { maxBehind: MAX_BEHIND * 2 });
 * ```
 */
export const MAX_BEHIND = 4_096;

/** The log from after `lastEventId` (or from the start, told to start over); `ended` once, when cancelled. */
export const followLog = (
  log: WindowLog,
  lastEventId: string | undefined,
  maxBehind: number,
  ended: () => void,
): Following => {
  const point = lastEventId === undefined ? undefined : resumePointOf(lastEventId);
  // An id this host never gives out: the client cannot know where it is, so it starts over.
  const { fromSeq, startOver } =
    point === undefined && lastEventId !== undefined
      ? { fromSeq: 0, startOver: true }
      : resume(point, { lastSeq: log.lastSeq(), epoch: log.epoch() });
  const feed = log.feed(fromSeq, maxBehind);
  let open = true;
  return {
    startOver,
    eventId: (event) => eventIdOf(event.seq, log.epoch()),
    feed: {
      next: () => feed.next(),
      cancel: () => {
        if (!open) return;
        open = false;
        feed.cancel();
        ended();
      },
    },
  };
};

/**
 * The log's events from `fromSeq` on, then each new one, read once `owned`
 * says whose the window is (another user's stream is refused, not read);
 * `opened` and `ended` count the window's streams.
 */
export const eventsOf = (
  log: WindowLog,
  fromSeq: number | undefined,
  owned: () => Promise<void>,
  opened: () => void,
  ended: () => void,
): Observable<LogEvent> =>
  new Observable<LogEvent>((subscriber) => {
    opened();
    const subscription = defer(owned)
      .pipe(concatMap(() => log.events$(fromSeq)))
      .subscribe(subscriber);
    return () => {
      subscription.unsubscribe();
      ended();
    };
  });
