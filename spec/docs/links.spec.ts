/**
 * Every relative link of every doc (README.md, CHANGELOG.md, docs/, the
 * READMEs under examples/, spec/ and src/) resolves: to a file or directory
 * of this repository, never outside it, and to an anchor its target has
 * (a heading, as GitHub makes anchors). A link elsewhere is https only.
 */
import { existsSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { anchorsOf, docFiles, linksOf, REPO, readDoc, slug } from "./markdown.ts";

const docs = docFiles();

interface Broken {
  readonly where: string;
  readonly target: string;
  readonly why: string;
}

const brokenLinks = (file: string): ReadonlyArray<Broken> => {
  const broken: Broken[] = [];
  for (const { line, target } of linksOf(readDoc(file))) {
    const where = `${file}:${line}`;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
      if (!/^(https:|mailto:)/.test(target))
        broken.push({ where, target, why: "not https (or mailto)" });
      continue;
    }
    if (target.startsWith("/") || target.startsWith("//")) {
      broken.push({ where, target, why: "absolute: not a path in this repository" });
      continue;
    }
    const hash = target.indexOf("#");
    const path = decodeURI(hash === -1 ? target : target.slice(0, hash));
    const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const resolved = path === "" ? join(REPO, file) : join(REPO, dirname(file), path);
    const inRepo = relative(REPO, resolved);
    if (inRepo.startsWith("..") || inRepo.split(sep).includes("node_modules")) {
      broken.push({ where, target, why: "outside the repository" });
      continue;
    }
    if (!existsSync(resolved)) {
      broken.push({ where, target, why: "no such file" });
      continue;
    }
    if (anchor !== undefined) {
      if (!resolved.endsWith(".md") || statSync(resolved).isDirectory())
        broken.push({ where, target, why: "an anchor into a file that is not Markdown" });
      else if (!anchorsOf(readDoc(inRepo.split(sep).join("/"))).has(anchor))
        broken.push({ where, target, why: `no heading makes #${anchor}` });
    }
  }
  return broken;
};

describe("the docs' links", () => {
  it("finds the docs", () => {
    expect(docs).toContain("README.md");
    expect(docs).toContain("docs/ui.md");
    expect(docs).toContain("src/machines/README.md");
    expect(docs.every((file) => !file.startsWith("node_modules/"))).toBe(true);
  });

  it("makes anchors as GitHub does", () => {
    expect(slug("6. Running it in production")).toBe("6-running-it-in-production");
    expect(slug("(ad) One process writes a SQLite file; a second store is refused at open")).toBe(
      "ad-one-process-writes-a-sqlite-file-a-second-store-is-refused-at-open",
    );
    expect(slug("Command palette (⌘K)")).toBe("command-palette-k");
    expect(slug("Your own panel in `React`")).toBe("your-own-panel-in-react");
    expect([...anchorsOf("# A\n## A\n```\n# not a heading\n```\n## A\n")]).toEqual([
      "a",
      "a-1",
      "a-2",
    ]);
  });

  it("reads links but not code", () => {
    const text = 'see [x](a.md#b) and ![i](images/i.png "t")\n`[no](c.md)`\n```\n[no](d.md)\n```\n';
    expect(linksOf(text).map((l) => l.target)).toEqual(["a.md#b", "images/i.png"]);
  });

  it.each(docs)("%s: every relative link resolves to a file and anchor here", (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });
});
