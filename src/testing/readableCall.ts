/**
 * A scenario of `checkCallPath` as a person reads it: who called what, with
 * which arguments, what they answered, and what went wrong.
 */
import { clip } from "../runtime/clip.ts";
import type { Answer, Scenario, Step } from "./callScenario.ts";

const MAX_ARGS_TEXT = 300;

/** A value as compact JSON (or as JavaScript shows it, when JSON can't). */
export const jsonText = (value: unknown): string => {
  try {
    const text = JSON.stringify(value);
    return clip(text === undefined ? String(value) : text, MAX_ARGS_TEXT);
  } catch {
    return clip(String(value), MAX_ARGS_TEXT);
  }
};

const ordinal = (n: number): string => {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${["th", "st", "nd", "rd"][n % 10] ?? "th"}`;
};

/** What the user answered, as a clause. */
const answerText = (answer: Answer): string => {
  if (typeof answer === "string") return answer === "timedOut" ? "did not answer" : answer;
  return answer.to === undefined
    ? `accepted with ${answer.edit} left out`
    : `accepted with ${answer.edit} changed to ${jsonText(answer.to)}`;
};

/** Where a step came from: `(assistant)`, `(MCP, window w2, from code)`. */
const whereText = (step: Step, withWindow: boolean): string => {
  const parts = [step.origin === "assistant" ? "assistant" : "MCP"];
  if (withWindow) parts.push(`window ${step.scope}`);
  if (step.call.caller?.type === "code") parts.push("from code");
  return `(${parts.join(", ")})`;
};

/** One step: `(assistant) called customers_show({"id":1}) 3 times, and when asked the user declined`. */
const stepText = (step: Step, asked: boolean, withWindow: boolean): string => {
  const times = step.times > 1 ? ` ${step.times} times` : "";
  const answer = asked ? `, and when asked the user ${answerText(step.answer)}` : "";
  return `${whereText(step, withWindow)} called ${step.call.tool}(${jsonText(step.call.input)})${times}${answer}`;
};

/** Where the failure is: the step, which call of its burst, and whether each step's user was asked. */
export interface FailedAt {
  readonly step: number;
  readonly call: number;
  readonly asked: ReadonlyArray<boolean>;
  readonly problem: string;
}

/**
 * The scenario up to its failing call, as a person reads it. One call is one
 * line: `user {abilities: ["customers.view"]} (assistant) called
 * customers_destroy({"id":1}): it ran, but the user lacks customers.destroy`.
 */
export const readableScenario = (scenario: Scenario<unknown>, at: FailedAt): string => {
  const who = `user {abilities: ${jsonText(scenario.user.abilities)}}`;
  const steps = scenario.steps.slice(0, at.step + 1);
  const failing = steps[at.step] as Step;
  const burst = failing.times > 1 ? `; the ${ordinal(at.call)} call` : "";
  if (steps.length === 1) {
    return `${who} ${stepText(failing, at.asked[0] ?? false, false)}${burst}: ${at.problem}`;
  }
  const lines = steps.map((step, i) => {
    const later = i > 0 && step.laterMs > 0 ? `${step.laterMs / 1000} s later, ` : "";
    const end = i === at.step ? `${burst}: ${at.problem}` : "";
    return `  ${i + 1}. ${later}${stepText(step, at.asked[i] ?? false, true)}${end}`;
  });
  return [`${who}:`, ...lines].join("\n");
};
