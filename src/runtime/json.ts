/**
 * JSON at the edges of the host: how deep a value read from a wire may nest,
 * and whether a value can be written as JSON at all. Everything the host reads
 * is checked for depth before it is decoded, so no decoder, formatter or
 * digest recurses without bound; everything it tells is written here first, so
 * a value JSON can't hold is a sentence, not a throw after the work was done.
 */
import { clip } from "./clip.ts";
import { thrownMessage } from "./thrown.ts";

/**
 * The deepest nesting of arrays and objects the host reads: 64 levels, the
 * outermost counted (`{}` is 1 level, `{"a":[]}` 2). Bodies of the routes and
 * the proxy, and the arguments of every tool call, deeper than this are
 * refused before they are decoded.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/**
 * Whether JSON `text` nests arrays and objects deeper than `max` levels, read
 * in one pass without parsing it: brackets inside strings are text. Text that
 * is not JSON may be answered either way; the parser refuses it after.
 */
export const textNestedDeeper = (text: string, max: number = MAX_JSON_DEPTH): boolean => {
  let depth = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      at = stringEnd(text, at);
      if (at < 0) return false;
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      depth += 1;
      if (depth > max) return true;
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) {
      depth -= 1;
    }
  }
  return false;
};

/** Where the string opened at `start` ends (its closing quote), or -1 when it never does. */
const stringEnd = (text: string, start: number): number => {
  for (let from = start + 1; ; ) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    // A quote after an odd run of backslashes is escaped; each run is counted once.
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes += 1;
    if (slashes % 2 === 0) return quote;
    from = quote + 1;
  }
};

/**
 * Whether `value` nests arrays and objects (own enumerable properties) deeper
 * than `max` levels. Iterative, so no depth overflows it, and a cycle is
 * deeper than any `max`. A tree (all JSON gives) is walked once; a value that
 * takes more than {@link TREE_WALK} objects to walk, as one whose objects are
 * shared by many parents can, is walked again remembering each object, so no
 * value costs more than `max` times its size.
 */
export const valueNestedDeeper = (value: unknown, max: number = MAX_JSON_DEPTH): boolean =>
  walkDeeper(value, max, undefined) ?? walkDeeper(value, max, new Map()) ?? true;

/** Objects walked without remembering them, before the walk starts over remembering each. */
const TREE_WALK = 2 ** 21;

/** The walk; `undefined` when, not remembering objects, it gave up after {@link TREE_WALK} of them. */
const walkDeeper = (
  value: unknown,
  max: number,
  deepest: Map<object, number> | undefined,
): boolean | undefined => {
  const items: unknown[] = [value];
  const depths: number[] = [1];
  let budget = TREE_WALK;
  while (items.length > 0) {
    const item = items.pop();
    const depth = depths.pop() ?? 1;
    if (typeof item !== "object" || item === null) continue;
    if (depth > max) return true;
    if (deepest === undefined) {
      budget -= 1;
      if (budget < 0) return undefined;
    } else {
      // Remembering: an object is walked again only when reached deeper than before.
      if ((deepest.get(item) ?? 0) >= depth) continue;
      deepest.set(item, depth);
    }
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (typeof child !== "object" || child === null) continue;
      items.push(child);
      depths.push(depth + 1);
    }
  }
  return false;
};

/** A value as JSON text, or why it can't be: a sentence naming where (`result.rowid is a BigInt (7n)`). */
export type JsonText =
  | { readonly _tag: "Json"; readonly text: string }
  | { readonly _tag: "NotJson"; readonly problem: string };

/**
 * Writes `value` as JSON (`undefined` as `null`), or names what JSON can't
 * hold in it: a BigInt, a cycle, a `toJSON` that throws, nesting too deep for
 * `JSON.stringify`. `name` names the value itself in the sentence.
 */
export const jsonTextOf = (value: unknown, name = "result"): JsonText => {
  try {
    return { _tag: "Json", text: JSON.stringify(value) ?? "null" };
  } catch (error) {
    return { _tag: "NotJson", problem: problemIn(value, name, error) };
  }
};

/** A path in a sentence (a cycle can be found thousands of levels down), and any other text in it. */
const MAX_PATH = 200;
const MAX_TEXT = 200;

/** Where `JSON.stringify` failed, found by walking `value` as it does; only run once it has thrown. */
const problemIn = (value: unknown, name: string, thrown: unknown): string => {
  // `converted`: the value a toJSON returned, written as it is (JSON.stringify calls toJSON once).
  type Frame = {
    readonly value: unknown;
    readonly path: string;
    readonly converted?: true;
    readonly exit?: object;
  };
  const ancestors = new Map<object, string>();
  const pending: Frame[] = [{ value, path: name }];
  for (let frame = pending.pop(); frame !== undefined; frame = pending.pop()) {
    if (frame.exit !== undefined) {
      ancestors.delete(frame.exit);
      continue;
    }
    let item = frame.value;
    if (typeof item === "bigint")
      return `${clip(frame.path, MAX_PATH)} is a BigInt (${clip(`${item}n`, MAX_TEXT)})`;
    if (typeof item !== "object" || item === null) continue;
    if (frame.converted === undefined && "toJSON" in item && typeof item.toJSON === "function") {
      try {
        item = item.toJSON();
      } catch (error) {
        return `${clip(frame.path, MAX_PATH)}: its toJSON threw: ${clip(messageOf(error), MAX_TEXT)}`;
      }
      pending.push({ value: item, path: frame.path, converted: true });
      continue;
    }
    const seenAt = ancestors.get(item);
    if (seenAt !== undefined)
      return `${clip(frame.path, MAX_PATH)} refers back to ${clip(seenAt, MAX_PATH)} (a cycle)`;
    ancestors.set(item, frame.path);
    pending.push({ value: undefined, path: frame.path, exit: item });
    const path = frame.path;
    const children: Frame[] = Array.isArray(item)
      ? item.map((child: unknown, i) => ({ value: child, path: `${path}[${i}]` }))
      : Object.entries(item).map(([key, child]) => ({ value: child, path: `${path}.${key}` }));
    for (const child of children.reverse()) pending.push(child);
  }
  if (thrown instanceof RangeError) return `${name} is nested too deeply`;
  return `${name}: ${clip(messageOf(thrown), MAX_TEXT)}`;
};

const messageOf = (error: unknown): string => {
  const message = thrownMessage(error);
  if (message !== undefined) return message;
  try {
    return String(error);
  } catch {
    return "something that cannot be read";
  }
};
