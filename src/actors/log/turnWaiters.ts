/**
 * The prompts of a window waiting for their turn's end: each settles when the
 * log records the end, and is refused when the window can no longer tell (it
 * failed, closed, or was rebuilt without the turn having started).
 */
import type { Subscription } from "rxjs";
import { isTurnEnd, type LogEvent, type TurnEnd } from "../../runtime/log/events.ts";
import type { WindowLog } from "./windowLog.ts";

/**
 * A prompt refused at a rebuild whose turn the log never started (an append
 * before its start was refused): the window asks it once more of the
 * rebuilt conversation, and passes `error` on only if that is refused too.
 * It never leaves the window.
 */
export class TurnNotStarted {
  readonly error: unknown;
  constructor(error: unknown) {
    this.error = error;
  }
}

/**
 * Asks a prompt of the window's own conversation (`ask`), once more when its
 * turn was refused at a rebuild without having started: an append queued
 * before its start (the last turn's end, say) was refused, so its own never
 * reached the store, and the rebuilt conversation has read the log again.
 * Refused a second time, it rejects with that refusal's error.
 *
 * @example
 * ```ts
 * const end = await againIfNotStarted(() => local.prompt(input, options));
 * ```
 */
export const againIfNotStarted = async <T>(ask: () => Promise<T>): Promise<T> => {
  try {
    return await ask();
  } catch (error) {
    if (!(error instanceof TurnNotStarted)) throw error;
    return ask().catch((again: unknown) => {
      throw again instanceof TurnNotStarted ? again.error : again;
    });
  }
};

interface Waiter {
  readonly turn: number;
  readonly refuse: (error: unknown) => void;
}

/** A class, and its set made at the first prompt: an idle window holds neither closures nor set. */
export class TurnWaiters {
  readonly #log: Pick<WindowLog, "appended$">;
  #waiting: Set<Waiter> | undefined;

  constructor(log: Pick<WindowLog, "appended$">) {
    this.#log = log;
  }

  /**
   * The turn's end as the log records it. `onStarted` is told once the
   * turn's start is stored, never before.
   */
  wait(turn: number, onStarted?: (turn: number) => void): Promise<TurnEnd> {
    return new Promise<TurnEnd>((resolve, reject) => {
      let subscription: Subscription | undefined;
      const waiter: Waiter = {
        turn,
        refuse: (error) => {
          subscription?.unsubscribe();
          reject(error);
        },
      };
      subscription = this.#log.appended$.subscribe((event: LogEvent) => {
        if (event.turn !== turn) return;
        if (event._tag === "TurnStarted") onStarted?.(turn);
        else if (isTurnEnd(event)) {
          this.#waiting?.delete(waiter);
          subscription?.unsubscribe();
          resolve(event);
        }
      });
      this.#waiting ??= new Set();
      this.#waiting.add(waiter);
    });
  }

  /** Whether a prompt waits. */
  any(): boolean {
    return this.#waiting !== undefined && this.#waiting.size > 0;
  }

  /**
   * Refuses every prompt waiting on a turn after `beyondTurn` with the error
   * `refusal()` makes, made only when one waits; wrapped in
   * {@link TurnNotStarted} for those `askAgain` names (asked once more).
   */
  refuse(refusal: () => unknown, beyondTurn = 0, askAgain?: (turn: number) => boolean): void {
    const waiting = this.#waiting;
    if (waiting === undefined || waiting.size === 0) return;
    const error = refusal();
    for (const waiter of [...waiting])
      if (waiter.turn > beyondTurn) {
        waiting.delete(waiter);
        waiter.refuse(askAgain?.(waiter.turn) === true ? new TurnNotStarted(error) : error);
      }
  }
}
