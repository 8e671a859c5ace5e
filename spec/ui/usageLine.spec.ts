// @vitest-environment happy-dom
/**
 * Issue 32, items 3 and 5: the panel shows what the conversation used on
 * request (its _Usage_ button), and says unasked, after a turn, when a fifth
 * of its budget or less is left, in words and the page's numbers.
 */
import {
  type AssistantClient,
  type AssistantPanel,
  createAssistantStore,
} from "elyra-assistant/ui";
import { afterEach, describe, expect, it } from "vitest";
import { LOW_BUDGET_SHARE, usageWords } from "../../src/adapters/ui/usageView.ts";
import type { UsageResponse } from "../../src/adapters/web/wire.ts";
import { answeredTurn, fakeClient, numbered, until } from "./fixtures.ts";

const MAX = 5_000_000;
const answer = (used: number, dollars: number | null = 0.1234): UsageResponse => ({
  context: 41_300,
  budget: { used, max: MAX },
  dollars,
});

const mount = (usage: ((cost: boolean) => Promise<UsageResponse>) | undefined) => {
  const fake = fakeClient();
  const asks: boolean[] = [];
  const client: AssistantClient = {
    ...fake.client,
    ...(usage === undefined
      ? {}
      : {
          usage: (options) => {
            const cost = options?.cost !== false;
            asks.push(cost);
            return usage(cost);
          },
        }),
  };
  document.documentElement.lang = "en";
  const store = createAssistantStore(client, { open: true, route: () => "/" });
  const panel = document.createElement("elyra-assistant-panel") as AssistantPanel;
  panel.store = store;
  document.body.append(panel);
  const root = panel.shadowRoot!;
  const button = root.querySelector<HTMLButtonElement>("button.usage-button")!;
  const line = root.querySelector<HTMLElement>("p.usage")!;
  /** Whether the line shows: it is a live region always in place, empty when it shows nothing. */
  const shown = () => (line.textContent ?? "") !== "";
  return { fake, panel, button, line, shown, asks, asked: () => asks.length };
};

afterEach(() => {
  document.body.replaceChildren();
});

describe("the panel's usage line", () => {
  it("says what the conversation holds, cost and has left, in words and the page's numbers", () => {
    expect(usageWords(answer(400_000), "en")).toBe(
      "Last request: 41.3K tokens. Cost so far: $0.1234. Left: 4.6M of 5M tokens (92%).",
    );
    expect(usageWords(answer(MAX, 12.5), "en")).toBe(
      "Last request: 41.3K tokens. Cost so far: $12.50. Left: 0 of 5M tokens (0%). Start a new conversation to go on.",
    );
    expect(usageWords(answer(0, null), "en")).toContain(
      "Cost so far: not known (what answered has no price here).",
    );
    expect(usageWords(answer(400_000), "de")).toContain("4,6");
  });

  it("shows on request and hides again; a client without usage has no button", async () => {
    const none = mount(undefined);
    expect(none.button.hidden).toBe(true);
    document.body.replaceChildren();

    const m = mount(async () => answer(400_000));
    expect(m.button.hidden).toBe(false);
    expect(m.shown()).toBe(false);
    // A live region in place before it speaks, so that what it says is read out.
    expect(m.line.hidden).toBe(false);
    expect(m.line.getAttribute("role")).toBe("status");
    m.button.click();
    await until(() => m.shown());
    expect(m.line.textContent).toContain("Left: 4.6M of 5M tokens");
    expect(m.line.textContent).toContain("Cost so far: $0.1234.");
    expect(m.asks).toEqual([true]);
    expect(m.button.getAttribute("aria-expanded")).toBe("true");
    m.button.click();
    expect(m.shown()).toBe(false);
    expect(m.button.getAttribute("aria-expanded")).toBe("false");
  });

  it("after a turn, asks the budget alone; says so unasked once a fifth or less is left, with the cost; and goes when a new conversation has room", async () => {
    let used = 1_000_000;
    const m = mount(async (cost) =>
      cost ? answer(used) : { context: 41_300, budget: { used, max: MAX } },
    );
    m.fake.emit(...numbered(answeredTurn(1, "hi", ["Hello."])));
    await until(() => m.asked() === 1);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(m.shown()).toBe(false);
    // The budget alone: the host answers it from memory, where the cost is read from the log.
    expect(m.asks).toEqual([false]);
    used = Math.ceil(MAX * (1 - LOW_BUDGET_SHARE));
    m.fake.emit(...numbered(answeredTurn(2, "more", ["More."]), 5));
    await until(() => m.shown());
    expect(m.asks).toEqual([false, false, true]);
    expect(m.line.classList.contains("low")).toBe(true);
    expect(m.line.textContent).toContain("(20%)");
    expect(m.line.textContent).toContain("Cost so far: $0.1234.");
    expect(m.button.getAttribute("aria-expanded")).toBe("false");
    // Started anew: room again, and the warning goes.
    used = 0;
    m.panel.shadowRoot?.querySelector<HTMLButtonElement>("button.reset")?.click();
    await until(() => !m.shown());
  });

  it("a usage that could not be read: a sentence when asked, nothing unasked", async () => {
    const m = mount(async () => {
      throw new Error("offline");
    });
    m.fake.emit(...numbered(answeredTurn(1, "hi", ["Hello."])));
    await until(() => m.asked() === 1);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(m.shown()).toBe(false);
    m.button.click();
    await until(() => m.shown());
    expect(m.line.textContent).toBe("What this conversation used could not be read just now.");
  });
});
