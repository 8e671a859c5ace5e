/**
 * One call of a `checkCallPath` scenario held to the reference: whether it
 * ran (once, with the right arguments), whether the user was asked, and how
 * it was refused. The first thing wrong is told as a clause a person reads.
 */

import { Schema } from "effect";
import { canonicalJson } from "../runtime/calls/canonicalJson.ts";
import { type CallOutcome, formatOutcome } from "../runtime/calls/outcome.ts";
import { clip } from "../runtime/clip.ts";
import type { AnyCommand } from "../runtime/commands/command.ts";
import { messageOf } from "./arguments.ts";
import type { Expected } from "./callReference.ts";
import { jsonText } from "./readableCall.ts";
import type { RecordedRun } from "./recordingApp.ts";

/** What a call did: its outcome (or what the call path threw), the runs recorded, the questions asked. */
export interface Observed {
  readonly outcome: CallOutcome | undefined;
  readonly threw: unknown;
  readonly runs: ReadonlyArray<RecordedRun>;
  readonly asked: number;
}

/** What the model was told, first line: `"the user may not do this: it takes customers.view"`. */
const told = (outcome: CallOutcome): string =>
  JSON.stringify(clip(formatOutcome(outcome).text.split("\n")[0] ?? "", 160));

/** Arguments as one text to compare: decoded ones encoded again, as canonical JSON. */
const argumentsKey = (command: AnyCommand, decoded: unknown): string => {
  try {
    return canonicalJson(Schema.encodeUnknownSync(command.args)(decoded));
  } catch {
    return canonicalJson(decoded);
  }
};

/** The decoded arguments the reference expects a run with, as the same text. */
const expectedKey = (command: AnyCommand, input: unknown): string =>
  argumentsKey(command, Schema.decodeUnknownSync(command.args)(input));

/**
 * What is wrong with a call, as a clause ("it ran, but the user lacks
 * customers.destroy"), or undefined when it did what the reference expects.
 * `command` is the app's command of that name, if any.
 */
export const problemOf = (
  expected: Expected,
  observed: Observed,
  command: AnyCommand | undefined,
): string | undefined => {
  const { outcome, runs, asked } = observed;
  const { confirmWhy } = expected;
  if (outcome === undefined) return `the call path threw ${messageOf(observed.threw)}`;
  if (runs.length > 1) return `it ran ${runs.length} times`;
  const didRun = runs.length === 1;
  if (expected._tag === "Refused" && didRun) return `it ran, but ${expected.why}`;
  if (expected._tag === "Runs" && !didRun)
    return `it did not run (${outcome._tag}: ${told(outcome)}), but ${expected.why}`;
  if (asked > 1) return `the user was asked ${asked} times`;
  if (expected.asked && asked === 0)
    return `${didRun ? "it ran without asking the user" : "the user was not asked"}, but ${confirmWhy ?? expected.why}`;
  if (!expected.asked && asked > 0)
    return `the user was asked, but ${expected._tag === "Runs" ? (confirmWhy ?? expected.why) : expected.why}`;
  if (expected._tag === "Refused" && outcome._tag !== expected.as)
    return `it ended ${outcome._tag} (${told(outcome)}), but it should be ${expected.as}: ${expected.why}`;
  if (expected._tag === "Runs" && command !== undefined) {
    const ran = runs[0] as RecordedRun;
    if (argumentsKey(command, ran.args) !== expectedKey(command, expected.input))
      return `it ran with ${jsonText(ran.args)}, not with ${jsonText(expected.input)}`;
  }
  const edited = outcome.edited === undefined ? undefined : canonicalJson(outcome.edited);
  const expectedEdit = expected.edited === undefined ? undefined : canonicalJson(expected.edited);
  if (edited !== expectedEdit)
    return expectedEdit === undefined
      ? `the model was told the user changed the arguments to ${jsonText(outcome.edited)}, but they did not`
      : `the model was not told the user changed the arguments to ${jsonText(expected.edited)}`;
  return undefined;
};
