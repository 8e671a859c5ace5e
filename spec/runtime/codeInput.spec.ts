/**
 * The reader of a code execution's streamed input (`{"code": "…"}` in
 * `input_json_delta` pieces): the code it tells joins to what `JSON.parse`
 * gives, however the JSON is cut (inside an escape, a `\u` escape, a
 * surrogate pair), whatever escapes it uses; it never splits a surrogate
 * pair between pieces; on what is not an object with a `code` string it goes
 * quiet, never throws, and never tells more than it read.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { codeInputReader } from "../../src/runtime/prompt/codeInput.ts";
import { runs, timeoutFor } from "../properties/runs.ts";

/** What the reader tells for `pieces`, piece by piece. */
const told = (pieces: ReadonlyArray<string>): string[] => {
  const reader = codeInputReader();
  return pieces.map((piece) => reader.read(piece));
};

/** `json` cut at `cuts` (offsets, any order, out of range ones dropped). */
const cut = (json: string, cuts: ReadonlyArray<number>): string[] => {
  const points = [...new Set(cuts)].filter((n) => n > 0 && n < json.length).sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const to of [...points, json.length]) {
    pieces.push(json.slice(from, to));
    from = to;
  }
  return pieces;
};

const hex4 = (unit: number, upper: boolean) => {
  const digits = unit.toString(16).padStart(4, "0");
  return upper ? digits.toUpperCase() : digits;
};

const SHORT: Readonly<Record<string, string>> = {
  '"': '\\"',
  "\\": "\\\\",
  "/": "\\/",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

/**
 * A JSON string literal of `text` as any encoder may write it: each code
 * unit raw (where JSON allows it), as `\uXXXX` (either case), or as its short
 * escape, chosen by `how`.
 */
const literal = (text: string, how: ReadonlyArray<number>): string => {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    const unit = text.charCodeAt(i);
    const choice = how.length === 0 ? 0 : (how[i % how.length] as number) % 3;
    const mustEscape = unit < 0x20 || c === '"' || c === "\\";
    if (choice === 1 || (mustEscape && SHORT[c] === undefined))
      out += `\\u${hex4(unit, i % 2 === 0)}`;
    else if (choice === 2 && SHORT[c] !== undefined) out += SHORT[c];
    else if (mustEscape) out += SHORT[c];
    else out += c;
  }
  return `${out}"`;
};

/** Strings heavy in what needs care: quotes, backslashes, control characters, surrogates, emoji. */
const tricky = fc.string({
  unit: fc.oneof(
    fc.constantFrom('"', "\\", "/", "\n", "\r", "\t", "\b", "\f", "\u0000", "\u001f", "\u2028"),
    fc.constantFrom("😀", "é", "中", "\ud800", "\udfff", "{", "}", ":", ","),
    fc.char(),
    fc.fullUnicode(),
  ),
  maxLength: 40,
});

describe("codeInputReader", () => {
  it("tells the code of the input as it comes, an escape cut between pieces when it is whole", () => {
    expect(told(['{"co', 'de": "print(1)\\', 'n"}'])).toEqual(["", "print(1)", "\n"]);
    expect(told(['{"code":"a\\u00', "e9", "\\u", '0041"}'])).toEqual(["a", "é", "", "A"]);
    // The API's own first piece is empty.
    expect(told(["", '{"code": ""}'])).toEqual(["", ""]);
  });

  it("holds a high surrogate until its pair comes, escaped or raw", () => {
    expect(told(['{"code":"x\\ud83d', '\\ude00y"}'])).toEqual(["x", "😀y"]);
    expect(told(['{"code":"x\ud83d', '\ude00"}'])).toEqual(["x", "😀"]);
    // One that never gets its pair is told alone when the string ends, as JSON.parse keeps it.
    expect(told(['{"code":"\\ud83d', '"}'])).toEqual(["", "\ud83d"]);
  });

  it("steps over other keys and values before the code, and stops at the code's end", () => {
    const json = JSON.stringify({
      lang: "python",
      opts: { a: [1, "}", { code: "no" }] },
      n: -1.5e3,
      ok: true,
      code: "yes",
      after: "x",
    });
    expect(told([json]).join("")).toBe("yes");
    const reader = codeInputReader();
    reader.read(json);
    expect(reader.finished).toBe(true);
    expect(reader.off).toBe(false);
    // A key that only starts like `code` is another key.
    expect(told(['{"codes": "no", "code": "yes"}']).join("")).toBe("yes");
    expect(told(['{"c\\u006fde": "escaped key"}']).join("")).toBe("escaped key");
  });

  it("goes quiet on input that is not an object with a code string, and never throws", () => {
    for (const bad of [
      '["code"]',
      '{"code": 12}',
      '{"code": null}',
      '{"code" "x"}',
      '{"code": "a\\x"}',
      '{"code": "a\\u12g4"}',
      '{"code": "a\nb"}',
      "garbage",
      '{"a": 1 "code": "x"}',
    ]) {
      const reader = codeInputReader();
      const out = reader.read(bad);
      expect(out.length, bad).toBeLessThanOrEqual(1);
      expect(reader.off, bad).toBe(true);
      expect(reader.read('"code": "more"}'), bad).toBe("");
    }
    // An object without code: nothing, and done.
    const none = codeInputReader();
    expect(none.read('{"other": "x"}')).toBe("");
    expect(none.finished).toBe(true);
  });

  it("for any string, JSON.stringify's input cut at every position gives it back", {
    timeout: timeoutFor(),
  }, () => {
    fc.assert(
      fc.property(tricky, (code) => {
        const json = JSON.stringify({ code });
        for (let k = 0; k <= json.length; k++)
          expect(told([json.slice(0, k), json.slice(k)]).join("")).toBe(code);
      }),
      { numRuns: runs(1000) },
    );
  });

  it("for any string written with any escapes, cut anywhere into any pieces, the pieces join to what JSON.parse gives", {
    timeout: timeoutFor(),
  }, () => {
    fc.assert(
      fc.property(
        tricky,
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.array(fc.nat({ max: 2 }), { maxLength: 8 }),
        fc.constantFrom("", " ", "\n  "),
        fc.boolean(),
        (code, cuts, how, space, otherFirst) => {
          const value = literal(code, how);
          const other = `"other"${space}:${space}[1, {"code": "x\\"}"}]`;
          const json = `${space}{${space}${otherFirst ? `${other},${space}` : ""}"code"${space}:${space}${value}${space}}${space}`;
          expect((JSON.parse(json) as { code: string }).code).toBe(code);
          const pieces = told(cut(json, cuts));
          expect(pieces.join("")).toBe(code);
          // No piece ends in a high surrogate whose pair follows: a pair is never split.
          for (const [i, piece] of pieces.entries()) {
            const last = piece.charCodeAt(piece.length - 1);
            const next = pieces.slice(i + 1).find((p) => p !== "");
            if (last >= 0xd800 && last <= 0xdbff && next !== undefined)
              expect(next.charCodeAt(0) >= 0xdc00 && next.charCodeAt(0) <= 0xdfff).toBe(false);
          }
        },
      ),
      { numRuns: runs(1000) },
    );
  });

  it("on arbitrary text it never throws, and tells at most what it read", {
    timeout: timeoutFor(),
  }, () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({
            unit: fc.constantFrom(
              '"',
              "\\",
              "{",
              "}",
              "u",
              "0",
              "c",
              "o",
              "d",
              "e",
              ":",
              ",",
              " ",
              "a",
              "[",
              "]",
            ),
          }),
          { maxLength: 10 },
        ),
        (pieces) => {
          const reader = codeInputReader();
          let read = 0;
          let out = 0;
          for (const piece of pieces) {
            read += piece.length;
            out += reader.read(piece).length;
            expect(out).toBeLessThanOrEqual(read);
          }
        },
      ),
      { numRuns: runs(1000) },
    );
  });
});
