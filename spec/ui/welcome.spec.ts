// @vitest-environment happy-dom
/**
 * An empty `<elyra-assistant-panel>` is not a blank column: it greets, and
 * offers the app's suggestions as buttons that send (or fill in) a prompt;
 * both go once the conversation has items, and come back after a reset.
 */
import {
  type AssistantPanel,
  createAssistantStore,
  DEFAULT_GREETING,
  installAssistant,
} from "elyra-assistant/ui";
import { afterEach, describe, expect, it } from "vitest";
import { answeredTurn, fakeClient, numbered } from "./fixtures.ts";

const uninstalls: Array<() => void> = [];

afterEach(() => {
  for (const uninstall of uninstalls.splice(0)) uninstall();
  document.body.replaceChildren();
});

const mount = (setup: (panel: AssistantPanel) => void = () => {}) => {
  const fake = fakeClient();
  const store = createAssistantStore(fake.client, { open: true, route: () => "/customers/42" });
  const panel = document.createElement("elyra-assistant-panel") as AssistantPanel;
  setup(panel);
  panel.store = store;
  document.body.append(panel);
  const root = panel.shadowRoot as ShadowRoot;
  const welcome = () => root.querySelector<HTMLElement>(".welcome") as HTMLElement;
  const buttons = () => [...root.querySelectorAll<HTMLButtonElement>(".welcome button")];
  return { fake, store, panel, root, welcome, buttons };
};

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("the empty panel's welcome", () => {
  it("greets with the panel's own words when the app gives none, and offers nothing", () => {
    const { welcome, buttons } = mount();
    expect(welcome().hidden).toBe(false);
    expect(welcome().querySelector(".greeting")?.textContent).toBe(DEFAULT_GREETING);
    expect(buttons()).toEqual([]);
    expect(welcome().querySelector("ul")?.hidden).toBe(true);
  });

  it("shows the app's greeting and suggestions, a labelled list of buttons, and a click sends the prompt", async () => {
    const { fake, root, welcome, buttons } = mount((panel) => {
      panel.greeting = "Hi Ada. What shall we look at?";
      panel.suggestions = [
        "Which invoices are overdue?",
        { label: "Her credit limit", prompt: "What is her credit limit?" },
        "  ",
      ];
    });
    expect(welcome().querySelector(".greeting")?.textContent).toBe(
      "Hi Ada. What shall we look at?",
    );
    const list = welcome().querySelector("ul");
    expect(list?.getAttribute("aria-label")).toBe("Suggestions");
    expect(list?.querySelectorAll("li > button")).toHaveLength(2);
    expect(buttons().map((b) => b.textContent)).toEqual([
      "Which invoices are overdue?",
      "Her credit limit",
    ]);
    expect(buttons().every((b) => b.type === "button")).toBe(true);
    // A shorter label keeps the whole prompt in its tooltip.
    expect(buttons()[1]?.title).toBe("What is her credit limit?");

    buttons()[1]?.click();
    // One click, one prompt: the suggestions wait while it is on its way.
    expect(buttons().every((b) => b.disabled)).toBe(true);
    buttons()[0]?.click();
    await settle();
    expect(fake.calls.filter((c) => c.method === "prompt").map((c) => c.args)).toEqual([
      ["What is her credit limit?", "/customers/42"],
    ]);
    // The cursor is in the text box, not on a button about to go.
    expect(root.activeElement).toBe(root.querySelector("textarea"));
  });

  it("a suggestion with send: false goes into the text box to be finished, and is not sent", async () => {
    const { fake, root, buttons } = mount((panel) => {
      panel.suggestions = [{ label: "Bill a customer…", prompt: "Bill customer ", send: false }];
    });
    buttons()[0]?.click();
    await settle();
    const textarea = root.querySelector("textarea") as HTMLTextAreaElement;
    expect(textarea.value).toBe("Bill customer ");
    expect(root.activeElement).toBe(textarea);
    expect(textarea.selectionStart).toBe("Bill customer ".length);
    expect(fake.calls.some((c) => c.method === "prompt")).toBe(false);
  });

  it("goes once the conversation has items, and comes back when it is empty again", async () => {
    const { fake, store, root, welcome } = mount((panel) => {
      panel.suggestions = ["Find Hopper"];
    });
    fake.emit(...numbered(answeredTurn(1, "Hello", ["Hi", " there"])));
    await settle();
    expect(welcome().hidden).toBe(true);
    expect(root.querySelector(".panel")?.classList.contains("empty")).toBe(false);
    await store.reset();
    fake.emit(...numbered([{ _tag: "Reset", turn: 0 }], 6));
    await settle();
    expect(store.getSnapshot().items).toEqual([]);
    expect(welcome().hidden).toBe(false);
  });

  it("takes the greeting attribute, and a change to it or to the suggestions shows at once", () => {
    const { panel, welcome, buttons } = mount((p) =>
      p.setAttribute("greeting", "Hello from HTML."),
    );
    expect(welcome().querySelector(".greeting")?.textContent).toBe("Hello from HTML.");
    panel.setAttribute("greeting", "Changed.");
    expect(welcome().querySelector(".greeting")?.textContent).toBe("Changed.");
    panel.suggestions = ["One", "Two"];
    expect(buttons().map((b) => b.textContent)).toEqual(["One", "Two"]);
    panel.suggestions = [];
    expect(buttons()).toEqual([]);
  });

  it("takes installAssistant's greeting and suggestions when the panel has none of its own; its own win", () => {
    const fake = fakeClient();
    const store = createAssistantStore(fake.client, { open: true });
    uninstalls.push(
      installAssistant(store, {
        greeting: "Welcome to the CRM.",
        suggestions: ["Which invoices are overdue?"],
      }),
    );
    const panel = document.createElement("elyra-assistant-panel") as AssistantPanel;
    document.body.append(panel);
    const root = panel.shadowRoot as ShadowRoot;
    expect(root.querySelector(".welcome .greeting")?.textContent).toBe("Welcome to the CRM.");
    expect([...root.querySelectorAll(".welcome button")].map((b) => b.textContent)).toEqual([
      "Which invoices are overdue?",
    ]);
    panel.suggestions = ["Find Hopper"];
    expect([...root.querySelectorAll(".welcome button")].map((b) => b.textContent)).toEqual([
      "Find Hopper",
    ]);
  });

  it("renders the app's words as text, never as HTML", () => {
    const { welcome } = mount((panel) => {
      panel.greeting = "<img src=x onerror=alert(1)>";
      panel.suggestions = ["<b>bold</b>"];
    });
    expect(welcome().querySelector("img, b")).toBeNull();
    expect(welcome().querySelector("button")?.textContent).toBe("<b>bold</b>");
  });
});
