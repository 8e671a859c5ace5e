/**
 * Arbitraries of an app's own: the tool calls a model could make of its
 * commands, and users made from the abilities it names.
 */
import { FastCheck as fc } from "effect";
import type { ToolCall } from "../runtime/calls/callPath.ts";
import type { App } from "../runtime/commands/app.ts";
import type { AnyCommand } from "../runtime/commands/command.ts";
import type { Caller, User } from "../runtime/commands/origin.ts";
import { argumentsOf, invalidArgumentsOf } from "./arguments.ts";

/** Names that are nobody's tool but that a lookup in a plain object would find. */
export const PROTOTYPE_NAMES: ReadonlyArray<string> = [
  ...Object.getOwnPropertyNames(Object.prototype),
  "prototype",
  "then",
];

/** A user of your app, and the abilities they truly have: the reference reads these, the app its user. */
export interface AppUser<U = User> {
  /** The abilities (exact or patterns) the user has, as you mean them. */
  readonly abilities: ReadonlyArray<string>;
  /** The user object your app's `userAbilities` and commands read. */
  readonly user: U;
}

/** Options of {@link usersOf}. */
export interface UsersOptions<U = User> {
  /**
   * Makes your app's user from abilities: what your `userAbilities` reads.
   * Default `(abilities) => ({ abilities })`, right only for an app whose
   * `userAbilities` is `(user) => user.abilities`.
   */
  readonly user?: (abilities: ReadonlyArray<string>) => U;
  /** The ability each tool takes, when you wrote that table (see `mayRun`): its abilities are named too. */
  readonly takes?: Readonly<Record<string, string>> | undefined;
}

/**
 * Every ability and pattern an app names: each command's `can`, each grant's
 * `allow` and `confirm` patterns (and the abilities of `takes`), in that
 * order, once each.
 */
const abilitiesNamedBy = (
  app: App,
  takes: Readonly<Record<string, string>> = {},
): ReadonlyArray<string> => {
  const named = new Set<string>();
  for (const command of app.commands.values())
    if (command.can !== undefined) named.add(command.can);
  for (const grant of [app.assistant, app.mcp]) {
    for (const pattern of [...(grant?.allow ?? []), ...(grant?.confirm ?? [])]) named.add(pattern);
  }
  for (const ability of Object.values(takes)) named.add(ability);
  return [...named];
};

/**
 * Users of an app: any subset of the abilities and patterns it names (its
 * commands' `can`, its grants' `allow` and `confirm`), made into your user
 * by `options.user`. A user shrinks towards one with fewer abilities.
 *
 * @example
 * ```ts
 * const users = usersOf(app, {
 *   user: (abilities) => ({ id: 1, name: "Ada", abilities }),
 * });
 * fc.sample(users, 1); // [{ abilities: ["customers.view"], user: { id: 1, name: "Ada", abilities: ["customers.view"] } }]
 * ```
 */
export const usersOf = <U = User>(
  app: App,
  options: UsersOptions<U> = {},
): fc.Arbitrary<AppUser<U>> => {
  const make = options.user ?? ((abilities) => ({ abilities }) as U);
  return fc
    .subarray([...abilitiesNamedBy(app, options.takes)])
    .map((abilities) => ({ abilities, user: make(abilities) }));
};

/** The names to call: the app's commands, and the tools of `takes`. */
export const toolNamesOf = (
  app: App,
  takes: Readonly<Record<string, string>> = {},
): ReadonlyArray<string> => [...new Set([...app.commands.keys(), ...Object.keys(takes)])];

/** A `oneof` that shrinks towards its first choice: the plainest case, so counterexamples read simply. */
export const FIRST_FIRST = { withCrossShrink: true } as const;

const callerOf = fc.oneof(
  FIRST_FIRST,
  { weight: 3, arbitrary: fc.constant<Caller>({ type: "direct" }) },
  { weight: 1, arbitrary: fc.constant<Caller>({ type: "code", toolId: "srvtoolu_property" }) },
);

/** Calls of one command: valid arguments mostly, invalid ones too, directly or from code. */
export const toolCallOf = (command: AnyCommand): fc.Arbitrary<ToolCall> =>
  fc.record({
    tool: fc.constant(command.name),
    input: fc.oneof(
      FIRST_FIRST,
      { weight: 3, arbitrary: argumentsOf(command) },
      { weight: 1, arbitrary: invalidArgumentsOf(command) },
    ),
    caller: callerOf,
  });

/** Calls of names that are no command: a prototype name, or any short string. */
export const unknownCallOf = (known: ReadonlyArray<string>): fc.Arbitrary<ToolCall> =>
  fc.record({
    tool: fc.oneof(
      fc.constantFrom(...PROTOTYPE_NAMES),
      fc.string({ maxLength: 12 }).filter((name) => !known.includes(name)),
    ),
    input: fc.constant({}),
    caller: callerOf,
  });

/**
 * The tool calls a model could make of an app: each of its commands with
 * valid and invalid arguments (`argumentsOf`, `invalidArgumentsOf`), directly
 * or from code, and now and then a name that is no command's (a prototype
 * name such as `constructor`, or any short string).
 *
 * @example
 * ```ts
 * fc.sample(toolCallsOf(app), 1);
 * // [{ tool: "customers_show", input: { id: 3 }, caller: { type: "direct" } }]
 * ```
 */
export const toolCallsOf = (app: App): fc.Arbitrary<ToolCall> => {
  const commands = [...app.commands.values()];
  return fc.oneof(...commands.map((command) => ({ weight: 4, arbitrary: toolCallOf(command) })), {
    weight: 1,
    arbitrary: unknownCallOf([...app.commands.keys()]),
  });
};
