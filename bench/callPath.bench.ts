/**
 * The call path, per call (the targets in docs/architecture.md):
 * `callPath.call` against awaiting the command's `run` with arguments already
 * decoded, side by side in one run.
 * Target: ≤ 20 µs added per call (mean).
 *
 * Each call is granted, taken by a user who has the ability, counted by a rate
 * limit it never reaches, and needs no confirmation: the path a tool call takes
 * when it runs. No `callId` is given, so the path makes one.
 */
import { Schema } from "effect";
import {
  type AnyCommand,
  type Clock,
  createApp,
  createCallPath,
  defineCommand,
  type RateLimit,
} from "elyra-assistant";
import { Bench, hrtimeNowTimestampProvider } from "tinybench";
import { type Benchmark, type BenchResult, type PerCall, perCall, round2 } from "./report.ts";

const TARGET_US = 20;
const ROUNDS = 7;

const show = defineCommand({
  name: "records_show",
  description: "Show one record by id.",
  can: "records.view",
  args: { id: Schema.Number },
  run: ({ id }) => ({ id, name: "Ada Lovelace", active: true }),
});

const update = defineCommand({
  name: "records_update",
  description: "Change a record.",
  can: "records.update",
  args: {
    name: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)),
    email: Schema.String.pipe(Schema.pattern(/^[^@\s]+@[^@\s]+\.[^@\s]+$/)),
    phone: Schema.String.pipe(Schema.pattern(/^\+?[0-9 ()-]{7,20}$/)),
    country: Schema.String.pipe(Schema.pattern(/^[A-Z]{2}$/)),
    age: Schema.Int.pipe(Schema.between(0, 150)),
    creditLimit: Schema.Number.pipe(Schema.nonNegative(), Schema.lessThanOrEqualTo(1_000_000)),
    discount: Schema.Number.pipe(Schema.between(0, 1)),
    note: Schema.optional(Schema.String.pipe(Schema.maxLength(500))),
    status: Schema.Literal("active", "paused", "closed"),
    address: Schema.Struct({
      street: Schema.String.pipe(Schema.minLength(1)),
      city: Schema.String.pipe(Schema.minLength(1)),
      zip: Schema.String.pipe(Schema.pattern(/^[0-9]{5}$/)),
    }),
  },
  run: (record) => ({ id: 42, name: record.name, status: record.status }),
});

const updateInput = {
  name: "Ada Lovelace",
  email: "ada@example.com",
  phone: "+44 20 7946 0958",
  country: "GB",
  age: 36,
  creditLimit: 50_000,
  discount: 0.1,
  note: "Prefers email.",
  status: "active",
  address: { street: "12 St James's Square", city: "London", zip: "12345" },
};

const user = { name: "Ada", abilities: ["records.view", "records.update"] };
const origin = { kind: "assistant" } as const;
const runContext = { user, origin, signal: new AbortController().signal };

/**
 * A rate-limit setting: the limit, and how far the clock moves per call. The
 * memory store keeps a log of the calls in the window, so the step sets how
 * many entries each call's check goes through: window / step.
 */
interface Pace {
  readonly limit: RateLimit;
  readonly stepMs: number;
}
/** A scope calling every 2 s under 600 a minute: 30 calls in the window. */
const steady: Pace = { limit: { calls: 600, perSeconds: 60 }, stepMs: 2_000 };
/** A busy scope (an agent in a loop) under 2 000 a minute: 1 000 calls in the window. */
const busy: Pace = { limit: { calls: 2_000, perSeconds: 60 }, stepMs: 60 };

interface Case {
  readonly name: string;
  readonly command: AnyCommand;
  readonly input: unknown;
  readonly audit: boolean;
  readonly pace: Pace;
}

const trivial = { command: show, input: { id: 42 } };
const tenFields = { command: update, input: updateInput };

const cases: ReadonlyArray<Case> = [
  { name: "trivial", ...trivial, audit: false, pace: steady },
  { name: "trivial + audit$", ...trivial, audit: true, pace: steady },
  { name: "10 fields", ...tenFields, audit: false, pace: steady },
  { name: "10 fields + audit$", ...tenFields, audit: true, pace: steady },
  { name: "trivial, busy scope", ...trivial, audit: false, pace: busy },
];

/** The wall clock, moved on by `step` so that calls are spread as a pace says. */
const steppingClock = () => {
  let skew = 0;
  const clock: Clock = {
    now: () => Date.now() + skew,
    setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
    clearTimeout: (handle) => globalThis.clearTimeout(handle),
  };
  const step = (ms: number) => {
    skew += ms;
  };
  return { clock, step };
};

/** One case's call: its own app, call path, store and clock; fails loudly unless the call succeeds. */
const measuredCall = (c: Case) => {
  const app = createApp({
    commands: [show, update],
    userAbilities: (u) => (u as typeof user).abilities,
    assistant: { allow: ["records.*"], rateLimit: c.pace.limit },
  });
  const { clock, step } = steppingClock();
  const path = createCallPath(app, { clock });
  let audited = 0;
  if (c.audit) {
    path.audit$.subscribe(() => {
      audited++;
    });
  }
  const ctx = { user, origin, scope: "w1" };
  const call = async () => {
    step(c.pace.stepMs);
    const outcome = await path.call({ tool: c.command.name, input: c.input }, ctx);
    if (outcome._tag !== "Succeeded") throw new Error(`${c.name}: ${outcome._tag}`);
  };
  /** Calls until the rate-limit log holds what the pace keeps in a window. */
  const fill = async () => {
    const calls = Math.ceil((c.pace.limit.perSeconds * 1000) / c.pace.stepMs);
    for (let i = 0; i < calls; i++) await call();
  };
  return { call, fill, audited: () => audited };
};

/** The baseline: the command's own `run`, awaited, with its arguments decoded beforehand. */
const directCall = (command: AnyCommand, input: unknown) => {
  const decoded = command.decode(input);
  if (decoded._tag === "Left") throw new Error(`${command.name}: the bench input does not decode`);
  const args = decoded.right;
  return async () => {
    const value = await command.run(args, runContext);
    if (value === undefined) throw new Error(`${command.name}: no result`);
  };
};

/** The median of a few figures (the rounds'), so one disturbed round does not move the result. */
const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** A case's row: medians over the rounds; `spreadUs` is how far the rounds' added means lie apart. */
const row = (name: string, direct: ReadonlyArray<PerCall>, path: ReadonlyArray<PerCall>) => {
  const added = path.map((p, i) => p.meanUs - direct[i]!.meanUs);
  const directMean = median(direct.map((d) => d.meanUs));
  const pathMean = median(path.map((p) => p.meanUs));
  const directP99 = median(direct.map((d) => d.p99Us));
  const pathP99 = median(path.map((p) => p.p99Us));
  const addedUs = median(added);
  return {
    case: name,
    directMeanUs: round2(directMean),
    directP99Us: round2(directP99),
    pathMeanUs: round2(pathMean),
    pathP99Us: round2(pathP99),
    addedUs: round2(addedUs),
    addedP99Us: round2(pathP99 - directP99),
    ratio: round2(pathMean / directMean),
    spreadUs: round2(Math.max(...added) - Math.min(...added)),
    samples: path.reduce((sum, p) => sum + p.samples, 0),
    pass: addedUs <= TARGET_US,
  };
};

interface Measured {
  readonly name: string;
  readonly fn: () => Promise<void>;
  readonly fill?: () => Promise<void>;
}

/**
 * Runs every task for `ROUNDS` rounds, each with its own warmup, the order
 * reversed every other round so that drift during a round weighs on both sides.
 */
const measure = async (tasks: ReadonlyArray<Measured>): Promise<Map<string, PerCall[]>> => {
  const figures = new Map<string, PerCall[]>(tasks.map((t) => [t.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const bench = new Bench({
      name: `call path, round ${round + 1}`,
      time: 500,
      warmupTime: 150,
      timestampProvider: hrtimeNowTimestampProvider,
      throws: true,
    });
    const ordered = round % 2 === 0 ? tasks : [...tasks].reverse();
    for (const t of ordered) bench.add(t.name, t.fn, t.fill ? { beforeAll: t.fill } : {});
    await bench.run();
    for (const task of bench.tasks) figures.get(task.name)!.push(perCall(task));
  }
  return figures;
};

const run = async (): Promise<BenchResult> => {
  const directName = (command: AnyCommand) => `direct ${command.name}`;
  const made = cases.map((c) => ({ c, ...measuredCall(c) }));
  const figures = await measure([
    ...[trivial, tenFields].map(({ command, input }) => ({
      name: directName(command),
      fn: directCall(command, input),
    })),
    ...made.map(({ c, call, fill }) => ({ name: `path ${c.name}`, fn: call, fill })),
  ]);
  for (const { c, audited } of made) {
    if (c.audit && audited() === 0) throw new Error(`${c.name}: the audit$ subscriber saw nothing`);
  }
  const rows = made.map(({ c }) =>
    row(c.name, figures.get(directName(c.command))!, figures.get(`path ${c.name}`)!),
  );
  return {
    title: "call path, per call",
    baseline: "awaiting the command's run with arguments already decoded",
    target: `≤ ${TARGET_US} µs added per call (mean)`,
    pass: rows.every((r) => r.pass),
    headline: "addedUs",
    columns: [
      "case",
      "directMeanUs",
      "pathMeanUs",
      "addedUs",
      "directP99Us",
      "pathP99Us",
      "addedP99Us",
      "ratio",
      "spreadUs",
      "pass",
    ],
    rows,
    notes: [
      "Granted, the user has the ability, no confirmation, no callId (the path makes one).",
      "Rate limit on, never reached: 30 calls in the window (600/min, a call every 2 s); " +
        "the busy scope has 1 000 (2 000/min, a call every 60 ms).",
      "audit$: one subscriber attached; without one the path builds no audit record.",
      `Medians of ${ROUNDS} rounds; spreadUs: max - min of the rounds' added means.`,
    ],
  };
};

export const benchmark: Benchmark = { name: "callPath", run };
