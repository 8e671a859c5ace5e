/**
 * What the docs' specs read of the repository's Markdown: which files are
 * docs, their prose without code (fenced blocks and code spans), their
 * links, and the anchors their headings make as GitHub makes them.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

export const REPO = join(import.meta.dirname, "..", "..");

const SKIPPED = new Set(["node_modules", "dist", ".git", "coverage"]);

/** Every Markdown file of the repository (not node_modules or build output), relative, with `/`. */
export const docFiles = (): ReadonlyArray<string> => {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith(".") || SKIPPED.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".md")) found.push(relative(REPO, path).split(sep).join("/"));
    }
  };
  walk(REPO);
  return found.sort();
};

export const readDoc = (file: string): string => readFileSync(join(REPO, file), "utf8");

/** The text with fenced code blocks blanked (lines kept, so line numbers hold). */
export const withoutFences = (text: string): string => {
  const lines = text.split("\n");
  let fence: string | undefined;
  return lines
    .map((line) => {
      const mark = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === undefined) {
        if (mark !== undefined) {
          fence = mark;
          return "";
        }
        return line;
      }
      if (mark !== undefined && mark[0] === fence[0] && mark.length >= fence.length) {
        if (line.trim() === mark) fence = undefined;
      }
      return "";
    })
    .join("\n");
};

/** A line with its code spans blanked (same length). */
const withoutCodeSpans = (line: string): string =>
  line.replace(/(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g, (span) => " ".repeat(span.length));

/** The prose of a doc: no fenced blocks, no code spans. */
export const prose = (text: string): string =>
  withoutFences(text).split("\n").map(withoutCodeSpans).join("\n");

export interface Link {
  readonly line: number;
  readonly target: string;
}

/** Every link and image of a doc, inline (`[text](target)`), by reference definition, or HTML. */
export const linksOf = (text: string): ReadonlyArray<Link> => {
  const links: Link[] = [];
  prose(text)
    .split("\n")
    .forEach((line, i) => {
      for (const m of line.matchAll(
        /\]\(\s*<?([^()\s<>]*(?:\([^()\s]*\)[^()\s<>]*)*)>?(?:\s+"[^"]*")?\s*\)/g,
      ))
        links.push({ line: i + 1, target: m[1] as string });
      const definition = /^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line);
      if (definition !== null) links.push({ line: i + 1, target: definition[1] as string });
      for (const m of line.matchAll(/<(?:a|img)\s[^>]*?(?:href|src)="([^"]*)"/g))
        links.push({ line: i + 1, target: m[1] as string });
    });
  return links;
};

/** A heading's anchor as GitHub writes it: lower case, punctuation gone, spaces as `-`. */
export const slug = (heading: string): string =>
  heading
    // Links and images show their text; emphasis and code marks show nothing.
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/[`*]/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");

/** The anchors a doc's headings make (a repeated one gets `-1`, `-2`, …), and any `id=`/`name=`. */
export const anchorsOf = (text: string): ReadonlySet<string> => {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFences(text).split("\n")) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const base = slug(heading);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<[a-z]+\s[^>]*?(?:id|name)="([^"]+)"/g))
      anchors.add(m[1] as string);
  }
  return anchors;
};
