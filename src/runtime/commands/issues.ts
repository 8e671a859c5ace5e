import { ParseResult } from "effect";
import { clip as clipTo } from "../clip.ts";

/** One decoding problem: where (`address.zip`, `items[2]`) and what. */
export interface Issue {
  readonly path: string;
  readonly message: string;
}

/** The most issues told; past them, one line says there are more. */
export const MAX_ISSUES = 20;
export const MAX_LINE = 300;

/**
 * How much of an issue's message is read: effect's message quotes the value
 * whole (`Expected number, actual "…820 KiB…"`), and a line tells at most
 * {@link MAX_LINE} characters of it, so the rest is never matched or merged.
 */
const MAX_MESSAGE_READ = 4 * MAX_LINE;

/**
 * The message of a part a capped check left unchecked (see argumentDecoder):
 * nothing after it is told, since what it hides would have come first.
 */
export const NOT_CHECKED = "\u0000not checked";

/**
 * Turns a parse error into issues the model (or a developer) can act on: one
 * per field, the alternatives of a union folded into one, an optional field's
 * "Expected undefined" dropped, at most 20, then `and more problems`, each
 * line at most 300 characters. Linear in the number of issues.
 */
export const issuesOf = (error: ParseResult.ParseError): ReadonlyArray<Issue> => {
  const { issues, capped, cut } = reportOf(error);
  return capped || cut ? [...issues, { path: ROOT, message: "and more problems" }] : issues;
};

/**
 * The issues {@link issuesOf} tells, at most 20; `capped` when a 21st path
 * came before anything unchecked, `cut` when something unchecked came first.
 */
export const reportOf = (
  error: ParseResult.ParseError,
): { readonly issues: ReadonlyArray<Issue>; readonly capped: boolean; readonly cut: boolean } => {
  const all = ParseResult.ArrayFormatter.formatErrorSync(error);
  // How many issues lie at or below each path, each path keyed by its keys in order.
  const below = new Map<string, number>();
  const keys = all.map((issue) => {
    let key = "";
    below.set(key, (below.get(key) ?? 0) + 1);
    for (const part of issue.path) {
      key += typeof part === "number" ? `[${part}]` : `.${JSON.stringify(String(part))}`;
      below.set(key, (below.get(key) ?? 0) + 1);
    }
    return key;
  });
  const byPath = new Map<string, string[]>();
  let capped = false;
  let cut = false;
  for (const [i, issue] of all.entries()) {
    if (issue.message === NOT_CHECKED) {
      cut = !capped;
      break;
    }
    const message =
      issue.message.length > MAX_MESSAGE_READ
        ? issue.message.slice(0, MAX_MESSAGE_READ)
        : issue.message;
    // An optional field is a union with undefined: its "Expected undefined" says nothing when
    // the field's own schema reported something at or below the same path.
    if (UNDEFINED.test(message) && (below.get(keys[i] ?? "") ?? 0) > 1) continue;
    const path = pathText(issue.path);
    const messages = byPath.get(path);
    if (messages !== undefined) messages.push(message);
    else if (byPath.size < MAX_ISSUES) byPath.set(path, [message]);
    else capped = true;
  }
  const issues: Issue[] = [];
  for (const [path, messages] of byPath) {
    // The arguments as a whole: effect describes the struct in full, which helps nobody.
    const whole = path === ROOT && messages.every((m) => EXPECTED.test(m));
    const message = whole
      ? `expected an object, got ${EXPECTED.exec(messages[0] ?? "")?.[2]}`
      : merge(messages);
    issues.push({ path, message: clip(message) });
  }
  return { issues, capped, cut };
};

/** Issues as lines, `path: message`. */
export const issueLines = (issues: ReadonlyArray<Issue>): ReadonlyArray<string> =>
  issues.map((issue) => `${issue.path}: ${issue.message}`);

const ROOT = "arguments";

const UNDEFINED = /^Expected undefined, actual /;

const EXPECTED = /^Expected (.+), actual ([\s\S]+)$/;

const merge = (messages: ReadonlyArray<string>): string => {
  const own = [...new Set(messages.filter((m) => !EXPECTED.test(m)))];
  if (own.length > 0) return own.join("; ");
  const expected: string[] = [];
  let actual = "";
  for (const message of messages) {
    const match = EXPECTED.exec(message);
    if (match === null) continue;
    actual ||= match[2] ?? "";
    if (!expected.includes(match[1] ?? "")) expected.push(match[1] ?? "");
  }
  const wanted = expected.length > 1 ? expected.filter((e) => e !== "undefined") : expected;
  return `expected ${wanted.join(" or ")}, got ${actual}`;
};

const pathText = (path: ReadonlyArray<PropertyKey>): string => {
  let text = "";
  for (const key of path) {
    if (typeof key === "number") text += `[${key}]`;
    else text += text === "" ? String(key) : `.${String(key)}`;
  }
  return text === "" ? ROOT : text;
};

const clip = (text: string): string => clipTo(text, MAX_LINE);
