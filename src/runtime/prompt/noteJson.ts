/**
 * The JSON of the window note (windowNote.ts), written and measured by hand:
 * the same text as `JSON.stringify` with every `<` written `\u003c`, in one
 * pass over each string, and its UTF-8 length counted without writing it, so
 * the note measures a piece before it writes it and writes only what it keeps.
 */
import { clip } from "../clip.ts";

const HEX = "0123456789abcdef";

/** `\u00XX` for a unit below 0x10000, lower-case as JSON.stringify writes it. */
const unicodeEscape = (c: number): string =>
  `\\u${HEX[(c >> 12) & 15]}${HEX[(c >> 8) & 15]}${HEX[(c >> 4) & 15]}${HEX[c & 15]}`;

/** What each ASCII unit is written as inside a string in the note; "" when as itself. */
const ESCAPED: ReadonlyArray<string> = Array.from({ length: 128 }, (_, c) => {
  switch (c) {
    case 0x08:
      return "\\b";
    case 0x09:
      return "\\t";
    case 0x0a:
      return "\\n";
    case 0x0c:
      return "\\f";
    case 0x0d:
      return "\\r";
    case 0x22:
      return '\\"';
    case 0x5c:
      return "\\\\";
    case 0x3c:
      return "\\u003c";
    default:
      return c < 0x20 ? unicodeEscape(c) : "";
  }
});

/** The UTF-8 bytes each ASCII unit takes inside a string in the note. */
const ASCII_BYTES = Uint8Array.from(ESCAPED, (escaped) => (escaped === "" ? 1 : escaped.length));

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** The units written as themselves, one byte each: printable ASCII but `"`, `\\` and `<`. */
const PLAIN_RUN = /[ !#-;=-[\]-\x7f]*/y;

/**
 * How many units at the start are written as themselves, found by one regex
 * step rather than unit by unit; 0 for a short string, which the loop is quicker on.
 */
const plainStart = (text: string): number => {
  if (text.length < 32) return 0;
  PLAIN_RUN.lastIndex = 0;
  PLAIN_RUN.test(text);
  return PLAIN_RUN.lastIndex;
};

/**
 * A string as the note writes it: `JSON.stringify(text)` (control characters
 * and lone surrogates escaped, pairs kept) with `<` written `\u003c`. Runs of
 * units written as themselves are copied whole.
 */
export const quote = (text: string): string => {
  const length = text.length;
  const plain = plainStart(text);
  if (plain === length) return `"${text}"`;
  let out = '"';
  let from = 0;
  for (let i = plain; i < length; i++) {
    const c = text.charCodeAt(i);
    let escaped: string;
    if (c < 0x80) {
      escaped = ESCAPED[c] as string;
      if (escaped === "") continue;
    } else if (c < 0xd800 || c > 0xdfff) {
      continue;
    } else if (isHigh(c) && isLow(text.charCodeAt(i + 1))) {
      i += 1;
      continue;
    } else {
      escaped = unicodeEscape(c);
    }
    if (i > from) out += text.slice(from, i);
    out += escaped;
    from = i + 1;
  }
  if (from === 0) return `"${text}"`;
  return from < length ? `${out}${text.slice(from)}"` : `${out}"`;
};

/** The UTF-8 bytes of `quote(text)`, counted without writing it. */
export const quotedBytes = (text: string): number => {
  const plain = plainStart(text);
  let n = 2 + plain;
  const length = text.length;
  for (let i = plain; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += ASCII_BYTES[c] as number;
    else if (c < 0x800) n += 2;
    else if (c < 0xd800 || c > 0xdfff) n += 3;
    else if (isHigh(c) && isLow(text.charCodeAt(i + 1))) {
      n += 4;
      i += 1;
    } else n += 6;
  }
  return n;
};

/**
 * The bytes of `quote(text.slice(0, i))` less its quotes, for every `i` up to
 * `text.length`, into `into` (a pair counts at its first unit).
 */
export const quotedPrefixBytes = (text: string, into: Uint32Array): void => {
  let n = 0;
  into[0] = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += ASCII_BYTES[c] as number;
    else if (c < 0x800) n += 2;
    else if (c < 0xd800 || c > 0xdfff) n += 3;
    else if (isHigh(c)) n += isLow(text.charCodeAt(i + 1)) ? 4 : 6;
    else if (!isHigh(text.charCodeAt(i - 1))) n += 6;
    into[i + 1] = n;
  }
};

/** The UTF-8 length of text the note wrote (a lone surrogate, never written, would count 3). */
export const utf8Bytes = (text: string): number => {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (isHigh(c) && isLow(text.charCodeAt(i + 1))) {
      n += 2; // four bytes for two units
      i += 1;
    } else n += 2;
  }
  return n;
};

/** How deep an argument value is read: anything deeper is not shown. */
const MAX_DEPTH = 16;

/** Whether a key is an array index, which an object lists first, in ascending order. */
const isIndex = (key: string): boolean => {
  if (key.length === 0) return false;
  const first = key.charCodeAt(0);
  if (first < 0x30 || first > 0x39) return false;
  if (first === 0x30) return key.length === 1;
  for (let i = 1; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return key.length < 10 || (key.length === 10 && Number(key) < 4_294_967_295);
};

/**
 * The members `"key":value` of an object in the order a fresh object given
 * `keys` in turn lists them: array indices first, ascending, then the rest as
 * given. An ordinary object's keys come in that order already; only an object
 * that lists its own keys (a proxy) can need them sorted.
 */
const inObjectOrder = (keys: ReadonlyArray<string>, members: string[]): string[] => {
  let named = false;
  let last = -1;
  let sorted = true;
  for (const key of keys) {
    if (!isIndex(key)) named = true;
    else if (named || Number(key) < last) sorted = false;
    else last = Number(key);
  }
  if (sorted) return members;
  const order = keys.map((_, i) => i);
  const index = (i: number) => (isIndex(keys[i] as string) ? Number(keys[i]) : -1);
  order.sort((a, b) => {
    const [x, y] = [index(a), index(b)];
    if (x >= 0 && y >= 0) return x - y;
    if (x >= 0 || y >= 0) return x >= 0 ? -1 : 1;
    return a - b;
  });
  return order.map((i) => members[i] as string);
};

/**
 * An argument value as the note writes it: strings cut at `cut` characters at
 * any depth; undefined when anything in it is not plain JSON (a cycle, too
 * deep, a bigint, `NaN`, a class instance, a hole). Reads the value once, in
 * the order a copy of it would, and writes what JSON.stringify writes of the copy.
 */
export const argumentJson = (value: unknown, cut: number, depth = 0): string | undefined => {
  if (depth > MAX_DEPTH) return undefined;
  switch (typeof value) {
    case "string":
      return quote(clip(value, cut));
    case "number":
      return Number.isFinite(value) ? `${value}` : undefined;
    case "boolean":
      return value ? "true" : "false";
    case "object": {
      if (value === null) return "null";
      if (Array.isArray(value)) {
        let out = "";
        for (const item of value) {
          const shown = argumentJson(item, cut, depth + 1);
          if (shown === undefined) return undefined;
          out = out === "" ? shown : `${out},${shown}`;
        }
        return `[${out}]`;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return undefined;
      const keys = Object.keys(value);
      const members: string[] = [];
      for (const key of keys) {
        const shown = argumentJson((value as Record<string, unknown>)[key], cut, depth + 1);
        if (shown === undefined) return undefined;
        members.push(`${quote(key)}:${shown}`);
      }
      return `{${inObjectOrder(keys, members).join(",")}}`;
    }
    default:
      return undefined;
  }
};
