/**
 * The scenarios `checkCallPath` draws: a user and a few steps, each a tool
 * call (once or in a burst) from the assistant or MCP, in one of two windows,
 * some time after the last, with the user's answer should they be asked.
 */
import { FastCheck as fc } from "effect";
import type { ToolCall } from "../runtime/calls/callPath.ts";
import type { App } from "../runtime/commands/app.ts";
import type { AnyCommand } from "../runtime/commands/command.ts";
import type { User } from "../runtime/commands/origin.ts";
import {
  type AppUser,
  FIRST_FIRST,
  toolCallOf,
  toolNamesOf,
  unknownCallOf,
} from "./appArbitraries.ts";
import { argumentsOf } from "./arguments.ts";

/** An edit the user makes on the question before approving: one argument changed (or removed, `to` undefined). */
export interface Edit {
  readonly edit: string;
  readonly to: unknown;
}

/** The user's answer, should they be asked. */
export type Answer = "accepted" | "declined" | "timedOut" | Edit;

/** One step: a call, made `times` times in a row, `laterMs` after the step before. */
export interface Step {
  readonly call: ToolCall;
  readonly origin: "assistant" | "agent";
  readonly scope: "w1" | "w2";
  readonly answer: Answer;
  readonly times: number;
  readonly laterMs: number;
}

/** A user and what they do. */
export interface Scenario<U = User> {
  readonly user: AppUser<U>;
  readonly steps: ReadonlyArray<Step>;
}

/** What shapes the scenarios. */
export interface ScenarioOptions<U> {
  readonly users: fc.Arbitrary<AppUser<U>>;
  readonly takes: Readonly<Record<string, string>> | undefined;
  /** At most this many steps in a scenario. */
  readonly maxSteps: number;
  /** A burst is at most this long, however high a limit is. */
  readonly maxBurst: number;
}

/** The most calls any limit of a command allows (its own, else the grants'), if any limit applies. */
const limitCalls = (app: App, command: AnyCommand | undefined): number | undefined => {
  const limits = command?.rateLimit
    ? [command.rateLimit]
    : [app.assistant?.rateLimit, app.mcp?.rateLimit].filter((l) => l !== undefined);
  return limits.length === 0 ? undefined : Math.max(...limits.map((l) => l.calls));
};

/** The longest window of any limit in the app, in ms (a minute when there is none). */
const longestWindowMs = (app: App): number => {
  const limits = [
    app.assistant?.rateLimit,
    app.mcp?.rateLimit,
    ...[...app.commands.values()].map((c) => c.rateLimit),
  ].filter((l) => l !== undefined);
  return Math.max(60_000, ...limits.map((l) => l.perSeconds * 1000));
};

/** The user's answer: mostly a plain one, sometimes an edit of one argument (to a valid value, or to junk). */
const answerOf = (command: AnyCommand): fc.Arbitrary<Answer> => {
  const plain = fc.constantFrom<Answer>("accepted", "declined", "timedOut");
  if (command.argumentNames.length === 0) return plain;
  const edit = fc
    .tuple(
      fc.constantFrom(...command.argumentNames),
      argumentsOf(command),
      fc.oneof(FIRST_FIRST, { weight: 3, arbitrary: fc.constant(false) }, fc.constant(true)),
    )
    .map(
      ([name, other, junk]): Answer => ({ edit: name, to: junk ? { $wrong: [] } : other[name] }),
    );
  return fc.oneof(FIRST_FIRST, { weight: 2, arbitrary: plain }, { weight: 1, arbitrary: edit });
};

/** How many times in a row: once mostly, sometimes up to one past the tool's limit. */
const timesOf = (calls: number | undefined, maxBurst: number): fc.Arbitrary<number> => {
  if (calls === undefined) return fc.constant(1);
  const past = Math.max(2, Math.min(calls + 1, maxBurst));
  return fc.oneof(
    FIRST_FIRST,
    { weight: 5, arbitrary: fc.constant(1) },
    { weight: 1, arbitrary: fc.constant(past) },
    { weight: 1, arbitrary: fc.integer({ min: 2, max: past }) },
  );
};

/** The scenarios of an app: its users, calling its commands (and names that are none). */
export const scenariosOf = <U>(
  app: App,
  options: ScenarioOptions<U>,
): fc.Arbitrary<Scenario<U>> => {
  const windowMs = longestWindowMs(app);
  const common = {
    origin: fc.constantFrom("assistant" as const, "agent" as const),
    scope: fc.constantFrom("w1" as const, "w2" as const),
    laterMs: fc.oneof(
      FIRST_FIRST,
      { weight: 3, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: Math.ceil(windowMs * 1.2) }) },
    ),
  };
  const names = toolNamesOf(app, options.takes);
  const stepOfTool = (name: string): fc.Arbitrary<Step> => {
    const command = app.commands.get(name);
    return fc.record({
      call:
        command === undefined
          ? fc.constant<ToolCall>({ tool: name, input: {}, caller: { type: "direct" } })
          : toolCallOf(command),
      answer: command === undefined ? fc.constant<Answer>("accepted") : answerOf(command),
      times: timesOf(limitCalls(app, command), options.maxBurst),
      ...common,
    });
  };
  const unknownStep = fc.record({
    call: unknownCallOf(names),
    answer: fc.constant<Answer>("accepted"),
    times: fc.constant(1),
    ...common,
  });
  const step = fc.oneof(...names.map((name) => ({ weight: 4, arbitrary: stepOfTool(name) })), {
    weight: 2,
    arbitrary: unknownStep,
  });
  return fc.record({
    user: options.users,
    steps: fc.array(step, { minLength: 1, maxLength: options.maxSteps }),
  });
};
