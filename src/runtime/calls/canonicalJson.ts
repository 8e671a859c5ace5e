/**
 * Canonical JSON: object keys sorted by code unit at every depth, no
 * whitespace, `undefined` members left out, as JSON.stringify would. Two values
 * that differ only in key order give the same text, so a digest over it binds
 * a confirmation to the arguments and not to how they were spelled.
 *
 * @example
 * ```ts
 * canonicalJson({ b: [2, 1], a: { d: 1, c: undefined } }); // '{"a":{"d":1},"b":[2,1]}'
 * ```
 */
export const canonicalJson = (value: unknown): string => JSON.stringify(sortKeys(value)) ?? "null";

const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
    return sortKeys((value as { toJSON: () => unknown }).toJSON());
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    Object.defineProperty(out, key, {
      value: sortKeys((value as Record<string, unknown>)[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
};

/**
 * SHA-256 (WebCrypto) of the canonical JSON of `value`, as lowercase hex.
 *
 * @example
 * ```ts
 * const digest = await digestOf({ invoiceId: 42, amount: 100 }); // 64 hex digits
 * (await digestOf({ amount: 100, invoiceId: 42 })) === digest; // true: key order does not count
 * ```
 */
export const digestOf = async (value: unknown): Promise<string> =>
  hexOf(await sha256(canonicalJson(value)));

/**
 * SHA-256 (WebCrypto) of a canonical JSON text already made, as lowercase
 * hex: {@link digestOf} for a caller that keeps the text (to compare a value
 * read again with it, without hashing again).
 *
 * @example
 * ```ts
 * const text = canonicalJson({ b: 1, a: 2 }); // '{"a":2,"b":1}'
 * (await digestOfCanonical(text)) === (await digestOf({ a: 2, b: 1 })); // true
 * ```
 */
export const digestOfCanonical = async (text: string): Promise<string> => hexOf(await sha256(text));

const sha256 = (text: string): Promise<ArrayBuffer> =>
  globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));

const hexOf = (digest: ArrayBuffer): string => {
  let hex = "";
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, "0");
  return hex;
};

/** A JSON copy of `value`, read once; undefined when JSON can't hold it (a BigInt, a cycle, a throwing getter). */
export const jsonCopyOf = (value: unknown): { readonly value: unknown } | undefined => {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
};
