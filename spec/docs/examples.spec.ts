/**
 * Every public export says what it is: a doc comment on each export of each
 * entry point package.json lists, an `@example` on each value, and every
 * example compiles against the entry points as a user would write it.
 */
import { describe, expect, it } from "vitest";
import { timeoutFor } from "../properties/runs.ts";
import { compileSamples, entries, exportDocs } from "./exportDocs.ts";

const docs = exportDocs();
const named = (d: { readonly entry: string; readonly name: string }) => `${d.entry}: ${d.name}`;

describe("the public exports' docs", () => {
  it("reads the entry points from package.json's exports", () => {
    expect(entries().map((e) => e.specifier)).toContain("elyra-assistant");
    expect(new Set(docs.map((d) => d.entry)).size).toBe(entries().length);
  });

  it("the root keeps what an app writes every day: at most 120 names, values and types", () => {
    expect(docs.filter((d) => d.entry === "elyra-assistant").length).toBeLessThanOrEqual(120);
  });

  it("every export has a doc comment", () => {
    expect(docs.filter((d) => !d.documented).map(named)).toEqual([]);
  });

  it("every value export has an @example in TypeScript", () => {
    expect(docs.filter((d) => d.value && d.examples.length === 0).map(named)).toEqual([]);
  });

  it("every @example compiles against the entry points", { timeout: timeoutFor(120_000) }, () => {
    expect(compileSamples(docs).map((p) => `${named(p)}: ${p.message}`)).toEqual([]);
  });
});
