/**
 * The proxy's money budget per user: at most `dollars` in each fixed period
 * of `perSeconds`. Before a request goes, its worst case (the body's
 * estimated input at the input price, `max_tokens` at the output price) is
 * reserved in the usage store; when too little is left, `max_tokens` is
 * clamped to what is, and when not even a short answer fits the request is
 * refused. When the answer ends, the reservation is settled to what the
 * metered usage cost, and the warnings at 80 % and 95 % are told.
 */
import { Either } from "effect";
import type { Usage } from "../../runtime/log/events.ts";
import type { SpendPeriod, UsageStore } from "../../runtime/ports/usageStore.ts";
import { memoryUsageStore, toNanos } from "../../runtime/ports/usageStore.ts";
import { estimateTokens } from "../../runtime/prompt/tokens.ts";
import {
  costOf,
  DEFAULT_PRICES,
  type ModelPrice,
  PriceTable,
  priceOf,
} from "../../runtime/usage/prices.ts";
import { decode } from "../web/body.ts";
import { budgetSpent, budgetUnavailable, dollarsHeader, ProxyConfigError } from "./errors.ts";
import type { MessagesRequest } from "./policy.ts";

/** A money budget per user: at most `dollars` (US) in each fixed period of `perSeconds`. */
export interface ProxyBudget {
  readonly dollars: number;
  readonly perSeconds: number;
}

/** What `onBudgetWarning` is told: a user's spend in this period passed `share` of the budget. */
export interface ProxyBudgetWarning<U> {
  readonly user: U;
  /** US dollars settled in this period so far. */
  readonly spent: number;
  /** The budget's dollars per period. */
  readonly budget: number;
  /** The share of the budget passed: 0.8 or 0.95. */
  readonly share: number;
}

/** The shares of a budget whose passing `onBudgetWarning` is told, once each per period. */
export const BUDGET_WARNING_SHARES: ReadonlyArray<number> = [0.8, 0.95];

/** The fewest output tokens a clamped request is left (on top of thinking's budget): fewer is refused. */
export const BUDGET_FLOOR_TOKENS = 256;

/**
 * The header of a budgeted proxy's answers with what is left of the user's
 * budget this period, in US dollars (to the millionth, rounded down), once
 * this request's worst case is held: on every answer that went upstream,
 * and on the budget's refusal.
 *
 * @example
 * ```ts
 * const response = await fetch("/claude/v1/messages", { method: "POST", headers, body });
 * const left = Number(response.headers.get(BUDGET_REMAINING_HEADER) ?? Number.NaN);
 * if (left < 0.5) showBanner(`$${left.toFixed(2)} of today's assistant budget left`);
 * ```
 */
export const BUDGET_REMAINING_HEADER = "elyra-budget-remaining";

/**
 * The header of an answer whose `max_tokens` the budget clamped: the
 * `max_tokens` sent upstream, so a client can tell a cut answer
 * (`stop_reason: "max_tokens"`) was the budget's doing.
 *
 * @example
 * ```ts
 * const clamped = response.headers.get(BUDGET_MAX_TOKENS_HEADER);
 * if (clamped !== null) console.info(`the budget left room for ${clamped} tokens of answer`);
 * ```
 */
export const BUDGET_MAX_TOKENS_HEADER = "elyra-budget-max-tokens";

/** A value as the error shows it: JSON, with NaN and the infinities named. */
const shown = (value: unknown): string =>
  JSON.stringify(value, (_, v: unknown) =>
    typeof v === "number" && !Number.isFinite(v) ? String(v) : v,
  ) ?? String(value);

const isBudget = (value: unknown): value is ProxyBudget => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { dollars, perSeconds } = value as Record<string, unknown>;
  return (
    typeof dollars === "number" &&
    Number.isFinite(dollars) &&
    dollars > 0 &&
    typeof perSeconds === "number" &&
    Number.isSafeInteger(perSeconds) &&
    perSeconds >= 1
  );
};

/** The budget setting: the one given, `undefined` for none (`false`, or not given); else ProxyConfigError. */
const proxyBudget = (setting: unknown): ProxyBudget | undefined => {
  if (setting === undefined || setting === false) return undefined;
  if (isBudget(setting)) return setting;
  throw new ProxyConfigError({
    reason: `budget must be { dollars, perSeconds } with dollars a positive, finite amount and perSeconds a whole number of seconds ≥ 1, or false for no budget, not ${shown(setting)}`,
  });
};

/** The price table: `prices` over {@link DEFAULT_PRICES}; a table that doesn't decode is a ProxyConfigError. */
const proxyPrices = (setting: unknown): PriceTable => {
  if (setting === undefined) return DEFAULT_PRICES;
  const decoded = decode(PriceTable, setting, "prices");
  if (Either.isLeft(decoded))
    throw new ProxyConfigError({
      reason: `prices must map model ids to { input, output, cacheRead, cacheWrite5m, cacheWrite1h } in US dollars a million tokens: ${decoded.left.message}`,
    });
  return { ...DEFAULT_PRICES, ...decoded.right };
};

/** The fixed period `now` falls in: periods of `perSeconds` from the epoch (a day's are UTC days). */
export const periodOf = (now: number, perSeconds: number): SpendPeriod => {
  const ms = perSeconds * 1000;
  return { start: Math.floor(now / ms) * ms, ms };
};

/** A request's worst case, in nano-dollars. */
interface Projection {
  /** The estimated input at the highest rate it may be billed at. */
  readonly input: number;
  /** One output token. */
  readonly perOutput: number;
  /** The worst case: the input and `max_tokens` of output. */
  readonly want: number;
  /** The least worth sending: the input and the floor's output. */
  readonly least: number;
  readonly floorTokens: number;
}

/**
 * A request's worst case at `price`: its system prompt, messages and tools
 * estimated (`estimateJsonTokens` of them, the text kept to look for cache
 * breakpoints) at the input price, or the cache write's (the hour's when a
 * breakpoint asks for `ttl: "1h"`) when it marks any; `max_tokens` at the
 * output price. The floor is {@link BUDGET_FLOOR_TOKENS} past thinking's
 * budget, at most `max_tokens`.
 */
export const project = (body: MessagesRequest, price: ModelPrice): Projection => {
  const text = JSON.stringify({ system: body.system, messages: body.messages, tools: body.tools });
  let rate = price.input;
  if (text.includes('"cache_control"'))
    rate = Math.max(rate, text.includes('"ttl":"1h"') ? price.cacheWrite1h : price.cacheWrite5m);
  // Dollars a million tokens are nano-dollars a thousandth of a token.
  const input = estimateTokens(text) * rate * 1000;
  const perOutput = price.output * 1000;
  const thinking = body.thinking?.type === "enabled" ? body.thinking.budget_tokens : 0;
  const floorTokens = Math.min(body.max_tokens, thinking + BUDGET_FLOOR_TOKENS);
  return {
    input,
    perOutput,
    want: Math.ceil(input + body.max_tokens * perOutput),
    least: Math.ceil(input + floorTokens * perOutput),
    floorTokens,
  };
};

/** The `max_tokens` a grant of `granted` nano-dollars pays for: all asked, or fewer, never under the floor. */
export const clampedMaxTokens = (
  projection: Projection,
  granted: number,
  maxTokens: number,
): number => {
  if (granted >= projection.want || projection.perOutput === 0) return maxTokens;
  const paid = Math.floor((granted - projection.input) / projection.perOutput);
  return Math.min(maxTokens, Math.max(projection.floorTokens, paid));
};

/** A request let through: the money it holds until it settles, and what changes in what it sends. */
export interface Admitted {
  readonly period: SpendPeriod;
  readonly price: ModelPrice;
  /** US dollars held. */
  readonly reserved: number;
  /** The `max_tokens` sent: the request's, or fewer when clamped. */
  readonly maxTokens: number;
  /** The answer's budget headers. */
  readonly headers: Readonly<Record<string, string>>;
}

/** The settings a budget is made from: createProxy's, unchecked. */
export interface BudgetSettings<U> {
  readonly budget: unknown;
  readonly prices: unknown;
  readonly models: ReadonlyArray<string>;
  readonly usage: UsageStore | undefined;
  readonly onBudgetWarning: ((warning: ProxyBudgetWarning<U>) => void) | undefined;
  /** Where a failing store or hook is told. */
  readonly report: (error: unknown, request: Request) => void;
}

/** A store with money, as the budget calls it. */
type SpendStore = Required<Pick<UsageStore, "reserve" | "settle">>;

/** Each user's money: reserved before a request, settled after it. */
export interface Budget<U> {
  /** Reserves the request's worst case (or what is left, clamped); throws the refusal when too little is. */
  readonly admit: (key: string, body: MessagesRequest, now: number) => Promise<Admitted>;
  /** Settles a request to what its usage cost, and tells the warnings it passed. */
  readonly settle: (
    admitted: Admitted,
    key: string,
    user: U,
    usage: Usage,
    request: Request,
  ) => void;
}

/**
 * The budget `settings` ask for, or `undefined` for none. Throws
 * {@link ProxyConfigError} for a bad budget or price table, a model the
 * table doesn't price, or a usage store that can't hold money.
 */
export const budgetOf = <U>(settings: BudgetSettings<U>): Budget<U> | undefined => {
  const prices = proxyPrices(settings.prices);
  const budget = proxyBudget(settings.budget);
  if (budget === undefined) return undefined;
  const unpriced = settings.models.filter((model) => priceOf(model, prices) === undefined);
  if (unpriced.length > 0)
    throw new ProxyConfigError({
      reason: `a budget needs each model's price, and the price table has none for ${unpriced.map((m) => JSON.stringify(m)).join(", ")}: give it in prices`,
    });
  const given = settings.usage;
  if (given !== undefined && (given.reserve === undefined || given.settle === undefined))
    throw new ProxyConfigError({
      reason:
        "a budget needs a usage store that holds money (reserve and settle), such as memoryUsageStore() or redisStore(); the usage store given has no reserve or settle",
    });
  const store = (given ?? memoryUsageStore()) as SpendStore;
  const warnAt = BUDGET_WARNING_SHARES.map((share) => share * budget.dollars);

  const warn = (crossed: ReadonlyArray<number>, spent: number, user: U, request: Request) => {
    for (const [i, mark] of warnAt.entries()) {
      if (!crossed.includes(mark)) continue;
      try {
        const share = BUDGET_WARNING_SHARES[i] as number;
        settings.onBudgetWarning?.({ user, spent, budget: budget.dollars, share });
      } catch (error) {
        settings.report(error, request);
      }
    }
  };

  return {
    admit: async (key, body, now) => {
      const period = periodOf(now, budget.perSeconds);
      const price = priceOf(body.model, prices) as ModelPrice;
      const projection = project(body, price);
      let grant: Awaited<ReturnType<SpendStore["reserve"]>>;
      try {
        grant = await store.reserve(key, {
          period,
          budget: budget.dollars,
          want: projection.want / 1e9,
          least: projection.least / 1e9,
        });
      } catch {
        throw budgetUnavailable();
      }
      const left = (toNanos(budget.dollars) - toNanos(grant.spent) - toNanos(grant.reserved)) / 1e9;
      if (grant._tag === "Refused")
        throw budgetSpent({
          retryAfterMs: period.start + period.ms - now,
          budget: budget.dollars,
          perSeconds: budget.perSeconds,
          left,
          least: projection.least / 1e9,
          held: grant.reserved > 0,
        });
      const maxTokens = clampedMaxTokens(projection, toNanos(grant.dollars), body.max_tokens);
      const headers: Record<string, string> = { [BUDGET_REMAINING_HEADER]: dollarsHeader(left) };
      if (maxTokens < body.max_tokens) headers[BUDGET_MAX_TOKENS_HEADER] = String(maxTokens);
      return { period, price, reserved: grant.dollars, maxTokens, headers };
    },
    settle: (admitted, key, user, usage, request) => {
      Promise.resolve()
        .then(() =>
          store.settle(key, {
            period: admitted.period,
            reserved: admitted.reserved,
            dollars: costOf(usage, admitted.price),
            warnAt,
          }),
        )
        .then((settled) => warn(settled.crossed, settled.spent, user, request))
        .catch((error: unknown) => settings.report(error, request));
    },
  };
};
