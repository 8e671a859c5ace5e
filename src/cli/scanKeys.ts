/**
 * `scan-keys <dir|file…>`: finds API keys and the SDK's browser opt-in
 * (`dangerously` + `AllowBrowser`, written apart here) in a bundle (K1, K2). A key is reported by its first 10 characters and its
 * length, never whole: the report itself may end up in a CI log.
 */
import { lstat, readdir, readFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import type { CliIo } from "./cliCommand.ts";

/** What a finding is. */
export type FindingKind = "anthropic-key" | "openai-key" | "allow-browser";

/** One match in a text: where it starts (a character index), how long it is, its first 10 characters. */
export interface Finding {
  readonly kind: FindingKind;
  readonly index: number;
  readonly length: number;
  /** The first 10 characters: `sk-ant-api` says which kind of key without giving any of it away. */
  readonly start: string;
}

/** How many characters of a match are printed. */
export const SHOWN = 10;

// Spelled in two parts so that scanning this package's own sources finds nothing.
const ALLOW_BROWSER = ["dangerously", "AllowBrowser"].join("");
// A key is a run of these characters; a match must not continue a longer run.
const KEY = "A-Za-z0-9_-";
// A key may follow a JSON string escape (`\n`, `\t`) in a source map's `sourcesContent`.
const BEFORE = `(?:(?<![${KEY}])|(?<=\\\\[nrtfbv]))`;
/*
 * Minimum lengths, from the real formats: Anthropic keys are `sk-ant-api03-`
 * or `sk-ant-admin01-` and ~95 more, 108 in all; OpenAI project and service
 * account keys run to 160+, legacy ones are `sk-` + 20 + `T3BlbkFJ` + 20.
 * 40 characters after the prefix catches a key cut short, not a word.
 */
const PATTERNS: ReadonlyArray<readonly [FindingKind, RegExp]> = [
  ["anthropic-key", new RegExp(`${BEFORE}sk-ant-[${KEY}]{40,}`, "g")],
  ["openai-key", new RegExp(`${BEFORE}sk-(?:proj|svcacct)-[${KEY}]{40,}`, "g")],
  ["openai-key", new RegExp(`${BEFORE}sk-[${KEY}]{8,}T3BlbkFJ[${KEY}]{8,}`, "g")],
  ["allow-browser", new RegExp(ALLOW_BROWSER, "g")],
];

/** Random key material mixes cases and digits; a long kebab-case name does not. */
const looksRandom = (body: string): boolean =>
  /[A-Z]/.test(body) && /[a-z]/.test(body) && /[0-9]/.test(body);

/** The real formats' own prefixes: what follows them is a key however it looks. */
const KNOWN = /^sk-ant-(?:api|admin)\d\d-/;
const BODY_AFTER = /^sk-(?:ant-|proj-|svcacct-)?/;

const isKey = (value: string): boolean =>
  KNOWN.test(value) || looksRandom(value.replace(BODY_AFTER, ""));

/**
 * Finds keys and the browser opt-in in a text, in order of where they
 * start. A match overlapping an earlier one (an `sk-proj-…` key also has
 * `T3BlbkFJ` in it) is one finding.
 *
 * @example
 * ```ts
 * scanText(`const key = "sk-ant-api03-${"x".repeat(95)}"`)[0]?.length; // 108
 * ```
 */
export const scanText = (text: string): Finding[] => {
  const found: Finding[] = [];
  for (const [kind, pattern] of PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      const value = match[0];
      if (kind !== "allow-browser" && !isKey(value)) continue;
      found.push({ kind, index: match.index, length: value.length, start: value.slice(0, SHOWN) });
    }
  }
  found.sort((a, b) => a.index - b.index || b.length - a.length);
  const kept: Finding[] = [];
  for (const finding of found) {
    const last = kept[kept.length - 1];
    if (last !== undefined && finding.index < last.index + last.length) continue;
    kept.push(finding);
  }
  return kept;
};

const INLINE_MAP = /sourceMappingURL=data:application\/json[^,\s]*;base64,([A-Za-z0-9+/=]+)/g;

/** A finding placed in a file: its line and column (text), or its byte offset (binary). */
export interface FileFinding extends Finding {
  readonly file: string;
  readonly line?: number;
  readonly column?: number;
  readonly byteOffset?: number;
  /** Found inside the base64 of an inline source map at this place. */
  readonly inInlineSourceMap?: boolean;
}

const isBinary = (bytes: Uint8Array): boolean => bytes.subarray(0, 8192).includes(0);

/**
 * Scans one file's bytes. Text is read as UTF-8 and placed by line and
 * column; binary (a NUL in the first 8 KiB) is read byte for byte (latin1)
 * and placed by byte offset. Inline base64 source maps are decoded and
 * scanned too.
 */
export const scanBytes = (file: string, bytes: Uint8Array): FileFinding[] => {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isBinary(bytes)) {
    return scanText(buffer.toString("latin1")).map((f) => ({ ...f, file, byteOffset: f.index }));
  }
  const text = buffer.toString("utf8");
  const place = placer(text);
  const findings: FileFinding[] = scanText(text).map((f) => ({ ...f, file, ...place(f.index) }));
  for (const match of text.matchAll(INLINE_MAP)) {
    const decoded = Buffer.from(match[1] as string, "base64").toString("utf8");
    for (const f of scanText(decoded)) {
      findings.push({ ...f, file, ...place(match.index), inInlineSourceMap: true });
    }
  }
  return findings;
};

const placer = (text: string) => {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return (index: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= index) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: index - (starts[lo] as number) + 1 };
  };
};

const LABELS: Record<FindingKind, string> = {
  "anthropic-key": "Anthropic key",
  "openai-key": "OpenAI key",
  "allow-browser": ALLOW_BROWSER,
};

/** One line per finding: where, what, and for a key only its start and length. */
export const formatFinding = (f: FileFinding): string => {
  const where =
    f.byteOffset !== undefined
      ? `${f.file} (byte ${f.byteOffset})`
      : `${f.file}:${f.line}:${f.column}`;
  const what =
    f.kind === "allow-browser"
      ? LABELS[f.kind]
      : `${LABELS[f.kind]} ${f.start}… (${f.length} characters)`;
  return `${where}  ${what}${f.inInlineSourceMap === true ? " in an inline source map" : ""}`;
};

const SKIPPED = new Set(["node_modules", ".git"]);

/** Every file under `path`; `node_modules` and `.git` are skipped unless `path` is one. Symlinks are not followed. */
const filesUnder = async (path: string): Promise<string[]> => {
  const stat = await lstat(path);
  if (stat.isFile()) return [path];
  if (!stat.isDirectory()) return [];
  const files: string[] = [];
  const entries = await readdir(path, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.isDirectory() && SKIPPED.has(entry.name)) continue;
    if (entry.isDirectory() || entry.isFile())
      files.push(...(await filesUnder(join(path, entry.name))));
  }
  return files;
};

const USAGE = "usage: elyra-assistant scan-keys <dir|file…>\n";

/**
 * The `scan-keys` subcommand: 0 when nothing is found, 1 when anything is,
 * 2 on a usage error (no path, an unknown option, a path that does not exist).
 */
export const scanKeysCommand = async (args: string[], io: CliIo): Promise<number> => {
  const unknown = args.find((arg) => arg.startsWith("-"));
  if (args.length === 0 || unknown !== undefined) {
    io.stderr(unknown !== undefined ? `unknown option ${unknown}\n${USAGE}` : USAGE);
    return 2;
  }
  const files: string[] = [];
  for (const arg of args) {
    try {
      files.push(...(await filesUnder(resolve(io.cwd, arg))));
    } catch {
      io.stderr(`no such file or directory: ${arg}\n${USAGE}`);
      return 2;
    }
  }
  let count = 0;
  let unreadable = 0;
  for (const file of files) {
    let bytes: Uint8Array;
    try {
      bytes = await readFile(file);
    } catch (error) {
      unreadable += 1;
      io.stderr(`cannot read ${relative(io.cwd, file)}: ${(error as Error).message}\n`);
      continue;
    }
    for (const finding of scanBytes(relative(io.cwd, file) || file, bytes)) {
      count += 1;
      io.stdout(`${formatFinding(finding)}\n`);
    }
  }
  const scanned = `${files.length - unreadable} ${files.length - unreadable === 1 ? "file" : "files"}`;
  io.stdout(
    count === 0
      ? `No keys and no ${ALLOW_BROWSER} in ${scanned}.\n`
      : `${count} ${count === 1 ? "finding" : "findings"} in ${scanned}.\n`,
  );
  return count === 0 ? 0 : 1;
};
