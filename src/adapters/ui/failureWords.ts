/**
 * A failed turn in words: what probably went wrong, for the person reading
 * the panel, from the model error's kind and status the log recorded. Never
 * the kind's tag, and never the SDK's message when the kind says more.
 */
import type { PanelItem } from "../../runtime/log/panelItems.ts";

type FailedItem = Extract<PanelItem, { kind: "error" }>;

const WORDS: Readonly<Record<string, string>> = {
  connection:
    "Claude could not be reached: Anthropic's servers did not answer. The network, a firewall or a proxy may be in the way.",
  timeout: "Claude took too long to answer. Anthropic may be busy, or the network slow.",
  overloaded: "Claude is overloaded just now. Wait a moment, then retry.",
  rateLimited:
    "Too many requests to Claude just now: the API key's rate limit was reached. Wait a moment, then retry.",
  server: "Anthropic had a problem answering. Wait a moment, then retry.",
  invalidRequest: "Claude refused the request as not valid; retrying may not help.",
  decode: "Claude's answer could not be read.",
};

/**
 * What probably went wrong with a failed turn, in words. A model error says
 * why by its kind: a rejected key (`auth` with 401 or 403), Anthropic
 * unreachable (`connection`), overloaded, rate limited, …; any other failure
 * (a spent budget, an interrupted turn) is its own sentence.
 *
 * @example
 * ```ts
 * failureWords({ kind: "error", turn: 1, error: "Connection error.", reason: "connection" });
 * // "Claude could not be reached: Anthropic's servers did not answer. …"
 * ```
 */
export const failureWords = (item: FailedItem): string => {
  const { reason, status } = item;
  if (reason === "auth")
    return status === 401 || status === 403
      ? `Anthropic refused the API key (it answered ${status}). The key may be mistyped, revoked, or not allowed this model.`
      : "No Claude model is set up to answer: there is no API key to use.";
  if (reason !== undefined && Object.hasOwn(WORDS, reason)) return WORDS[reason] as string;
  return `Something went wrong: ${item.error}`;
};
