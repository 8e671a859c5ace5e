import { ParseResult } from "effect";
import { clip as clipTo } from "../clip.ts";

/** One decoding problem: where (`address.zip`, `items[2]`) and what. */
export interface Issue {
  readonly path: string;
  readonly message: string;
}

const MAX_ISSUES = 20;
const MAX_LINE = 300;

/**
 * Turns a parse error into issues the model (or a developer) can act on: one
 * per field, the alternatives of a union folded into one, an optional field's
 * "Expected undefined" dropped, at most 20, each line at most 300 characters.
 */
export const issuesOf = (error: ParseResult.ParseError): ReadonlyArray<Issue> => {
  const all = ParseResult.ArrayFormatter.formatErrorSync(error);
  const byPath = new Map<string, string[]>();
  for (const issue of all) {
    // An optional field is a union with undefined: its "Expected undefined" says nothing when
    // the field's own schema reported something at or below the same path.
    if (
      UNDEFINED.test(issue.message) &&
      all.some((o) => o !== issue && startsWith(o.path, issue.path))
    )
      continue;
    const path = pathText(issue.path);
    const messages = byPath.get(path) ?? [];
    messages.push(issue.message);
    byPath.set(path, messages);
  }
  const out: Issue[] = [];
  for (const [path, messages] of byPath) {
    // The arguments as a whole: effect describes the struct in full, which helps nobody.
    const whole = path === ROOT && messages.every((m) => EXPECTED.test(m));
    const message = whole
      ? `expected an object, got ${EXPECTED.exec(messages[0] ?? "")?.[2]}`
      : merge(messages);
    out.push({ path, message: clip(message) });
  }
  if (out.length <= MAX_ISSUES) return out;
  return [
    ...out.slice(0, MAX_ISSUES),
    { path: ROOT, message: `and ${out.length - MAX_ISSUES} more problems` },
  ];
};

/** Issues as lines, `path: message`. */
export const issueLines = (issues: ReadonlyArray<Issue>): ReadonlyArray<string> =>
  issues.map((issue) => `${issue.path}: ${issue.message}`);

const ROOT = "arguments";

const UNDEFINED = /^Expected undefined, actual /;

const startsWith = (
  path: ReadonlyArray<PropertyKey>,
  prefix: ReadonlyArray<PropertyKey>,
): boolean => path.length >= prefix.length && prefix.every((key, i) => path[i] === key);

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
