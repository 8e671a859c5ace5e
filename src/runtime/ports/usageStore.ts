/**
 * Token usage per key (a user of the proxy): what each request used, added
 * up. The port is small so a shared store (Redis) can stand in for the
 * memory one when several instances serve the same users.
 *
 * A store may also hold money (the proxy's `budget`): each key's spend in
 * one fixed period, with the worst case of the requests under way reserved
 * before they go and settled to what they cost after, so two requests never
 * pass on the same money.
 */

/** The tokens one request used. */
export interface UsageCounts {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** What a key used so far: tokens added up, and how many requests added them. */
export interface UsageTotals extends UsageCounts {
  readonly requests: number;
}

/** A budget's fixed period: the one starting at `start` (ms since the epoch) and lasting `ms`. */
export interface SpendPeriod {
  readonly start: number;
  readonly ms: number;
}

/**
 * A reservation asked of a store, in US dollars: `want` (a request's worst
 * case) when the period has room for it, else whatever room is left if it is
 * at least `least`, else nothing; never past `budget`.
 */
export interface SpendAsk {
  readonly period: SpendPeriod;
  readonly budget: number;
  readonly want: number;
  readonly least: number;
}

/** A key's money in one period, US dollars: settled (`spent`) and held by requests under way (`reserved`). */
export interface SpendTotals {
  readonly spent: number;
  readonly reserved: number;
}

/** What a reservation got: `dollars` held (the totals include them), or nothing. */
export type SpendGrant =
  | (SpendTotals & { readonly _tag: "Reserved"; readonly dollars: number })
  | (SpendTotals & { readonly _tag: "Refused" });

/**
 * A request's end: the `reserved` dollars it held are let go and the
 * `dollars` it cost are spent. Each of `warnAt` (amounts in dollars) that
 * the spend reaches is answered in `crossed` once per period, however many
 * settle past it (and on however many instances).
 */
export interface SpendSettlement {
  readonly period: SpendPeriod;
  readonly reserved: number;
  readonly dollars: number;
  readonly warnAt?: ReadonlyArray<number>;
}

/** The totals after a settlement, and the members of its `warnAt` reached for the first time. */
export interface SpendSettled extends SpendTotals {
  readonly crossed: ReadonlyArray<number>;
}

/**
 * The usage store port. `add` records one request (its tokens, and one more
 * request); `read` answers the totals, zeros for a key never added to.
 *
 * A store that holds money also has `reserve`, `settle` and `spend`, each
 * atomic per key and period: `reserve` grants only while spent + reserved
 * stays within the budget. Amounts are held in whole nano-dollars (10⁻⁹ $).
 * A store without them can't hold the proxy's `budget`.
 */
export interface UsageStore {
  readonly add: (key: string, usage: UsageCounts) => Promise<void> | void;
  readonly read: (key: string) => Promise<UsageTotals> | UsageTotals;
  readonly reserve?: (key: string, ask: SpendAsk) => Promise<SpendGrant> | SpendGrant;
  readonly settle?: (
    key: string,
    settlement: SpendSettlement,
  ) => Promise<SpendSettled> | SpendSettled;
  readonly spend?: (key: string, period: SpendPeriod) => Promise<SpendTotals> | SpendTotals;
}

/** Nano-dollars in a dollar: the unit money is held in, so sums are exact. */
const NANOS = 1e9;

/** Dollars as whole nano-dollars (what a store holds and compares). */
export const toNanos = (dollars: number): number => Math.round(dollars * NANOS);

/** Whole nano-dollars as dollars. */
export const fromNanos = (nanos: number): number => nanos / NANOS;

/**
 * The grant of a reservation in nano-dollars, from the room a period has
 * left (budget − spent − reserved): `want` if it fits, all the room if that
 * is at least `least`, else undefined. The rule both twins keep.
 */
export const grantOf = (room: number, want: number, least: number): number | undefined => {
  if (room >= want) return want;
  return room >= least ? room : undefined;
};

/** One key's money in one period, in nano-dollars, and the warnings told. */
interface Spend {
  readonly period: SpendPeriod;
  spent: number;
  reserved: number;
  readonly told: Set<number>;
}

/** The memory twin's money: a period's entry per key, old periods let go. */
const spendBook = () => {
  const book = new Map<string, Spend>();
  let sweptAt = Number.NEGATIVE_INFINITY;
  const entry = (key: string, period: SpendPeriod): Spend => {
    const at = `${period.start}/${period.ms}/${key}`;
    let spend = book.get(at);
    if (spend === undefined) {
      spend = { period, spent: 0, reserved: 0, told: new Set() };
      book.set(at, spend);
    }
    return spend;
  };
  /** Once per period begun, entries of periods that ended a period ago or more go. */
  const sweep = (now: number): void => {
    if (now <= sweptAt) return;
    sweptAt = now;
    for (const [at, { period }] of book) if (period.start + 2 * period.ms <= now) book.delete(at);
  };
  const totals = (spend: Spend): SpendTotals => ({
    spent: fromNanos(spend.spent),
    reserved: fromNanos(spend.reserved),
  });
  return {
    reserve: (key: string, ask: SpendAsk): SpendGrant => {
      sweep(ask.period.start);
      const spend = entry(key, ask.period);
      const room = toNanos(ask.budget) - spend.spent - spend.reserved;
      const grant = grantOf(room, toNanos(ask.want), toNanos(ask.least));
      if (grant === undefined) return { _tag: "Refused", ...totals(spend) };
      spend.reserved += grant;
      return { _tag: "Reserved", dollars: fromNanos(grant), ...totals(spend) };
    },
    settle: (key: string, settlement: SpendSettlement): SpendSettled => {
      const spend = entry(key, settlement.period);
      spend.reserved = Math.max(0, spend.reserved - toNanos(settlement.reserved));
      spend.spent += toNanos(settlement.dollars);
      const crossed: number[] = [];
      for (const mark of settlement.warnAt ?? []) {
        const nanos = toNanos(mark);
        if (spend.spent < nanos || spend.told.has(nanos)) continue;
        spend.told.add(nanos);
        crossed.push(mark);
      }
      return { ...totals(spend), crossed };
    },
    spend: (key: string, period: SpendPeriod): SpendTotals => {
      const spend = book.get(`${period.start}/${period.ms}/${key}`);
      return spend === undefined ? { spent: 0, reserved: 0 } : totals(spend);
    },
  };
};

/** The in-memory usage store: tokens per key, and money per key and period. */
export interface MemoryUsageStore extends UsageStore {
  readonly add: (key: string, usage: UsageCounts) => void;
  readonly read: (key: string) => UsageTotals;
  readonly reserve: (key: string, ask: SpendAsk) => SpendGrant;
  readonly settle: (key: string, settlement: SpendSettlement) => SpendSettled;
  readonly spend: (key: string, period: SpendPeriod) => SpendTotals;
}

/**
 * An in-memory usage store, for one process (and for tests). Its money is
 * kept per key and period, and a period's entries go once a period has
 * begun after it ended (about 100 bytes a user, for at most two periods).
 *
 * @example
 * ```ts
 * const usageStore = memoryUsageStore();
 * usageStore.add("ada", { inputTokens: 120, outputTokens: 40 });
 * usageStore.read("ada"); // { inputTokens: 120, outputTokens: 40, requests: 1 }
 *
 * const period = { start: 0, ms: 86_400_000 };
 * usageStore.reserve("ada", { period, budget: 5, want: 0.2, least: 0.01 }); // { _tag: "Reserved", dollars: 0.2, … }
 * usageStore.settle("ada", { period, reserved: 0.2, dollars: 0.05 }); // { spent: 0.05, reserved: 0, crossed: [] }
 * ```
 */
export const memoryUsageStore = (): MemoryUsageStore => {
  const totals = new Map<string, UsageTotals>();
  return {
    add: (key, usage) => {
      const was = totals.get(key) ?? { inputTokens: 0, outputTokens: 0, requests: 0 };
      totals.set(key, {
        inputTokens: was.inputTokens + usage.inputTokens,
        outputTokens: was.outputTokens + usage.outputTokens,
        requests: was.requests + 1,
      });
    },
    read: (key) => totals.get(key) ?? { inputTokens: 0, outputTokens: 0, requests: 0 },
    ...spendBook(),
  };
};
