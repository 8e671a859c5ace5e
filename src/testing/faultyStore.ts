/**
 * An event store that fails on purpose: it wraps another store and makes its
 * reads, `lastSeq`s and appends reject, answer late, or (appends) conflict,
 * as a plan says. The plan is plain data or a function of the operation, so a
 * property-based test can generate it and shrink it.
 */
import { Data } from "effect";
import { AppendConflict, type EventStore } from "../runtime/log/eventStore.ts";
import type { LogEvent } from "../runtime/log/events.ts";
import { type Clock, systemClock } from "../runtime/ports/clock.ts";

/** The operations a {@link faultyStore} can fail. `drop` and `close` always go through. */
export type StoreOpKind = "read" | "append" | "lastSeq";

/** One operation the store was asked, as its plan sees it. */
export interface StoreOp {
  readonly kind: StoreOpKind;
  readonly stream: string;
  /** The operation's number among every operation the store was asked (of the three kinds), from 0. */
  readonly n: number;
  /** Its number among the operations of its kind, from 0: the index a {@link StoreFaultScript} uses. */
  readonly nth: number;
  /** An append's expected seq. */
  readonly expectedSeq?: number;
  /** How many events an append carries. */
  readonly events?: number;
  /** Where a read starts (after this seq) and ends (at this seq), when given. */
  readonly fromSeq?: number;
  readonly toSeq?: number;
}

/**
 * What happens to one operation:
 *
 * - `reject`: it rejects (with `error`, a {@link StoreUnavailable} unless
 *   given) and does nothing: a rejected append writes none of its events;
 * - `conflict`: an append rejects with an `AppendConflict`, as if another
 *   writer had appended one event first, and writes nothing (the stream is
 *   in fact unchanged, so the same append tried again succeeds). A read or
 *   `lastSeq` planned to conflict rejects as `reject` does;
 * - `delay`: it goes through, after `delayMs`.
 *
 * A `reject` or `conflict` with `delayMs` answers after that long, too.
 * Delays run on the store's clock.
 */
export type StoreFault =
  | { readonly kind: "reject"; readonly error?: unknown; readonly delayMs?: number }
  | { readonly kind: "conflict"; readonly delayMs?: number }
  | { readonly kind: "delay"; readonly delayMs: number };

/**
 * Which operation fails, kind by kind: the `nth` read is given `read[nth]`,
 * and so on; `null` or `undefined` (or past the end of the list) goes
 * through. Plain data, so fast-check can generate it and shrink it (fewer
 * faults, shorter delays), and the indices of one kind do not move when
 * another kind's list shrinks.
 *
 * @example
 * ```ts
 * // The first append rejects, the third conflicts, the second read is 10 ms late.
 * const script: StoreFaultScript = {
 *   append: [{ kind: "reject" }, null, { kind: "conflict" }],
 *   read: [null, { kind: "delay", delayMs: 10 }],
 * };
 * ```
 */
export interface StoreFaultScript {
  readonly read?: ReadonlyArray<StoreFault | null | undefined>;
  readonly append?: ReadonlyArray<StoreFault | null | undefined>;
  readonly lastSeq?: ReadonlyArray<StoreFault | null | undefined>;
}

/** A plan: a script, or a function that decides each operation (`undefined` or `null`: it goes through). */
export type StoreFaultPlan = StoreFaultScript | ((op: StoreOp) => StoreFault | null | undefined);

/**
 * The error a planned `reject` gives when the plan names none.
 *
 * @example
 * ```ts
 * const store = faultyStore(memoryStore(), { read: [{ kind: "reject" }] });
 * await store.read("w1"); // rejects: StoreUnavailable { op: "read", stream: "w1" }
 * ```
 */
export class StoreUnavailable extends Data.TaggedError("StoreUnavailable")<{
  readonly op: StoreOpKind;
  readonly stream: string;
}> {
  override get message(): string {
    return `the store refused a ${this.op} of ${JSON.stringify(this.stream)} (an injected fault)`;
  }
}

/** A fault the store gave, and the operation it was given to. */
export interface InjectedStoreFault {
  readonly op: StoreOp;
  readonly fault: StoreFault;
}

/** A {@link faultyStore}: the store, its switch, and a record of what it did. */
export interface FaultyStore extends EventStore {
  /** Stops every fault from now on: each later operation goes to the inner store as it is. */
  readonly heal: () => void;
  /** Whether {@link FaultyStore.heal} was called. */
  readonly healed: () => boolean;
  /** Every fault given so far (delays too), in order. */
  readonly injected: ReadonlyArray<InjectedStoreFault>;
  /** How many operations (reads, appends, `lastSeq`s) the store was asked. */
  readonly ops: () => number;
}

/** How a {@link faultyStore} times its delays. */
export interface FaultyStoreOptions {
  /** Where delays are timed: the system's clock unless given. */
  readonly clock?: Clock;
}

const planned = (plan: StoreFaultPlan, op: StoreOp): StoreFault | undefined => {
  const fault = typeof plan === "function" ? plan(op) : plan[op.kind]?.[op.nth];
  return fault ?? undefined;
};

/**
 * `inner`, failing as `plan` says, until `heal()` is called. An operation the
 * plan leaves alone is the inner store's own; `durable`, `drop`, `erase`, `threads` and `close`
 * are always the inner store's.
 *
 * @example
 * ```ts
 * import fc from "fast-check";
 *
 * // The second append conflicts, the first read fails after 5 ms.
 * const store = faultyStore(memoryStore(), {
 *   append: [null, { kind: "conflict" }],
 *   read: [{ kind: "reject", delayMs: 5 }],
 * });
 * // With fast-check: a script it generates, and shrinks.
 * const fault = fc.constantFrom<StoreFault>({ kind: "reject" }, { kind: "conflict" });
 * const script = fc.record({ append: fc.array(fc.option(fault)), read: fc.array(fc.option(fault)) });
 * // …
 * store.heal(); // no more faults
 * ```
 */
export const faultyStore = (
  inner: EventStore,
  plan: StoreFaultPlan,
  options: FaultyStoreOptions = {},
): FaultyStore => {
  const clock = options.clock ?? systemClock;
  const injected: InjectedStoreFault[] = [];
  const counts: Record<StoreOpKind, number> = { read: 0, append: 0, lastSeq: 0 };
  let n = 0;
  let healed = false;

  const sleep = (ms: number) =>
    ms > 0 ? new Promise<void>((resolve) => clock.setTimeout(resolve, ms)) : Promise.resolve();

  /** Runs `go` as the plan says for the operation `op` describes. */
  const run = async <A>(
    fields: Omit<StoreOp, "n" | "nth">,
    go: () => Promise<A>,
    conflict?: () => unknown,
  ): Promise<A> => {
    const op: StoreOp = { ...fields, n: n++, nth: counts[fields.kind]++ };
    const fault = healed ? undefined : planned(plan, op);
    if (fault === undefined) return go();
    injected.push({ op, fault });
    await sleep(fault.delayMs ?? 0);
    if (fault.kind === "delay") return go();
    if (fault.kind === "conflict" && conflict !== undefined) throw conflict();
    throw fault.kind === "reject" && fault.error !== undefined
      ? fault.error
      : new StoreUnavailable({ op: op.kind, stream: op.stream });
  };

  const store: FaultyStore = {
    get durable() {
      return inner.durable;
    },
    append: (stream, events, expectedSeq): Promise<ReadonlyArray<LogEvent>> =>
      run(
        { kind: "append", stream, expectedSeq, events: events.length },
        () => inner.append(stream, events, expectedSeq),
        () => new AppendConflict({ stream, expectedSeq, actualSeq: expectedSeq + 1 }),
      ),
    read: (stream, fromSeq, toSeq) =>
      run(
        {
          kind: "read",
          stream,
          ...(fromSeq === undefined ? {} : { fromSeq }),
          ...(toSeq === undefined ? {} : { toSeq }),
        },
        () => inner.read(stream, fromSeq, toSeq),
      ),
    lastSeq: (stream) => run({ kind: "lastSeq", stream }, () => inner.lastSeq(stream)),
    drop: (stream) => inner.drop(stream),
    ...(inner.erase === undefined ? {} : { erase: inner.erase.bind(inner) }),
    ...(inner.threads === undefined ? {} : { threads: inner.threads }),
    ...(inner.close === undefined ? {} : { close: inner.close.bind(inner) }),
    heal: () => {
      healed = true;
    },
    healed: () => healed,
    injected,
    ops: () => n,
  };
  return store;
};

/** How often a {@link faultRates} plan fails each kind of operation: each a probability, 0 unless given. */
export interface FaultRates {
  /** A read rejects. */
  readonly readFails?: number;
  /** A `lastSeq` rejects. */
  readonly lastSeqFails?: number;
  /** An append rejects. */
  readonly appendFails?: number;
  /** An append conflicts (drawn after `appendFails`: the two together are at most 1). */
  readonly appendConflicts?: number;
  /** An operation (failing or not) answers `delayMs` late. */
  readonly delays?: number;
  /** How late a delayed operation answers: 1 ms unless given. */
  readonly delayMs?: number;
}

/**
 * A plan that fails operations at random, at the given rates: `random` gives
 * numbers in [0, 1), as `Math.random` does; inject a seeded one to replay a
 * run. A script ({@link StoreFaultScript}) shrinks better under fast-check;
 * rates suit a long soak.
 *
 * @example
 * ```ts
 * const store = faultyStore(memoryStore(), faultRates({ appendFails: 0.1, delays: 0.5 }, random));
 * ```
 */
export const faultRates =
  (rates: FaultRates, random: () => number): ((op: StoreOp) => StoreFault | undefined) =>
  (op) => {
    const fails =
      op.kind === "read"
        ? (rates.readFails ?? 0)
        : op.kind === "lastSeq"
          ? (rates.lastSeqFails ?? 0)
          : (rates.appendFails ?? 0);
    const conflicts = op.kind === "append" ? (rates.appendConflicts ?? 0) : 0;
    const draw = random();
    const delayMs = random() < (rates.delays ?? 0) ? (rates.delayMs ?? 1) : 0;
    const late = delayMs > 0 ? { delayMs } : {};
    if (draw < fails) return { kind: "reject", ...late };
    if (draw < fails + conflicts) return { kind: "conflict", ...late };
    return delayMs > 0 ? { kind: "delay", delayMs } : undefined;
  };
