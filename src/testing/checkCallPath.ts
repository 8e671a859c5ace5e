/**
 * `checkCallPath`: a ready property a user runs from their own test, over
 * their real commands and grants, against the reference model of who may run
 * what. Failing, it throws the shrunk counterexample as a call a person reads.
 */
import { FastCheck as fc } from "effect";
import { createCallPath } from "../runtime/calls/callPath.ts";
import type { Confirmer } from "../runtime/calls/confirmer.ts";
import type { CallOutcome } from "../runtime/calls/outcome.ts";
import type { RateLimitStore } from "../runtime/calls/rateLimit.ts";
import type { App } from "../runtime/commands/app.ts";
import type { User } from "../runtime/commands/origin.ts";
import { type AppUser, usersOf } from "./appArbitraries.ts";
import { problemOf } from "./callCheck.ts";
import { type Expected, editedInput, expectedOf, originOf } from "./callReference.ts";
import { type Scenario, type Step, scenariosOf } from "./callScenario.ts";
import { answeringConfirmer, editingConfirmer } from "./confirmers.ts";
import { countingIds } from "./countingIds.ts";
import { readableScenario } from "./readableCall.ts";
import { type RecordingApp, recordingApp } from "./recordingApp.ts";
import { ReferenceLimiter } from "./referenceLimiter.ts";
import { simulatedClock } from "./simulatedClock.ts";

/** Options of {@link checkCallPath}; every one has a default. */
export interface CheckCallPathOptions<U = User> {
  /**
   * Makes your app's user from abilities, for the default `users`. Default
   * `(abilities) => ({ abilities })`: right only when your `userAbilities`
   * reads `user.abilities`.
   */
  readonly user?: (abilities: ReadonlyArray<string>) => U;
  /** The users to try, each with the abilities they truly have. Default: `usersOf(app, { user, takes })`. */
  readonly users?: fc.Arbitrary<AppUser<U>>;
  /**
   * The ability each tool takes, written apart from your commands (see
   * `mayRun`). Default: each command's own `can`, so a wrong `can` goes unseen.
   */
  readonly takes?: Readonly<Record<string, string>> | undefined;
  /** How many scenarios to try: 100. */
  readonly numRuns?: number;
  /** fast-check's seed, and `path` with it to replay a failure as its message says. */
  readonly seed?: number;
  readonly path?: string;
  /** At most this many steps (calls or bursts of one call) in a scenario: 8. */
  readonly maxSteps?: number;
  /** The longest burst of one call, to pass a rate limit: 64. A limit above it is not reached. */
  readonly maxBurst?: number;
  /**
   * `"record"` (the default): each command's `run` is replaced by a recorder
   * and its `confirmLabel` left out, so nothing touches your data. `"real"`:
   * your `run` and labels run too, after the recorder.
   */
  readonly run?: "record" | "real";
  /**
   * A fresh, empty rate-limit store for each scenario, to check your own
   * store holds the limits. Default: `memoryRateLimitStore()`.
   */
  readonly rateLimits?: () => RateLimitStore;
}

/** How each call ended, as the reference expected it (edits that ran are `RanEdited`). */
export type ExpectedEnding =
  | "UnknownTool"
  | "Denied"
  | "RateLimited"
  | "InvalidArguments"
  | "CodeCallerRefused"
  | "NotConfirmed"
  | "Ran"
  | "RanEdited";

/** What a passing check tried. */
export interface CallPathReport {
  readonly numRuns: number;
  /** The calls made, in all. */
  readonly calls: number;
  /** How many calls ended each way: a kind never reached was not checked. */
  readonly seen: Readonly<Record<ExpectedEnding, number>>;
}

/** A call that broke the rules, as a person reads it. */
class Violation extends Error {
  override readonly name = "Violation";
}

const endingOf = (expected: Expected): ExpectedEnding =>
  expected._tag === "Refused" ? expected.as : expected.edited === undefined ? "Ran" : "RanEdited";

const confirmerOf = (step: Step): Confirmer & { readonly asked: ReadonlyArray<unknown> } => {
  const { answer } = step;
  return typeof answer === "string"
    ? answeringConfirmer(answer)
    : editingConfirmer((request) => editedInput(request.args, answer));
};

/** Plays one scenario on a fresh call path and clock; throws a {@link Violation} at the first call that breaks the rules. */
const play = async <U>(
  app: App,
  recording: RecordingApp,
  scenario: Scenario<U>,
  options: Pick<CheckCallPathOptions<U>, "takes" | "rateLimits">,
  tally: (ending: ExpectedEnding) => void,
): Promise<void> => {
  const { takes } = options;
  const clock = simulatedClock(0);
  const path = createCallPath(recording.app, {
    clock,
    ids: countingIds("call"),
    confirmIds: countingIds("confirm"),
    ...(options.rateLimits === undefined ? {} : { rateLimits: options.rateLimits() }),
  });
  const limiter = new ReferenceLimiter();
  recording.take();
  const asked: boolean[] = [];
  for (const [index, step] of scenario.steps.entries()) {
    clock.increment(step.laterMs);
    asked.push(false);
    for (let call = 1; call <= step.times; call++) {
      const expected = expectedOf({ app, takes, limiter, now: clock.now() }, scenario.user, step);
      const confirmer = confirmerOf(step);
      let outcome: CallOutcome | undefined;
      let threw: unknown;
      try {
        outcome = await path.call(step.call, {
          user: scenario.user.user as User,
          origin: originOf(step),
          scope: step.scope,
          confirmer,
        });
      } catch (error) {
        threw = error;
      }
      const observed = { outcome, threw, runs: recording.take(), asked: confirmer.asked.length };
      asked[index] = (asked[index] ?? false) || observed.asked > 0;
      tally(endingOf(expected));
      const problem = problemOf(expected, observed, app.commands.get(step.call.tool));
      if (problem !== undefined) {
        throw new Violation(readableScenario(scenario, { step: index, call, asked, problem }));
      }
    }
  }
};

const zero = (): Record<ExpectedEnding, number> => ({
  UnknownTool: 0,
  Denied: 0,
  RateLimited: 0,
  InvalidArguments: 0,
  CodeCallerRefused: 0,
  NotConfirmed: 0,
  Ran: 0,
  RanEdited: 0,
});

/** The thrown error's message: the shrunk counterexample, and how to replay it. */
const reportOf = <U>(details: fc.RunDetails<[Scenario<U>]>): string => {
  const replay = `replay with { seed: ${details.seed}, path: ${JSON.stringify(details.counterexamplePath)} }`;
  const runs = `${details.numRuns} run${details.numRuns === 1 ? "" : "s"}`;
  const shrinks = `${details.numShrinks} time${details.numShrinks === 1 ? "" : "s"}`;
  const found = `after ${runs}, shrunk ${shrinks}; ${replay}`;
  const error = details.errorInstance;
  if (error instanceof Violation)
    return `checkCallPath: a call broke the rules (${found}):\n${error.message}`;
  const scenario = JSON.stringify(details.counterexample?.[0] ?? null);
  const message = error instanceof Error ? error.message : String(error);
  return `checkCallPath: a scenario failed (${found}): ${message}\n${scenario}`;
};

/** The steps of one scenario, the calls of a burst and the runs, unless given. */
export const CHECK_MAX_STEPS = 8;
export const CHECK_MAX_BURST = 64;
export const CHECK_NUM_RUNS = 100;

/**
 * Checks your app's call path against the reference model of who may run
 * what, over your real commands, grants, schemas, confirm lists and rate
 * limits, for random users and calls (`usersOf`, `toolCallsOf`): nothing runs
 * outside the grant ∩ the user's abilities (MCP: its own grant); every call
 * whose ability a grant confirms is asked, and a decline, a silence or an
 * edit of an argument that is not editable runs nothing; an approved edit
 * runs exactly the edited arguments; names that are no tool (`constructor`,
 * `__proto__`) are unknown tools; code may not call what is confirmed;
 * arguments that do not decode never run; a tool called past its rate limit
 * is refused and not run. By default no command's `run` runs: each is a
 * recorder (see `run`). Resolves to what was tried; rejects with the shrunk
 * counterexample, as a call a person reads. No test framework is needed:
 * await it in Vitest, Jest or node:test.
 *
 * @example
 * ```ts
 * import { test } from "vitest";
 *
 * test("who may run what", async () => {
 *   await checkCallPath(crmApp(db), {
 *     user: (abilities) => ({ id: 1, name: "Ada", abilities }),
 *     takes: CRM_TAKES, // every tool and the ability it takes: { customers_show: "customers.view", … }
 *     numRuns: 1000,
 *   });
 * });
 * // A leak fails with e.g.:
 * // user {abilities: []} (assistant) called customers_destroy({"id":1}), and when asked
 * // the user accepted: it ran, but the user lacks customers.destroy
 * ```
 */
export const checkCallPath = async <U = User>(
  app: App,
  options: CheckCallPathOptions<U> = {},
): Promise<CallPathReport> => {
  const { takes } = options;
  const recording = recordingApp(app, options.run ?? "record");
  const users =
    options.users ??
    usersOf<U>(app, {
      ...(options.user ? { user: options.user } : {}),
      ...(takes ? { takes } : {}),
    });
  const scenarios = scenariosOf(app, {
    users,
    takes,
    maxSteps: options.maxSteps ?? CHECK_MAX_STEPS,
    maxBurst: options.maxBurst ?? CHECK_MAX_BURST,
  });
  const seen = zero();
  let calls = 0;
  const tally = (ending: ExpectedEnding) => {
    seen[ending]++;
    calls++;
  };
  const property = fc.asyncProperty(scenarios, (scenario) =>
    play(app, recording, scenario, options, tally),
  );
  const details = await fc
    .check(property, {
      numRuns: options.numRuns ?? CHECK_NUM_RUNS,
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      ...(options.path === undefined ? {} : { path: options.path }),
    })
    .catch((error: unknown) => {
      // Drawing arguments failed (a schema's own check threw): that message names the command.
      throw error instanceof Error && error.name === "ArgumentsThrew"
        ? new Error(`checkCallPath: ${error.message}`, { cause: error })
        : error;
    });
  if (details.failed) throw new Error(reportOf(details));
  return { numRuns: details.numRuns, calls, seen };
};
