/**
 * The code of a code execution as it streams. Its input, `{"code": "…"}`,
 * comes as `input_json_delta` pieces cut anywhere (inside an escape, between
 * the halves of a surrogate pair); this reads them one after another and
 * tells the characters of the `code` string as they are decoded. It reads one
 * shape, an object with a `code` string, not any JSON: what is told is for
 * display, and the block's input is still parsed whole by `JSON.parse` when
 * the block stops (decision (n)).
 */

/** Where the reader is in `{ "key": value, … }`. */
type At =
  | "start"
  | "beforeKey"
  | "key"
  | "afterKey"
  | "beforeValue"
  | "code"
  | "skipString"
  | "skipOther"
  | "afterValue"
  /** The code string ended: nothing more is told. */
  | "done"
  /** Not the JSON of an object with a `code` string: nothing more is told. */
  | "off";

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

const isSpace = (c: string) => c === " " || c === "\n" || c === "\r" || c === "\t";
const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;

/**
 * Reads the growing JSON text of a code execution's input and gives, piece
 * by piece, the code decoded so far. Its state is a few fields whatever the
 * input's size (the key being read is kept up to 5 characters, an escape up
 * to 4 hex digits, and one high surrogate waiting for its pair); it never
 * throws: input that is not an object with a `code` string turns it off, and
 * it tells nothing more.
 *
 * The pieces told join to the code of the first `code` key, as `JSON.parse`
 * gives it when that key is the only one. A surrogate pair is never split
 * between two pieces.
 *
 * @example
 * ```ts
 * const code = codeInputReader();
 * code.read('{"co'); // ""
 * code.read('de": "print(1)\\'); // "print(1)"
 * code.read('n"}'); // "\n"
 * ```
 */
export class CodeInputReader {
  #at: At = "start";
  /** The key being read (up to 5 characters: enough to tell `code` from any other). */
  #key = "";
  #keyTooLong = false;
  /** Inside a string: a backslash was read, and the hex digits of a `\u` escape so far. */
  #escape = false;
  #hex: string | undefined;
  /** A high surrogate decoded and not yet told: it goes with the next character. */
  #high = "";
  /** Brackets open inside a value that is skipped. */
  #depth = 0;

  /** Whether the reader stopped reading: the code ended, or the input is not what it reads. */
  get finished(): boolean {
    return this.#at === "done" || this.#at === "off";
  }

  /** Whether the input turned out not to be an object with a `code` string. */
  get off(): boolean {
    return this.#at === "off";
  }

  /** Reads one more piece of the input's JSON text; gives the code it decoded (often `""`). */
  read(piece: string): string {
    let out = "";
    let i = 0;
    const n = piece.length;
    while (i < n && !this.finished) {
      if (this.#at === "code") {
        // The fast path: a run of plain characters is taken whole.
        if (!this.#escape && this.#hex === undefined) {
          let j = i;
          for (; j < n; j++) {
            const unit = piece.charCodeAt(j);
            if (unit === 0x22 || unit === 0x5c || unit < 0x20) break;
          }
          if (j > i) {
            out += this.#unit(piece.slice(i, j));
            i = j;
            continue;
          }
        }
        const decoded = this.#stringChar(piece[i] as string);
        if (decoded === undefined) {
          // The code string ended: a high surrogate still waiting is told alone, as JSON.parse keeps it.
          out += this.#high;
          this.#high = "";
          this.#at = "done";
        } else out += decoded === "" ? "" : this.#unit(decoded);
        i++;
        continue;
      }
      this.#structure(piece[i] as string);
      i++;
    }
    return out;
  }

  /** One character outside the code string. */
  #structure(c: string): void {
    switch (this.#at) {
      case "start":
        if (c === "{") this.#at = "beforeKey";
        else if (!isSpace(c)) this.#at = "off";
        return;
      case "beforeKey":
        if (c === '"') {
          this.#at = "key";
          this.#key = "";
          this.#keyTooLong = false;
        } else if (c === "}") this.#at = "done";
        else if (!isSpace(c)) this.#at = "off";
        return;
      case "key": {
        const decoded = this.#stringChar(c);
        if (decoded === undefined) this.#at = "afterKey";
        else if (this.#key.length + decoded.length > 5) this.#keyTooLong = true;
        else this.#key += decoded;
        return;
      }
      case "afterKey":
        if (c === ":") this.#at = "beforeValue";
        else if (!isSpace(c)) this.#at = "off";
        return;
      case "beforeValue":
        if (isSpace(c)) return;
        if (c === '"') this.#at = this.#key === "code" && !this.#keyTooLong ? "code" : "skipString";
        else if (this.#key === "code" && !this.#keyTooLong) this.#at = "off";
        else if (c === "{" || c === "[") {
          this.#depth = 1;
          this.#at = "skipOther";
        } else if (c === "," || c === "}" || c === ":" || c === "]") this.#at = "off";
        else {
          this.#depth = 0;
          this.#at = "skipOther";
        }
        return;
      case "skipString":
        if (this.#stringChar(c) === undefined)
          this.#at = this.#depth > 0 ? "skipOther" : "afterValue";
        return;
      case "skipOther":
        this.#skip(c);
        return;
      case "afterValue":
        if (c === ",") this.#at = "beforeKey";
        else if (c === "}") this.#at = "done";
        else if (!isSpace(c)) this.#at = "off";
        return;
      default:
        return;
    }
  }

  /** One character of a value that is not the code: nested brackets and strings are stepped over. */
  #skip(c: string): void {
    if (c === '"') {
      if (this.#depth === 0) this.#at = "off";
      else this.#at = "skipString";
    } else if (c === "{" || c === "[") {
      if (this.#depth === 0) this.#at = "off";
      else this.#depth++;
    } else if (c === "}" || c === "]") {
      if (this.#depth > 0) {
        this.#depth--;
        if (this.#depth === 0) this.#at = "afterValue";
      } else if (c === "}") this.#at = "done";
      else this.#at = "off";
    } else if (c === "," && this.#depth === 0) this.#at = "beforeKey";
  }

  /**
   * One character inside a string: what it decodes to (`""` while an escape
   * is not whole), or `undefined` at the closing quote. A character JSON does
   * not allow turns the reader off.
   */
  #stringChar(c: string): string | undefined {
    if (this.#hex !== undefined) {
      if (!/^[0-9a-fA-F]$/.test(c)) {
        this.#at = "off";
        return "";
      }
      this.#hex += c;
      if (this.#hex.length < 4) return "";
      const unit = String.fromCharCode(Number.parseInt(this.#hex, 16));
      this.#hex = undefined;
      return unit;
    }
    if (this.#escape) {
      this.#escape = false;
      if (c === "u") {
        this.#hex = "";
        return "";
      }
      const short = SHORT_ESCAPES[c];
      if (short === undefined) this.#at = "off";
      return short ?? "";
    }
    if (c === '"') return undefined;
    if (c === "\\") {
      this.#escape = true;
      return "";
    }
    if (c.charCodeAt(0) < 0x20) {
      this.#at = "off";
      return "";
    }
    return c;
  }

  /** Decoded code units, told with a high surrogate held back until its pair comes. */
  #unit(decoded: string): string {
    let text = this.#high + decoded;
    this.#high = "";
    if (isHighSurrogate(text.charCodeAt(text.length - 1))) {
      this.#high = text.slice(-1);
      text = text.slice(0, -1);
    }
    return text;
  }
}

/** A reader of one code execution's streamed input. */
export const codeInputReader = (): CodeInputReader => new CodeInputReader();
