/**
 * The cost of telling what is wrong with arguments (issue 29, item 7): a
 * refusal holds no more issues than it tells, however many properties are
 * unexpected, and no message is read past what a line can show, however
 * large the value it quotes. The work is counted (issues held, characters
 * matched), never timed.
 */
import { Either, ParseResult, Schema } from "effect";
import { defineCommand } from "elyra-assistant";
import { afterEach, describe, expect, it, vi } from "vitest";
import { issueLines, issuesOf, MAX_LINE } from "../../src/runtime/commands/issues.ts";

const show = defineCommand({
  name: "customers_show",
  description: "Show one customer.",
  args: { id: Schema.Number, note: Schema.optional(Schema.String) },
  run: () => null,
});

/** `{ id, k0: 0, k1: 0, … }`: `n` unexpected properties. */
const unexpected = (n: number, id: unknown = 1) => {
  const input: Record<string, unknown> = { id };
  for (let i = 0; i < n; i++) input[`k${i}`] = 0;
  return input;
};

const refusalOf = (input: unknown) => {
  const decoded = show.decode(input);
  if (Either.isRight(decoded)) throw new Error("expected a refusal");
  return decoded.left;
};

afterEach(() => vi.restoreAllMocks());

describe("unexpected properties: the refusal holds what it tells, not one issue each", () => {
  it("50 000 of them hold no more issues than 200, and tell the same", () => {
    const many = refusalOf(unexpected(50_000));
    const few = refusalOf(unexpected(200));
    const held = ParseResult.ArrayFormatter.formatErrorSync(many).length;
    expect(held).toBeLessThanOrEqual(2 * 21);
    expect(held).toBe(ParseResult.ArrayFormatter.formatErrorSync(few).length);
    const lines = issueLines(issuesOf(many));
    expect(lines).toEqual(issueLines(issuesOf(few)));
    expect(lines).toHaveLength(21);
    expect(lines[0]).toBe('k0: is unexpected, expected: "id" | "note"');
    expect(lines[20]).toBe("arguments: and more problems");
  });

  it("a few are each told, with what else is wrong, as effect's own check tells them", () => {
    const input = { ...unexpected(3, "x"), note: 5 };
    const full = Schema.decodeUnknownEither(show.args, {
      errors: "all",
      onExcessProperty: "error",
    });
    const reference = full(input);
    if (Either.isRight(reference)) throw new Error("expected a refusal");
    expect(issueLines(issuesOf(refusalOf(input)))).toEqual(issueLines(issuesOf(reference.left)));
    expect(issueLines(issuesOf(refusalOf(input)))).toEqual([
      'k0: is unexpected, expected: "id" | "note"',
      'k1: is unexpected, expected: "id" | "note"',
      'k2: is unexpected, expected: "id" | "note"',
      'id: expected number, got "x"',
      "note: expected string, got 5",
    ]);
  });
});

describe("a message quoting a large value is read no further than a line shows", () => {
  it("no pattern is matched against more than a few lines' worth of a 1 MiB value's message", () => {
    const refusal = refusalOf({ id: "x".repeat(1024 * 1024) });
    const longest = { chars: 0 };
    const note = (text: unknown) => {
      if (typeof text === "string") longest.chars = Math.max(longest.chars, text.length);
    };
    const test = RegExp.prototype.test;
    const exec = RegExp.prototype.exec;
    vi.spyOn(RegExp.prototype, "test").mockImplementation(function (this: RegExp, text: string) {
      note(text);
      return test.call(this, text);
    });
    vi.spyOn(RegExp.prototype, "exec").mockImplementation(function (this: RegExp, text: string) {
      note(text);
      return exec.call(this, text);
    });
    const lines = issueLines(issuesOf(refusal));
    vi.restoreAllMocks();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^id: expected number, got "x{100,}…$/);
    expect(lines[0]?.length).toBeLessThanOrEqual(MAX_LINE + 4);
    expect(longest.chars).toBeGreaterThan(0);
    expect(longest.chars).toBeLessThanOrEqual(4 * MAX_LINE);
  });
});
