// @vitest-environment happy-dom
/** `<elyra-assistant-panel>` renders a store: the log, steps, the confirm dialog, Stop, the composer. */
import {
  type AssistantPanel,
  createAssistantStore,
  defineAssistantPanel,
  installAssistant,
} from "elyra-assistant/ui";
import { afterEach, describe, expect, it } from "vitest";
import { answeredTurn, askedToDelete, fakeClient, numbered } from "./fixtures.ts";

const mount = (options: { readonly open?: boolean; readonly notice?: string } = {}) => {
  const fake = fakeClient();
  const store = createAssistantStore(fake.client, { open: options.open ?? true, route: () => "/" });
  const panel = document.createElement("elyra-assistant-panel") as AssistantPanel;
  if (options.notice !== undefined) panel.setAttribute("notice", options.notice);
  panel.store = store;
  document.body.append(panel);
  const root = panel.shadowRoot!;
  const $ = <E extends Element = HTMLElement>(selector: string) => root.querySelector<E>(selector)!;
  return { fake, store, panel, root, $ };
};

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

afterEach(() => {
  document.body.replaceChildren();
});

describe("<elyra-assistant-panel>", () => {
  it("is defined once, however often it is asked", () => {
    defineAssistantPanel();
    defineAssistantPanel();
    expect(customElements.get("elyra-assistant-panel")).toBeDefined();
    defineAssistantPanel("acme-assistant");
    expect(customElements.get("acme-assistant")).not.toBe(
      customElements.get("elyra-assistant-panel"),
    );
  });

  it("renders in an open shadow root with the theme's custom properties, in a stylesheet it adopts", () => {
    const { root } = mount();
    // A constructed sheet, not a <style> element: a strict CSP's style-src needs no 'unsafe-inline'.
    expect(root.querySelector("style")).toBeNull();
    expect(root.adoptedStyleSheets).toHaveLength(1);
    const css = [...(root.adoptedStyleSheets[0]?.cssRules ?? [])]
      .map((rule) => rule.cssText)
      .join("\n");
    for (const name of [
      "--elyra-accent",
      "--elyra-bg",
      "--elyra-fg",
      "--elyra-radius",
      "--elyra-font",
    ])
      expect(css).toContain(name);
    const log = root.querySelector("[role=log]");
    expect(log?.getAttribute("aria-live")).toBe("polite");
    expect(root.querySelectorAll("button").length).toBeGreaterThan(0);
  });

  it("shares one stylesheet among the panels of a document", () => {
    const [first, second] = [mount(), mount()];
    expect(first.root.adoptedStyleSheets).toHaveLength(1);
    expect(second.root.adoptedStyleSheets).toEqual(first.root.adoptedStyleSheets);
    expect(second.root.adoptedStyleSheets[0]).toBe(first.root.adoptedStyleSheets[0]);
  });

  it("shows the notice as a banner at the top", () => {
    const { panel, $ } = mount({ notice: "Scripted demo model: answers are canned." });
    const notice = $(".notice");
    expect(notice.hidden).toBe(false);
    expect(notice.textContent).toBe("Scripted demo model: answers are canned.");
    expect($(".panel").firstElementChild).toBe(notice);
    panel.removeAttribute("notice");
    expect(notice.hidden).toBe(true);
  });

  it("shows a launcher while closed, and the panel when opened", () => {
    const { store, $ } = mount({ open: false });
    expect($(".panel").hidden).toBe(true);
    const launcher = $<HTMLButtonElement>(".launcher");
    expect(launcher.getAttribute("aria-expanded")).toBe("false");
    launcher.click();
    expect(store.getSnapshot().open).toBe(true);
    expect($(".panel").hidden).toBe(false);
    expect(launcher.hidden).toBe(true);
    $<HTMLButtonElement>(".close").click();
    expect(store.getSnapshot().open).toBe(false);
  });

  it("streams an answer in a busy bubble with a caret, then settles it", () => {
    const { fake, $, root } = mount();
    const [started, step, hel, lo, answered] = numbered(answeredTurn(1, "Hi there", ["Hel", "lo"]));
    fake.emit(started!, step!, hel!);
    expect($(".user").textContent).toBe("Hi there");
    const bubble = $(".answer");
    expect(bubble.getAttribute("aria-busy")).toBe("true");
    expect(bubble.querySelector(".caret")).not.toBeNull();
    expect($(".stop").hidden).toBe(false);
    fake.emit(lo!);
    expect($(".answer")).toBe(bubble); // patched in place
    expect(bubble.textContent).toBe("Hello");
    fake.emit(answered!);
    expect(bubble.hasAttribute("aria-busy")).toBe(false);
    expect(bubble.querySelector(".caret")).toBeNull();
    expect($(".stop").hidden).toBe(true);
    expect(root.querySelectorAll(".item")).toHaveLength(2);
  });

  it("focus() puts the cursor in the text box when open, and on the launcher when closed", () => {
    const open = mount();
    open.panel.focus();
    expect(open.root.activeElement).toBe(open.$("textarea"));
    document.body.replaceChildren();
    const closed = mount({ open: false });
    closed.panel.focus();
    expect(closed.root.activeElement).toBe(closed.$(".launcher"));
  });

  it("stops the bubble being busy when a tool step starts, so the words before it are read first", () => {
    const { fake, $ } = mount();
    fake.emit(
      ...numbered([
        { _tag: "TurnStarted", turn: 1, text: "Delete her", route: null, note: null },
        { _tag: "StepStarted", turn: 1, step: 1 },
        { _tag: "TextDelta", turn: 1, step: 1, text: "Let me delete it." },
      ]),
    );
    const bubble = $(".answer");
    expect(bubble.getAttribute("aria-busy")).toBe("true");
    fake.emit(
      ...numbered(
        [
          {
            _tag: "ToolStarted",
            turn: 1,
            callId: "k1",
            tool: "customers_destroy",
            caller: { type: "direct" },
          },
        ],
        4,
      ),
    );
    expect(bubble.hasAttribute("aria-busy")).toBe(false);
    expect(bubble.querySelector(".caret")).toBeNull();
  });

  it("says on the closed panel's launcher how many questions wait, and stops once they are answered", () => {
    const { fake, $ } = mount({ open: false });
    const launcher = $<HTMLButtonElement>(".launcher");
    const badge = $(".launcher .badge");
    expect(badge.hidden).toBe(true);
    expect(launcher.hasAttribute("aria-label")).toBe(false);
    const events = numbered([
      { _tag: "TurnStarted", turn: 1, text: "Delete them", route: null, note: null },
      askedToDelete(1),
      askedToDelete(2),
      { _tag: "ConfirmAnswered", turn: 1, confirmId: "c1", answer: "declined" },
      { _tag: "ConfirmAnswered", turn: 1, confirmId: "c2", answer: "accepted" },
    ]);
    fake.emit(events[0]!, events[1]!);
    expect(launcher.getAttribute("aria-label")).toBe("Assistant — 1 question waiting");
    expect(badge.hidden).toBe(false);
    expect(badge.textContent).toBe("1");
    fake.emit(events[2]!);
    expect(launcher.getAttribute("aria-label")).toBe("Assistant — 2 questions waiting");
    fake.emit(events[3]!, events[4]!);
    expect(launcher.hasAttribute("aria-label")).toBe(false);
    expect(badge.hidden).toBe(true);
  });

  it("links a step that succeeded into the app, and not one that failed", () => {
    const { fake, root } = mount();
    fake.emit(
      ...numbered([
        { _tag: "TurnStarted", turn: 1, text: "Show 42 and 43", route: null, note: null },
        {
          _tag: "ToolStarted",
          turn: 1,
          callId: "a",
          tool: "customers_show",
          caller: { type: "direct" },
        },
        {
          _tag: "ToolStarted",
          turn: 1,
          callId: "b",
          tool: "customers_show",
          caller: { type: "direct" },
        },
        {
          _tag: "ToolStarted",
          turn: 1,
          callId: "c",
          tool: "customers_edit",
          caller: { type: "direct" },
        },
      ]),
    );
    expect(root.querySelectorAll(".step.running")).toHaveLength(3);
    fake.emit(
      ...numbered(
        [
          {
            _tag: "ToolFinished",
            turn: 1,
            callId: "a",
            ok: true,
            outcome: "ok",
            link: "/customers/42",
          },
          {
            _tag: "ToolFinished",
            turn: 1,
            callId: "b",
            ok: false,
            outcome: "denied",
            link: "/customers/43",
          },
          {
            _tag: "ToolFinished",
            turn: 1,
            callId: "c",
            ok: true,
            outcome: "ok",
            link: "//evil.example",
          },
        ],
        5,
      ),
    );
    expect(root.querySelectorAll(".step")).toHaveLength(3);
    expect(root.querySelectorAll(".step.running")).toHaveLength(0);
    const links = [...root.querySelectorAll("a")].map((a) => a.getAttribute("href"));
    expect(links).toEqual(["#/customers/42"]);
    const failed = root.querySelector(".step.failed")!;
    expect(failed.textContent).toContain("you may not do this");
    expect(failed.textContent).not.toContain("denied");
    expect(failed.querySelector("a")).toBeNull();
  });

  it("shows a script as details: the code, each call, the output", () => {
    const { fake, root } = mount();
    fake.emit(
      ...numbered([
        { _tag: "TurnStarted", turn: 1, text: "Total overdue", route: null, note: null },
        {
          _tag: "ScriptStarted",
          turn: 1,
          toolId: "srvtoolu_1",
          code: "const xs = await invoices_index({});\nprint(xs.length)",
        },
        {
          _tag: "ToolStarted",
          turn: 1,
          callId: "k1",
          tool: "invoices_index",
          caller: { type: "code", toolId: "srvtoolu_1" },
        },
      ]),
    );
    const details = root.querySelector("details")!;
    details.setAttribute("open", "");
    fake.emit(
      ...numbered(
        [
          {
            _tag: "ToolFinished",
            turn: 1,
            callId: "k1",
            ok: true,
            outcome: "ok",
            link: "/invoices",
          },
          { _tag: "ScriptFinished", turn: 1, toolId: "srvtoolu_1", output: "214\n", calls: 1 },
        ],
        4,
      ),
    );
    expect(root.querySelectorAll("details")).toHaveLength(1);
    expect(root.querySelector("[role=log]")?.children).toHaveLength(2);
    const script = root.querySelector("details")!;
    expect(script.hasAttribute("open")).toBe(true); // stays open as it changes
    expect(script.querySelector("summary")?.textContent).toBe("Ran code · 1 call");
    expect(script.querySelector("pre.code")?.textContent).toContain("invoices_index");
    expect(script.querySelector(".calls a")?.getAttribute("href")).toBe("#/invoices");
    expect(script.querySelector("pre.output")?.textContent).toBe("214\n");
  });

  it("asks in a dialog with the command's title and the arguments, and answers with the echo", async () => {
    const { fake, root, $ } = mount();
    const args = { id: 42, reason: "duplicate" };
    $("textarea").focus();
    fake.emit(
      ...numbered([
        { _tag: "TurnStarted", turn: 1, text: "Delete 42", route: null, note: null },
        {
          _tag: "ConfirmRequested",
          turn: 1,
          confirmId: "c1",
          callId: "k1",
          tool: "customers_delete",
          description: "Delete a customer for good.",
          args,
        },
      ]),
    );
    const dialog = root.querySelector<HTMLElement>("[role=dialog]")!;
    // Focus moves to the question (not to its Accept button, where an Enter would accept).
    expect(root.activeElement).toBe(dialog);
    // People read the command's title; the tool's name and the model's description are the model's.
    expect(dialog.textContent).not.toContain("customers_delete");
    expect(dialog.textContent).not.toContain("Delete a customer for good.");
    expect(dialog.querySelector("pre.args")?.textContent).toBe(JSON.stringify(args, null, 2));
    const labelled = dialog.getAttribute("aria-labelledby")!;
    expect(root.getElementById(labelled)?.textContent).toBe("Delete a customer?");
    // Decline first; a log from before the accept word was logged says Accept.
    const [decline, accept] = [...dialog.querySelectorAll("button")];
    expect([decline?.textContent, accept?.textContent]).toEqual(["Decline", "Accept"]);
    accept!.focus();
    accept!.click();
    expect(accept!.disabled).toBe(true);
    expect(root.activeElement).toBe($("textarea"));
    await settle();
    expect(fake.calls).toEqual([
      { method: "confirm", args: ["c1", true, { tool: "customers_delete", args }] },
    ]);
    fake.emit(
      ...numbered([{ _tag: "ConfirmAnswered", turn: 1, confirmId: "c1", answer: "accepted" }], 3),
    );
    const answered = root.querySelector("[role=dialog]")!;
    expect(answered.querySelector("button")).toBeNull();
    expect(answered.textContent).toContain("Accepted.");
  });

  it("Decline answers false", async () => {
    const { fake, root } = mount();
    fake.emit(
      ...numbered([
        { _tag: "TurnStarted", turn: 1, text: "Delete 7", route: null, note: null },
        {
          _tag: "ConfirmRequested",
          turn: 1,
          confirmId: "c7",
          callId: "k1",
          tool: "customers_delete",
          description: "Delete.",
          args: { id: 7 },
        },
      ]),
    );
    root.querySelector<HTMLButtonElement>("[role=dialog] .decline")!.click();
    await settle();
    expect(fake.calls).toEqual([
      { method: "confirm", args: ["c7", false, { tool: "customers_delete", args: { id: 7 } }] },
    ]);
  });

  it("has a Stop button while busy that calls stop, and shows the stopped and error states", async () => {
    const { fake, $, root } = mount();
    expect($(".stop").hidden).toBe(true);
    fake.emit(
      ...numbered([{ _tag: "TurnStarted", turn: 1, text: "Long one", route: null, note: null }]),
    );
    const stop = $<HTMLButtonElement>(".stop");
    expect(stop.hidden).toBe(false);
    expect(stop.tagName).toBe("BUTTON");
    stop.click();
    await settle();
    expect(fake.calls).toEqual([{ method: "stop", args: [] }]);
    fake.emit(...numbered([{ _tag: "Stopped", turn: 1, partial: "" }], 2));
    expect($(".stopped").textContent).toBe("Stopped.");
    expect(stop.hidden).toBe(true);
    fake.emit(
      ...numbered(
        [
          { _tag: "TurnStarted", turn: 2, text: "Again", route: null, note: null },
          { _tag: "Failed", turn: 2, error: "the model is overloaded" },
        ],
        3,
      ),
    );
    expect(root.querySelector(".item.error")?.textContent).toContain("the model is overloaded");
  });

  it("sends on Enter, keeps a newline on Shift+Enter, and keeps the draft across renders", async () => {
    const { fake, $ } = mount();
    const textarea = $<HTMLTextAreaElement>("textarea");
    textarea.focus();
    textarea.value = "line one";
    textarea.dispatchEvent(
      new KeyboardEvent("keydown", { key: "Enter", shiftKey: true, bubbles: true }),
    );
    expect(fake.calls).toEqual([]);
    textarea.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    await settle();
    expect(fake.calls).toEqual([{ method: "prompt", args: ["line one", "/"] }]);
    expect(textarea.value).toBe("");

    textarea.value = "a draft";
    fake.emit(...numbered(answeredTurn(1, "line one", ["Sure", "."])));
    expect($<HTMLTextAreaElement>("textarea")).toBe(textarea);
    expect(textarea.value).toBe("a draft");
    expect(textarea.getRootNode()).toBe($("textarea").getRootNode());
    expect((textarea.getRootNode() as ShadowRoot).activeElement).toBe(textarea);

    $<HTMLButtonElement>("button[type=submit]").click();
    await settle();
    expect(fake.calls.at(-1)).toEqual({ method: "prompt", args: ["a draft", "/"] });
  });

  it("gives the text back when the host refuses it, and shows why", async () => {
    const fake = fakeClient({ refuse: new Set(["prompt"]) });
    const store = createAssistantStore(fake.client, { open: true });
    const panel = document.createElement("elyra-assistant-panel") as AssistantPanel;
    panel.store = store;
    document.body.append(panel);
    const textarea = panel.shadowRoot!.querySelector("textarea")!;
    textarea.value = "Hello";
    textarea.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    await settle();
    expect(textarea.value).toBe("Hello");
    const problem = panel.shadowRoot!.querySelector<HTMLElement>(".problem")!;
    expect(problem.hidden).toBe(false);
    expect(problem.textContent).toBe("prompt refused");
  });

  it("uses the installed store when given none", () => {
    const fake = fakeClient();
    const uninstall = installAssistant(createAssistantStore(fake.client, { open: true }));
    const panel = document.createElement("elyra-assistant-panel") as AssistantPanel;
    document.body.append(panel);
    fake.emit(...numbered(answeredTurn(1, "Hi", ["Hey"])));
    expect(panel.shadowRoot!.querySelector(".answer")?.textContent).toBe("Hey");
    uninstall();
  });

  it("a panel already on the page takes the store installed after it", () => {
    const panel = document.createElement("elyra-assistant-panel") as AssistantPanel;
    document.body.append(panel);
    expect(panel.store).toBeUndefined();
    const fake = fakeClient();
    const store = createAssistantStore(fake.client, { open: true });
    const uninstall = installAssistant(store);
    expect(panel.store).toBe(store);
    fake.emit(...numbered(answeredTurn(1, "Hi", ["Hey"])));
    expect(panel.shadowRoot!.querySelector(".answer")?.textContent).toBe("Hey");
    uninstall();
  });

  it("clears the log on Reset", () => {
    const { fake, root } = mount();
    fake.emit(...numbered(answeredTurn(1, "Hi", ["Hey"])));
    expect(root.querySelectorAll(".item")).toHaveLength(2);
    fake.emit(...numbered([{ _tag: "Reset", turn: 0 }], 10));
    expect(root.querySelectorAll(".item")).toHaveLength(0);
  });
});
