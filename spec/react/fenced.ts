/** The fenced code blocks of one language in a Markdown file of the repository, each without its fences. */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const REPO = join(import.meta.dirname, "..", "..");

export const fencedBlocks = (markdown: string, lang: string): string[] => {
  const text = readFileSync(join(REPO, markdown), "utf8");
  return [...text.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map(
    (m) => m[1] ?? "",
  );
};

/** A file of the repository, as the docs should quote it. */
export const repoFile = (path: string): string => readFileSync(join(REPO, path), "utf8");
