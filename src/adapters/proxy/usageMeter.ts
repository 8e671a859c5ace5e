/**
 * Usage read off an answer as it passes: the SSE parsed beside the bytes
 * (never holding them back), or the whole JSON. Reported exactly once,
 * whatever ends the request: the end, an error, the client leaving.
 */
import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";
import type { Usage } from "../../runtime/log/events.ts";

/** The API's usage fields, as `message_start`, `message_delta` and a whole message carry them. */
interface WireUsage {
  readonly input_tokens?: unknown;
  readonly output_tokens?: unknown;
  readonly cache_read_input_tokens?: unknown;
  readonly cache_creation_input_tokens?: unknown;
  /** The cache writes by TTL: of `cache_creation_input_tokens`, those with the hour's. */
  readonly cache_creation?: { readonly ephemeral_1h_input_tokens?: unknown } | null;
}

const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;

/** What one request used so far, and the one report of it. */
export interface UsageMeter {
  /** Takes usage from a whole message (or anything with a `usage`). */
  message(json: unknown): void;
  /** Text of the event stream, as it passes. */
  feed(text: string): void;
  /** Reports what was seen; every call after the first does nothing. */
  settle(): void;
}

/** The data of `message_start` and `message_delta`, as far as usage goes. */
type Counted = { message?: { usage?: WireUsage }; usage?: WireUsage };

/** A meter's state and methods: one object a request, no closures but the parser's. */
class Meter<C> implements UsageMeter {
  private inputTokens = 0;
  private outputTokens = 0;
  private cacheReadTokens: number | undefined;
  private cacheWriteTokens: number | undefined;
  private cacheWrite1hTokens: number | undefined;
  private settled = false;
  // Made for the first text fed: a whole JSON answer needs none.
  private parser: EventSourceParser | undefined;

  constructor(
    private readonly report: (usage: Usage, context: C) => void,
    private readonly context: C,
  ) {}

  message(json: unknown): void {
    this.take((json as { usage?: WireUsage } | null)?.usage);
  }

  feed(text: string): void {
    this.parser ??= createParser({ onEvent: (event) => this.event(event) });
    this.parser.feed(text);
  }

  settle(): void {
    if (this.settled) return;
    this.settled = true;
    const { cacheReadTokens, cacheWriteTokens, cacheWrite1hTokens } = this;
    this.report(
      {
        inputTokens: this.inputTokens,
        outputTokens: this.outputTokens,
        ...(cacheReadTokens === undefined ? {} : { cacheReadTokens }),
        ...(cacheWriteTokens === undefined ? {} : { cacheWriteTokens }),
        ...(cacheWrite1hTokens === undefined ? {} : { cacheWrite1hTokens }),
      },
      this.context,
    );
  }

  private event(event: EventSourceMessage): void {
    // Only the two events that carry usage are parsed; text deltas are skipped unread.
    if (event.event !== "message_start" && event.event !== "message_delta") return;
    try {
      const data = JSON.parse(event.data) as Counted;
      this.take(event.event === "message_start" ? data.message?.usage : data.usage);
    } catch {
      // A malformed event is the client's SDK's to report; usage stays as it was.
    }
  }

  private take(usage: WireUsage | undefined): void {
    if (typeof usage !== "object" || usage === null) return;
    this.inputTokens = count(usage.input_tokens) ?? this.inputTokens;
    this.outputTokens = count(usage.output_tokens) ?? this.outputTokens;
    this.cacheReadTokens = count(usage.cache_read_input_tokens) ?? this.cacheReadTokens;
    this.cacheWriteTokens = count(usage.cache_creation_input_tokens) ?? this.cacheWriteTokens;
    this.cacheWrite1hTokens =
      count(usage.cache_creation?.ephemeral_1h_input_tokens) ?? this.cacheWrite1hTokens;
  }
}

/**
 * A meter whose `settle` calls `report` once with the latest count of each
 * field seen (`message_delta`'s counts are running totals, so the last
 * wins), and with `context`: the request's, so that one `report` serves
 * every request.
 */
export const usageMeter = <C>(report: (usage: Usage, context: C) => void, context: C): UsageMeter =>
  new Meter(report, context);
