/**
 * axe-core in a Playwright page: its source evaluated in the page (over the
 * DevTools protocol, so a page's Content-Security-Policy does not stop it),
 * run on one element and what is inside it, shadow roots included. The specs
 * fail on the violations whose impact is serious or critical, told one a
 * line: the rule, its impact, where, and what it asks for.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { AxeResults, NodeResult, Result, RunOptions } from "axe-core";
import type { Page } from "playwright-core";

const require = createRequire(import.meta.url);
/** axe-core's browser build, read once. */
const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/** A violation the specs fail on: serious or critical. */
export interface SevereViolation {
  /** axe's rule, e.g. `color-contrast`. */
  readonly rule: string;
  readonly impact: "serious" | "critical";
  /** What the rule asks for, in axe's words. */
  readonly help: string;
  readonly helpUrl: string;
  /** Each element in breach: its selector (a path through shadow roots joined with ` >>> `) and why. */
  readonly nodes: ReadonlyArray<{ readonly target: string; readonly why: string }>;
}

const SEVERE = new Set(["serious", "critical"]);

const targetOf = (node: NodeResult): string =>
  node.target.map((part) => (Array.isArray(part) ? part.join(" >>> ") : String(part))).join(" | ");

/** The first line of axe's summary of what to fix, which carries the numbers (a contrast of 4.2:1…). */
const whyOf = (node: NodeResult): string =>
  (node.failureSummary ?? "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !/^Fix (any|all) of the following:$/.test(line))
    .join("; ");

/** Puts axe-core in the page, once. */
export const injectAxe = async (page: Page): Promise<void> => {
  const present = await page.evaluate(() => "axe" in globalThis);
  if (present) return;
  await page.evaluate(AXE_SOURCE);
  const loaded = await page.evaluate(() => "axe" in globalThis);
  if (!loaded) throw new Error("axe-core did not load in the page");
};

/**
 * Runs axe on `selector` (the panel's element unless given; its shadow root
 * is checked with it) and returns the serious and critical violations.
 */
export const severeViolations = async (
  page: Page,
  selector = "elyra-assistant-panel",
  options: RunOptions = {},
): Promise<SevereViolation[]> => {
  await injectAxe(page);
  const results = (await page.evaluate(
    ([include, runOptions]) =>
      (
        globalThis as unknown as {
          axe: { run: (context: unknown, options: unknown) => Promise<unknown> };
        }
      ).axe.run({ include: [include] }, runOptions),
    [selector, { resultTypes: ["violations"], ...options }] as const,
  )) as AxeResults;
  return results.violations
    .filter((v: Result) => v.impact != null && SEVERE.has(v.impact))
    .map((v: Result) => ({
      rule: v.id,
      impact: v.impact as "serious" | "critical",
      help: v.help,
      helpUrl: v.helpUrl,
      nodes: v.nodes.map((node) => ({ target: targetOf(node), why: whyOf(node) })),
    }));
};

/** Violations as lines to read in a failed expectation: "" when there are none. */
export const formatViolations = (violations: ReadonlyArray<SevereViolation>): string =>
  violations
    .map(
      (v) =>
        `${v.rule} (${v.impact}): ${v.help} <${v.helpUrl}>\n${v.nodes
          .map((node) => `  at ${node.target}${node.why === "" ? "" : `\n    ${node.why}`}`)
          .join("\n")}`,
    )
    .join("\n");
