/**
 * The property kit's samples in the docs are the files the specs run:
 * README.md's "Property-test your grants" and docs/testing.md's worked
 * example quote ./examples/crmGrants.spec.ts whole, and docs/testing.md
 * tells the counterexamples propertyKit.spec.ts asserts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LEAK_FOUND, WRONG_CAN_FOUND } from "./counterexamples.ts";

const REPO = join(import.meta.dirname, "..", "..");
const read = (path: string): string => readFileSync(join(REPO, path), "utf8");
const sample = read("spec/testing/examples/crmGrants.spec.ts");

describe("the property kit in the docs", () => {
  it("README.md and docs/testing.md quote examples/crmGrants.spec.ts whole", () => {
    expect(read("README.md")).toContain(`\`\`\`ts\n${sample}\`\`\``);
    expect(read("docs/testing.md")).toContain(`\`\`\`ts\n${sample}\`\`\``);
  });

  it("docs/testing.md tells the counterexamples the planted mistakes give", () => {
    const testing = read("docs/testing.md");
    expect(testing).toContain(`\n${LEAK_FOUND}\n`);
    expect(testing).toContain(`\n${WRONG_CAN_FOUND}\n`);
  });
});
