/**
 * How the panel says a tool step ended: in words a person reads, never the
 * audit's tag (`notConfirmed`, `invalidArguments`, …).
 */
import type { Unconfirmed } from "../../runtime/log/panelItems.ts";

/** What the panel shows of a step that ended, by its audit outcome; `ok` shows nothing. */
const WORDS: Readonly<Record<string, string>> = {
  failed: "failed",
  denied: "you may not do this",
  notConfirmed: "not confirmed",
  rateLimited: "too many at once; try again in a moment",
  invalidArguments: "the request was not valid",
  unknownTool: "not available here",
  codeCallerRefused: "not allowed from code",
  stopped: "stopped",
};

/** `ms` as a person says a wait: "30 seconds", "1 minute", "5 minutes". */
export const waitWords = (ms: number): string => {
  if (ms < 60_000) {
    const seconds = Math.max(1, Math.round(ms / 1000));
    return `${seconds} second${seconds === 1 ? "" : "s"}`;
  }
  const minutes = Math.round(ms / 60_000);
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
};

/**
 * The words for a step's ending, or `undefined` when it succeeded: "declined",
 * "no answer in 5 minutes", "you may not do this", … An outcome this version
 * does not know reads "failed".
 *
 * @example
 * ```ts
 * outcomeWords({ ok: false, outcome: "notConfirmed", unconfirmed: { answer: "declined" } }); // "declined"
 * outcomeWords({ ok: false, outcome: "denied" }); // "you may not do this"
 * ```
 */
export const outcomeWords = (step: {
  readonly ok?: boolean;
  readonly outcome?: string;
  readonly unconfirmed?: Unconfirmed;
}): string | undefined => {
  if (step.ok !== false) return undefined;
  if (step.outcome === "notConfirmed") {
    const how = step.unconfirmed;
    if (how?.answer === "declined") return "declined";
    if (how?.answer === "timedOut")
      return how.waitedMs === undefined
        ? "no answer in time"
        : `no answer in ${waitWords(how.waitedMs)}`;
    if (how?.answer === "cancelled") return "the turn ended before an answer";
  }
  return (
    (step.outcome !== undefined && Object.hasOwn(WORDS, step.outcome)
      ? WORDS[step.outcome]
      : undefined) ?? "failed"
  );
};
