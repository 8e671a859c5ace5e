/**
 * A small reference model of who may run what, written apart from the code:
 * patterns become regular expressions, rate limits a list of accepted times.
 */
import fc from "fast-check";
import { abilityOf } from "../fixtures/spyCommands.ts";

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Does the pattern grant the ability? `*` all; `a.*` anything strictly under `a.`; else equality. */
export const grants = (pattern: string, ability: string): boolean => {
  const source =
    pattern === "*"
      ? ".+"
      : pattern.endsWith(".*")
        ? `${escapeRegExp(pattern.slice(0, -2))}\\..+`
        : escapeRegExp(pattern);
  return new RegExp(`^(?:${source})$`).test(ability);
};

export const grantsAny = (patterns: ReadonlyArray<string>, ability: string): boolean =>
  patterns.some((p) => grants(p, ability));

/** A sliding-window counter: accepted times per key. */
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

/** Grant and ability patterns the authority properties draw: exact, `resource.*`, `*`, and near misses. */
export const patterns = fc.array(
  fc.oneof(
    fc.constant("*"),
    fc.constantFrom("customers.*", "invoices.*", "admin.*", "admin.search.*", "customersx.*"),
    fc.constantFrom(...Object.values(abilityOf), "customers.viewer", "invoices", "admin.search"),
  ),
  { maxLength: 4 },
);
