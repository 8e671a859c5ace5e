import { covers, isAbility, isAbilityPattern } from "elyra-assistant";
import { describe, expect, it } from "vitest";

describe("ability patterns", () => {
  it.each([
    ["*", "customers.delete", true],
    ["*", "admin", true],
    ["customers.*", "customers.update", true],
    ["customers.*", "customers.notes.view", true],
    ["customers.*", "customers", false],
    ["customers.*", "customersx.view", false],
    ["customers.view", "customers.view", true],
    ["customers.view", "customers.viewer", false],
    ["customers.view", "customers.view.all", false],
    ["admin.search.*", "admin.search.reindex", true],
    ["admin.search.*", "admin.other", false],
  ])("%s covers %s: %s", (pattern, ability, expected) => {
    expect(covers(pattern, ability)).toBe(expected);
  });

  it("knows well-formed abilities and patterns", () => {
    expect(["customers.view", "a", "a-b.c_d"].every(isAbility)).toBe(true);
    expect(["", "a.", ".a", "a..b", "a.*", "*", "a b"].some(isAbility)).toBe(false);
    expect(["*", "a.*", "a.b.*", "a.b"].every(isAbilityPattern)).toBe(true);
    expect(["**", "*.view", "a*", "a.*.b", "", "a.b*"].some(isAbilityPattern)).toBe(false);
  });
});
