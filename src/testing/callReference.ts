/**
 * What the reference expects of one call of a `checkCallPath` scenario, from
 * `mayRun`, a reference rate limiter, the command's schema and the user's
 * answer, in the call path's order: grant, user, limit, arguments, code
 * caller, confirmation.
 */
import { Either, Schema } from "effect";
import { canonicalJson } from "../runtime/calls/canonicalJson.ts";
import type { App } from "../runtime/commands/app.ts";
import type { AnyCommand } from "../runtime/commands/command.ts";
import type { Origin } from "../runtime/commands/origin.ts";
import type { AppUser } from "./appArbitraries.ts";
import type { Answer, Step } from "./callScenario.ts";
import { mayRun, surfaceName } from "./mayRun.ts";
import type { ReferenceLimiter } from "./referenceLimiter.ts";

/** The refusals the reference foresees, by the call path's names. */
export type Refusal =
  | "UnknownTool"
  | "Denied"
  | "RateLimited"
  | "InvalidArguments"
  | "CodeCallerRefused"
  | "NotConfirmed";

/** What the reference expects of a call. */
export type Expected =
  | {
      readonly _tag: "Refused";
      readonly as: Refusal;
      /** Why, as a clause: "the user lacks customers.destroy". */
      readonly why: string;
      readonly asked: boolean;
      /** The arguments the user approved, when an edit was refused after approval. */
      readonly edited?: unknown;
      /** Why the user is asked or not, once the grant allows it: see {@link confirmClause}. */
      readonly confirmWhy?: string;
    }
  | {
      readonly _tag: "Runs";
      /** The arguments it runs with, as sent (the model's, or the user's edit). */
      readonly input: unknown;
      readonly why: string;
      readonly asked: boolean;
      readonly edited?: unknown;
      readonly confirmWhy?: string;
    };

/** Why the user is asked, or not: "customers.destroy is in the assistant's confirm list". */
const confirmClause = (ability: string, origin: Origin, asked: boolean): string =>
  `${ability} is ${asked ? "" : "not "}in ${surfaceName(origin)}'s confirm list`;

/** Whether input decodes with a command's argument schema, properties it does not name refused. */
export const decodes = (command: AnyCommand, input: unknown): boolean =>
  Either.isRight(Schema.decodeUnknownEither(command.args, { onExcessProperty: "error" })(input));

/** The arguments as the user left them: one argument changed, or left out. */
export const editedInput = (input: unknown, answer: Answer): unknown => {
  if (typeof answer === "string") return input;
  const { [answer.edit]: _before, ...rest } = input as Record<string, unknown>;
  return answer.to === undefined ? rest : { ...rest, [answer.edit]: answer.to };
};

/** The reference's state within one scenario: the app, its table, and the limits taken so far. */
export interface ReferenceState {
  readonly app: App;
  readonly takes: Readonly<Record<string, string>> | undefined;
  readonly limiter: ReferenceLimiter;
  readonly now: number;
}

/** The origin of a step, as the call path takes it. */
export const originOf = (step: Step): Origin =>
  step.origin === "assistant" ? { kind: "assistant" } : { kind: "agent", client: "checkCallPath" };

/** What the reference expects of one call of `step` by `user`, now. Takes from the limiter as the call path would. */
export const expectedOf = (state: ReferenceState, user: AppUser<unknown>, step: Step): Expected => {
  const origin = originOf(step);
  const verdict = mayRun(
    state.app,
    { tool: step.call.tool, origin, has: user.abilities },
    { takes: state.takes },
  );
  if (verdict._tag === "UnknownTool")
    return { _tag: "Refused", as: "UnknownTool", why: verdict.why, asked: false };
  if (verdict._tag === "Denied")
    return {
      _tag: "Refused",
      as: "Denied",
      why: `the user lacks ${verdict.ability}`,
      asked: false,
    };
  const confirmWhy = confirmClause(verdict.ability, origin, verdict.confirm);
  return { ...allowedExpected(state, step, verdict.ability, verdict.confirm), confirmWhy };
};

/** What the reference expects of a call the grant (and, from the assistant, the user) allows. */
const allowedExpected = (
  state: ReferenceState,
  step: Step,
  ability: string,
  confirm: boolean,
): Expected => {
  const { app } = state;
  const { tool, input } = step.call;
  const origin = originOf(step);
  const refused = (as: Refusal, why: string, asked = false, edited?: unknown): Expected => ({
    _tag: "Refused",
    as,
    why,
    asked,
    ...(edited === undefined ? {} : { edited }),
  });
  const allows = `${surfaceName(origin)}'s grant allows ${ability}${origin.kind === "assistant" ? " and the user has it" : ""}`;
  const command = app.commands.get(tool);
  // Only a `takes` table can allow what the app has no command for: the call path then refuses it.
  if (command === undefined) return { _tag: "Runs", input, why: allows, asked: confirm };
  const grant = origin.kind === "assistant" ? app.assistant : app.mcp;
  /**
   * Steps 4 and 5: the rate limit (taking a place, once a call: an approved
   * edit is the same call), then the arguments.
   */
  const admit = (
    args: unknown,
    asked: boolean,
    edited?: unknown,
    take = true,
  ): Expected | undefined => {
    const limit = command.rateLimit ?? grant?.rateLimit;
    if (limit !== undefined && take) {
      const key = `${step.origin}\u0000${step.scope}\u0000${tool}`;
      const taken = state.limiter.take(key, limit.calls, limit.perSeconds * 1000, state.now);
      if (taken !== "ok")
        return refused(
          "RateLimited",
          `it was over its limit of ${limit.calls} calls per ${limit.perSeconds} s`,
          asked,
          edited,
        );
    }
    if (!decodes(command, args))
      return refused("InvalidArguments", "its arguments do not decode", asked, edited);
    return undefined;
  };
  const first = admit(input, false);
  if (first !== undefined) return first;
  if (!confirm) return { _tag: "Runs", input, why: allows, asked: false };
  if (step.call.caller?.type === "code")
    return refused(
      "CodeCallerRefused",
      `code called it, and ${confirmClause(ability, origin, true)}`,
    );
  const { answer } = step;
  if (answer === "declined") return refused("NotConfirmed", "the user declined", true);
  if (answer === "timedOut") return refused("NotConfirmed", "the user did not answer", true);
  const edited = editedInput(input, answer);
  if (answer === "accepted" || canonicalJson(edited) === canonicalJson(input))
    return { _tag: "Runs", input, why: `${allows}, and the user accepted`, asked: true };
  const editable = command.confirmation.editable.map((field) => field.name);
  if (typeof answer !== "string" && !editable.includes(answer.edit))
    return refused(
      "NotConfirmed",
      `the user's edit changed ${answer.edit}, which is not editable`,
      true,
    );
  const again = admit(edited, true, edited, false);
  if (again !== undefined) return again;
  return {
    _tag: "Runs",
    input: edited,
    why: `${allows}, and the user accepted their edit`,
    asked: true,
    edited,
  };
};
