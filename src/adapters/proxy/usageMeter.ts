/**
 * Usage read off an answer as it passes: the SSE parsed beside the bytes
 * (never holding them back), or the whole JSON. Reported exactly once,
 * whatever ends the request: the end, an error, the client leaving.
 */
import { createParser } from "eventsource-parser";
import type { Usage } from "../../runtime/log/events.ts";

/** The API's usage fields, as `message_start`, `message_delta` and a whole message carry them. */
interface WireUsage {
  readonly input_tokens?: unknown;
  readonly output_tokens?: unknown;
  readonly cache_read_input_tokens?: unknown;
  readonly cache_creation_input_tokens?: unknown;
}

const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;

/** What one request used so far, and the one report of it. */
export interface UsageMeter {
  /** Takes usage from a whole message (or anything with a `usage`). */
  readonly message: (json: unknown) => void;
  /** Text of the event stream, as it passes. */
  readonly feed: (text: string) => void;
  /** Reports what was seen; every call after the first does nothing. */
  readonly settle: () => void;
}

/**
 * A meter whose `settle` calls `report` once with the latest count of each
 * field seen: `message_delta`'s counts are running totals, so the last wins.
 */
export const usageMeter = (report: (usage: Usage) => void): UsageMeter => {
  let inputTokens = 0;
  let outputTokens = 0;
  let cacheReadTokens: number | undefined;
  let cacheWriteTokens: number | undefined;
  let settled = false;

  const take = (usage: WireUsage | undefined) => {
    if (typeof usage !== "object" || usage === null) return;
    inputTokens = count(usage.input_tokens) ?? inputTokens;
    outputTokens = count(usage.output_tokens) ?? outputTokens;
    cacheReadTokens = count(usage.cache_read_input_tokens) ?? cacheReadTokens;
    cacheWriteTokens = count(usage.cache_creation_input_tokens) ?? cacheWriteTokens;
  };

  // Made for the first text fed: a whole JSON answer needs none.
  const makeParser = () =>
    createParser({
      onEvent: (event) => {
        // Only the two events that carry usage are parsed; text deltas are skipped unread.
        if (event.event !== "message_start" && event.event !== "message_delta") return;
        try {
          const data = JSON.parse(event.data) as {
            message?: { usage?: WireUsage };
            usage?: WireUsage;
          };
          take(event.event === "message_start" ? data.message?.usage : data.usage);
        } catch {
          // A malformed event is the client's SDK's to report; usage stays as it was.
        }
      },
    });
  let parser: ReturnType<typeof createParser> | undefined;

  return {
    message: (json) => take((json as { usage?: WireUsage } | null)?.usage),
    feed: (text) => {
      parser ??= makeParser();
      parser.feed(text);
    },
    settle: () => {
      if (settled) return;
      settled = true;
      report({
        inputTokens,
        outputTokens,
        ...(cacheReadTokens === undefined ? {} : { cacheReadTokens }),
        ...(cacheWriteTokens === undefined ? {} : { cacheWriteTokens }),
      });
    },
  };
};
