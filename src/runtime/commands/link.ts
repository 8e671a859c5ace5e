/**
 * Links on tool steps: a command's `link` template (`/customers/{id}`,
 * `/invoices/{result.id}`) is checked when the command is defined and filled
 * when a call succeeds.
 */

/** A parsed link template: literal text and placeholders, in order. */
export type LinkTemplate = ReadonlyArray<
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "Argument"; readonly name: string }
  | { readonly _tag: "ResultField"; readonly name: string }
>;

/** A template checked: `Parsed`, or `Invalid` with the problem in a sentence. */
export type ParsedLink =
  | { readonly _tag: "Parsed"; readonly template: LinkTemplate }
  | { readonly _tag: "Invalid"; readonly problem: string };

const PLACEHOLDER = /\{([^{}]*)\}/g;

/**
 * Parses and checks a template against the command's argument names and, when
 * the result is a struct, its field names: `Parsed` with the template, or
 * `Invalid` with the first problem found.
 */
export const parseLink = (
  template: string,
  argumentNames: ReadonlyArray<string>,
  resultFields: ReadonlyArray<string> | "any" | "none",
): ParsedLink => {
  if (!isAppPath(template)) {
    return {
      _tag: "Invalid",
      problem: `link ${JSON.stringify(template)} is not an app path: it must start with a single "/" and hold no spaces or backslashes`,
    };
  }
  const parts: Array<LinkTemplate[number]> = [];
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const name = match[1] ?? "";
    if (match.index > last) parts.push({ _tag: "Text", text: template.slice(last, match.index) });
    last = match.index + match[0].length;
    if (name.startsWith("result.")) {
      const field = name.slice("result.".length);
      const known =
        resultFields === "any"
          ? field.length > 0 && !field.includes(".")
          : resultFields !== "none" && resultFields.includes(field);
      if (!known)
        return {
          _tag: "Invalid",
          problem: `link placeholder {${name}} names no field of the result`,
        };
      parts.push({ _tag: "ResultField", name: field });
    } else {
      if (!argumentNames.includes(name)) {
        return {
          _tag: "Invalid",
          problem: `link placeholder {${name}} is neither an argument nor result.<field>`,
        };
      }
      parts.push({ _tag: "Argument", name });
    }
  }
  const rest = template.slice(last);
  if (
    rest.includes("{") ||
    rest.includes("}") ||
    parts.some((p) => p._tag === "Text" && /[{}]/.test(p.text))
  ) {
    return { _tag: "Invalid", problem: `link ${JSON.stringify(template)} has an unmatched brace` };
  }
  if (rest.length > 0) parts.push({ _tag: "Text", text: rest });
  return { _tag: "Parsed", template: parts };
};

/**
 * Whether `path` is a path inside the app: one leading "/", never "//" or
 * "/\\", no whitespace, backslash or control character. Links on steps are
 * followed only when it holds.
 *
 * @example
 * ```ts
 * isAppPath("/customers/42"); // true
 * isAppPath("//evil.example"); // false
 * isAppPath("javascript:alert(1)"); // false
 * ```
 */
export const isAppPath = (path: string): boolean =>
  path.startsWith("/") && !path.startsWith("//") && !/[\s\\]/.test(path) && !/\p{Cc}/u.test(path);

/**
 * Fills a template from the call's arguments and its (encoded) result. Values
 * are percent-encoded, all but `A-Z a-z 0-9 - . _ ~`. A missing, empty or
 * non-scalar value means no link.
 */
export const fillLink = (
  template: LinkTemplate,
  args: unknown,
  result: unknown,
): string | undefined => {
  let out = "";
  for (const part of template) {
    if (part._tag === "Text") {
      out += part.text;
      continue;
    }
    const value = ownField(part._tag === "Argument" ? args : result, part.name);
    const text = scalarText(value);
    if (text === undefined || !isWellFormed(text)) return undefined;
    out += percentEncode(text);
  }
  return out;
};

const ownField = (record: unknown, name: string): unknown =>
  record !== null && typeof record === "object" && Object.hasOwn(record, name)
    ? (record as Record<string, unknown>)[name]
    : undefined;

const scalarText = (value: unknown): string | undefined => {
  if (typeof value === "string") return value.length > 0 ? value : undefined;
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === "bigint" || typeof value === "boolean") return String(value);
  return undefined;
};

/** A lone surrogate cannot be percent-encoded as UTF-8, so it gives no link. */
const isWellFormed = (text: string): boolean => !/\p{Surrogate}/u.test(text);

/** Percent-encodes every UTF-8 byte but the unreserved `A-Z a-z 0-9 - . _ ~`. */
export const percentEncode = (text: string): string =>
  encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
