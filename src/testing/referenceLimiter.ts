/**
 * A sliding-window counter written apart from the rate-limit store: the
 * accepted times of each key, kept in a list. The reference the property
 * kit holds a call path's rate limits to.
 */
export class ReferenceLimiter {
  readonly #accepted = new Map<string, number[]>();

  /** Accept (and record) a call at `now`, or give the ms until one would be accepted. */
  take(key: string, calls: number, windowMs: number, now: number): number | "ok" {
    const inWindow = (this.#accepted.get(key) ?? []).filter((t) => now - t < windowMs);
    this.#accepted.set(key, inWindow);
    if (inWindow.length < calls) {
      inWindow.push(now);
      return "ok";
    }
    // The call that frees a place is the one `calls` back from the newest.
    const sorted = [...inWindow].sort((a, b) => a - b);
    const freeing = sorted[sorted.length - calls] as number;
    return freeing + windowMs - now;
  }
}
