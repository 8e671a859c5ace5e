/**
 * The library's estimate of tokens, where it must size a request before
 * sending it (whether tool definitions are worth deferring) and where the
 * stand-in Messages API and the benches count what a request holds. The API
 * does not publish its tokenizer, so every count here is this one estimate,
 * the same in every variant measured: what the API bills is the `usage` it
 * answers with.
 */

/** UTF-8 bytes a token stands for in the estimate. */
export const BYTES_PER_TOKEN = 4;

const encoder = new TextEncoder();

/**
 * The estimated tokens of a text: its UTF-8 bytes over four, rounded up
 * (about a word of English, or a few characters of JSON, a token).
 *
 * @example
 * ```ts
 * estimateTokens("Show one customer by id."); // 6
 * ```
 */
export const estimateTokens = (text: string): number =>
  text === "" ? 0 : Math.ceil(utf8Length(text) / BYTES_PER_TOKEN);

/**
 * The estimated tokens of a value as the API is sent it: its JSON.
 *
 * @example
 * ```ts
 * estimateJsonTokens({ name: "customers_show", description: "Show one customer by id." });
 * ```
 */
export const estimateJsonTokens = (value: unknown): number =>
  estimateTokens(JSON.stringify(value) ?? "");

/** A text's UTF-8 length, without allocating for ASCII. */
const utf8Length = (text: string): number => {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return encoder.encode(text).length;
  }
  return text.length;
};
