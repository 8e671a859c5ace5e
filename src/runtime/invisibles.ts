/**
 * Characters that change how text reads without being seen: bidirectional
 * embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), the
 * marks (U+200E, U+200F, U+061C), zero-width characters (U+200B–U+200D,
 * U+2060–U+2064, U+FEFF) and the other C0/C1 controls but tab. A label can
 * be made to read "Delete invoice 12" while it holds something else; what a
 * person confirms is shown without them, and arguments show them visibly.
 */
const INVISIBLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the controls are what it finds.
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/gu;

/**
 * The text without its invisible characters: for a sentence a person reads
 * and confirms.
 *
 * @example
 * ```ts
 * withoutInvisibles("Delete \u202Eexe.txt"); // "Delete exe.txt"
 * ```
 */
export const withoutInvisibles = (text: string): string => text.replace(INVISIBLE, "");

/**
 * The text with each invisible character written out as `⟦U+XXXX⟧`: for
 * arguments, shown as they are, so nothing in them hides.
 *
 * @example
 * ```ts
 * invisiblesShown("report\u202Efdp.exe"); // "report⟦U+202E⟧fdp.exe"
 * ```
 */
export const invisiblesShown = (text: string): string =>
  text.replace(
    INVISIBLE,
    (c) => `⟦U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}⟧`,
  );

/** Whether the text holds any invisible character. */
export const hasInvisibles = (text: string): boolean => {
  INVISIBLE.lastIndex = 0;
  const found = INVISIBLE.test(text);
  INVISIBLE.lastIndex = 0;
  return found;
};
