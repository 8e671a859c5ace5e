/**
 * The React samples of the docs are the files the specs run: README.md's
 * "Use it from React" is ./examples/readme.tsx (readme.spec.tsx), and
 * docs/ui.md's "Your own panel in React" is ./examples/panel.tsx
 * (panel.spec.tsx, ssr.spec.tsx), each quoted whole.
 */
import { describe, expect, it } from "vitest";
import { fencedBlocks, repoFile } from "./fenced.ts";

describe("the React samples in the docs", () => {
  it("README.md quotes examples/readme.tsx", () => {
    expect(fencedBlocks("README.md", "tsx")).toContain(repoFile("spec/react/examples/readme.tsx"));
  });

  it("docs/ui.md quotes examples/panel.tsx", () => {
    expect(fencedBlocks("docs/ui.md", "tsx")).toContain(repoFile("spec/react/examples/panel.tsx"));
  });
});
