// @vitest-environment happy-dom
/**
 * Issue 32: the user sees that earlier context was summarised. A `Compacted`
 * event shows one quiet line, in words, before the question it was made for;
 * the panel's fold places it there whether the event is told live or read
 * back from the log.
 */
import { panelItems } from "elyra-assistant/log";
import { type AssistantPanel, createAssistantStore } from "elyra-assistant/ui";
import { afterEach, describe, expect, it } from "vitest";
import { SUMMARISED_WORDS } from "../../src/adapters/ui/itemViews.ts";
import { fakeClient, numbered } from "./fixtures.ts";

const turn = (n: number, answer: string) =>
  [
    { _tag: "TurnStarted", turn: n, text: `question ${n}`, route: null, note: null },
    { _tag: "Answered", turn: n, text: answer },
  ] as const;
const compacted = {
  _tag: "Compacted",
  turn: 3,
  summary: "Ada asked twice about invoices.",
  kept: 2,
} as const;
const log = () => {
  const [started, answered] = turn(3, "Here they are.");
  return numbered([...turn(1, "One."), ...turn(2, "Two."), started, compacted, answered]);
};

afterEach(() => {
  document.body.replaceChildren();
});

describe("a summarised conversation in the panel", () => {
  it("the fold puts one item before the question it was made for", () => {
    const { items } = panelItems.fold(log());
    expect(items.map((i) => i.kind)).toEqual([
      "user",
      "answer",
      "user",
      "answer",
      "summarised",
      "user",
      "answer",
    ]);
    expect(items[4]).toEqual({ kind: "summarised", turn: 3 });
  });

  it("says so in words, with no identifier nor the summary itself", () => {
    const fake = fakeClient();
    const store = createAssistantStore(fake.client, { open: true, route: () => "/" });
    const panel = document.createElement("elyra-assistant-panel") as AssistantPanel;
    panel.store = store;
    document.body.append(panel);
    fake.emit(...log());
    const line = panel.shadowRoot?.querySelector<HTMLElement>(".item.summarised");
    expect(line?.textContent).toBe(SUMMARISED_WORDS);
    expect(line?.getAttribute("role")).toBe("note");
    expect(panel.shadowRoot?.textContent).not.toContain("Ada asked twice");
    expect(SUMMARISED_WORDS).not.toMatch(/Compacted|summary_|[a-z]+_[a-z]+/);
  });
});
