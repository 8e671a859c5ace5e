/**
 * assistantPaletteEntry: the "Ask the assistant: …" entry a command palette
 * shows when nothing matches, and what choosing it sends.
 */
import { assistantPaletteEntry, createAssistantStore, installAssistant } from "elyra-assistant/ui";
import { describe, expect, it } from "vitest";
import { fakeClient } from "./fixtures.ts";

/** An `open` that records what it was asked. */
const recorder = () => {
  const asked: string[] = [];
  const open = async (prompt: string) => {
    asked.push(prompt);
    return true;
  };
  return { asked, open };
};

describe("assistantPaletteEntry", () => {
  it("offers to ask when nothing matches; choosing it opens the assistant with the query", async () => {
    const { asked, open } = recorder();
    const entry = assistantPaletteEntry("Which invoices are overdue?", [], { open });
    expect(entry).toEqual({
      id: "elyra-assistant-ask",
      label: "Ask the assistant: Which invoices are overdue?",
      query: "Which invoices are overdue?",
      run: expect.any(Function),
    });
    expect(await entry?.run()).toBe(true);
    expect(asked).toEqual(["Which invoices are overdue?"]);
  });

  it("offers nothing for an empty or blank query, even with always", () => {
    for (const query of ["", " ", "\t\n  "]) {
      expect(assistantPaletteEntry(query, [])).toBeUndefined();
      expect(assistantPaletteEntry(query, 0, { always: true })).toBeUndefined();
    }
  });

  it("offers nothing while the palette has matches, unless always is set", () => {
    expect(assistantPaletteEntry("cust", [{ title: "Customers" }])).toBeUndefined();
    expect(assistantPaletteEntry("cust", 3)).toBeUndefined();
    expect(assistantPaletteEntry("cust", 3, { always: true })?.label).toBe(
      "Ask the assistant: cust",
    );
    // Anything with a length counts as the matches: an array, a NodeList.
    expect(assistantPaletteEntry("cust", { length: 0 })?.query).toBe("cust");
  });

  it("sends the query trimmed; the label is on one line", async () => {
    const { asked, open } = recorder();
    const entry = assistantPaletteEntry("  Find\n\tHopper   and  Lovelace \n", 0, { open });
    expect(entry?.label).toBe("Ask the assistant: Find Hopper and Lovelace");
    expect(entry?.query).toBe("Find\n\tHopper   and  Lovelace");
    await entry?.run();
    expect(asked).toEqual(["Find\n\tHopper   and  Lovelace"]);
  });

  it("clips a long query's label, never what it sends", async () => {
    const { asked, open } = recorder();
    const long = `Summarise ${"every overdue invoice ".repeat(40)}`.trim();
    const entry = assistantPaletteEntry(long, [], { open });
    expect(entry?.label).toBe(`Ask the assistant: ${long.slice(0, 59)}…`);
    expect(Array.from(entry?.label.slice("Ask the assistant: ".length) ?? "")).toHaveLength(60);
    expect(entry?.query).toBe(long);
    await entry?.run();
    expect(asked).toEqual([long]);
  });

  it("clips by character, never inside an emoji; maxLabel and prefix change the label", () => {
    const entry = assistantPaletteEntry("🧾🧾🧾🧾", [], { maxLabel: 3, prefix: "Ask: " });
    expect(entry?.label).toBe("Ask: 🧾🧾…");
    expect(assistantPaletteEntry("abc", [], { maxLabel: 3 })?.label).toBe("Ask the assistant: abc");
    expect(assistantPaletteEntry("abcd", [], { maxLabel: 0 })?.label).toBe("Ask the assistant: …");
    expect(assistantPaletteEntry("abcd", [], { maxLabel: Number.NaN })?.label).toBe(
      "Ask the assistant: abcd",
    );
    expect(assistantPaletteEntry("abcd", [], { id: "ask" })?.id).toBe("ask");
  });

  it("by default opens the page's installed assistant and sends the prompt", async () => {
    const fake = fakeClient();
    const store = createAssistantStore(fake.client, { route: () => "/invoices" });
    const entry = assistantPaletteEntry(" Which invoices have no project? ", []);
    // No assistant installed yet: nothing is sent.
    expect(await entry?.run()).toBe(false);
    const uninstall = installAssistant(store);
    try {
      expect(await entry?.run()).toBe(true);
      expect(store.getSnapshot().open).toBe(true);
      expect(fake.calls).toEqual([
        { method: "prompt", args: ["Which invoices have no project?", "/invoices"] },
      ]);
    } finally {
      uninstall();
    }
  });
});
