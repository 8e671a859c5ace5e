// @vitest-environment happy-dom
/**
 * Issue 33, item 6: the panel's list of conversations over a client with
 * threads (held in memory here): the header's button opens it in place of
 * the conversation, titles and times in words, pages, a debounced search
 * with snippets, the archived toggle, open, rename (Enter, Escape), archive,
 * delete after a question, New conversation as a new thread; Escape closes
 * it and gives the focus back. A client without threads gets none of it.
 */
import { type AssistantPanel, createAssistantStore, type ThreadInfo } from "elyra-assistant/ui";
import { afterEach, describe, expect, it } from "vitest";
import { lastUsedWords } from "../../src/adapters/ui/threadWords.ts";
import { fakeClient, until } from "./fixtures.ts";
import { MINUTE, memoryThreads, thread, withThreads } from "./threadFixtures.ts";

const mount = (all: ThreadInfo[] = [], options: { pageSize?: number; threads?: boolean } = {}) => {
  const fake = fakeClient();
  const memory = memoryThreads(all, options.pageSize);
  const threaded = withThreads(fake.client, memory.threads);
  const switched = threaded.switched;
  const client = options.threads === false ? fake.client : threaded.client;
  document.documentElement.lang = "en";
  const store = createAssistantStore(client, { open: true, route: () => "/" });
  const panel = document.createElement("elyra-assistant-panel") as AssistantPanel;
  panel.store = store;
  document.body.append(panel);
  const root = panel.shadowRoot as ShadowRoot;
  const $ = <E extends HTMLElement = HTMLElement>(selector: string) =>
    root.querySelector<E>(selector) as E;
  const $$ = (selector: string) => [...root.querySelectorAll<HTMLElement>(selector)];
  const titles = () => $$("li.thread button.open").map((b) => b.textContent);
  const item = (title: string) =>
    $$("li.thread").find(
      (li) => li.querySelector("button.open")?.textContent === title,
    ) as HTMLElement;
  const key = (target: Element, name: string) =>
    target.dispatchEvent(
      new KeyboardEvent("keydown", { key: name, bubbles: true, composed: true }),
    );
  return { fake, memory, store, panel, root, $, $$, titles, item, key, switched };
};

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

afterEach(() => {
  document.body.replaceChildren();
});

describe("the panel's list of conversations", () => {
  it("has no button when the client has no threads, and New conversation resets as before", async () => {
    const m = mount([], { threads: false });
    expect(m.$("button.threads-button").hidden).toBe(true);
    m.$("button.reset").click();
    await settle();
    expect(m.fake.calls.at(-1)).toEqual({ method: "reset", args: [] });
  });

  it("opens in place of the conversation: names, times in words, previews; Escape closes it and gives the focus back", async () => {
    const m = mount([
      thread("t1", "Ada's limit", 2 * 60 * MINUTE),
      thread("t2", "", 5 * MINUTE, { preview: "Three invoices are overdue." }),
    ]);
    const button = m.$<HTMLButtonElement>("button.threads-button");
    expect(button.hidden).toBe(false);
    expect(button.getAttribute("aria-label")).toBe("Conversations");
    expect(button.getAttribute("aria-expanded")).toBe("false");
    button.click();
    expect(button.getAttribute("aria-expanded")).toBe("true");
    expect(m.$("section.threads").hidden).toBe(false);
    expect(m.root.activeElement).toBe(m.$("input.thread-search"));
    await until(() => m.titles().length === 2);
    // Untitled: the people's word for it; never an id.
    expect(m.titles()).toEqual(["New conversation", "Ada's limit"]);
    expect(m.$("section.threads").textContent).not.toMatch(/\bt[12]\b/);
    const ada = m.item("Ada's limit");
    expect(ada.querySelector("time")?.textContent).toBe("2 hours ago");
    expect(ada.querySelector(".preview")?.textContent).toBe("The answer about Ada's limit.");
    // The one shown now says so.
    expect(ada.querySelector("button.open")?.getAttribute("aria-current")).toBe("true");
    expect(ada.textContent).toContain("shown now");
    expect(m.item("New conversation").querySelector("time")?.textContent).toBe("5 minutes ago");

    m.key(m.$("input.thread-search"), "Escape");
    expect(m.$("section.threads").hidden).toBe(true);
    expect(m.root.activeElement).toBe(button);
    // Only the list closed: the panel stays open.
    expect(m.store.getSnapshot().open).toBe(true);
  });

  it("says times in the page's language", () => {
    const now = Date.now();
    expect(lastUsedWords(now - 10_000, now, "en")).toBe("now");
    expect(lastUsedWords(now - 3 * MINUTE, now, "en")).toBe("3 minutes ago");
    expect(lastUsedWords(now - 30 * 60 * MINUTE, now, "en")).toBe("yesterday");
    expect(lastUsedWords(now - 3 * 60 * MINUTE, now, "de")).toBe("vor 3 Stunden");
    expect(lastUsedWords(Date.UTC(2024, 0, 15, 12), now, "en")).toBe("Jan 15, 2024");
  });

  it("pages with Show more, the keyboard going on from the first new one", async () => {
    const all = Array.from({ length: 5 }, (_, i) =>
      thread(`t${i + 1}`, `Thread ${i + 1}`, i * MINUTE),
    );
    const m = mount(all, { pageSize: 2 });
    m.$("button.threads-button").click();
    await until(() => m.titles().length === 2);
    const more = m.$<HTMLButtonElement>("button.more");
    expect(more.hidden).toBe(false);
    more.click();
    await until(() => m.titles().length === 4);
    expect(m.root.activeElement?.textContent).toBe("Thread 3");
    more.click();
    await until(() => m.titles().length === 5);
    expect(more.hidden).toBe(true);
    expect(m.memory.asked.filter(([method]) => method === "list")).toEqual([
      ["list", undefined],
      ["list", "2"],
      ["list", "4"],
    ]);
  });

  it("searches once the typing stops, showing the words around the match", async () => {
    const m = mount([thread("t1", "Ada's limit", MINUTE), thread("t2", "Invoices", 2 * MINUTE)]);
    m.$("button.threads-button").click();
    await until(() => m.titles().length === 2);
    const search = m.$<HTMLInputElement>("input.thread-search");
    for (const text of ["a", "ad", "ada"]) {
      search.value = text;
      search.dispatchEvent(new Event("input"));
    }
    await until(() => m.titles().length === 1, 2_000);
    expect(m.memory.asked.filter(([method]) => method === "search")).toEqual([["search", "ada"]]);
    expect(m.titles()).toEqual(["Ada's limit"]);
    expect(m.item("Ada's limit").querySelector(".preview")?.textContent).toBe(
      "…The answer about Ada's limit.…",
    );
    expect(m.$("p.threads-status").textContent).toBe("1 conversation found.");
    search.value = "nothing like it";
    m.key(search, "Enter");
    await until(() => m.titles().length === 0);
    expect(m.$("p.threads-status").textContent).toBe("Nothing found.");
  });

  it("opens a thread: the panel shows it, from the start of its log, and the text box has the focus", async () => {
    const m = mount([thread("t1", "Ada's limit", MINUTE), thread("t2", "Invoices", 2 * MINUTE)]);
    m.$("button.threads-button").click();
    await until(() => m.titles().length === 2);
    (m.item("Invoices").querySelector("button.open") as HTMLElement).click();
    expect(m.switched).toEqual(["t2"]);
    expect(m.store.thread?.()).toBe("t2");
    expect(m.$("section.threads").hidden).toBe(true);
    expect(m.root.activeElement).toBe(m.$("textarea"));
    expect(m.fake.streams.map((s) => [s.fromSeq, s.open])).toEqual([
      [0, false],
      [0, true],
    ]);
  });

  it("renames in place: Enter saves, Escape cancels", async () => {
    const m = mount([thread("t1", "Ada's limit", MINUTE)]);
    m.$("button.threads-button").click();
    await until(() => m.titles().length === 1);
    (m.item("Ada's limit").querySelector("button.rename") as HTMLElement).click();
    let field = m.$<HTMLInputElement>("input.rename-field");
    expect(m.root.activeElement).toBe(field);
    expect(field.value).toBe("Ada's limit");
    expect(field.getAttribute("aria-label")).toBe("New name");
    field.value = "Not kept";
    m.key(field, "Escape");
    expect(m.$("input.rename-field")).toBeNull();
    expect(m.titles()).toEqual(["Ada's limit"]);
    expect(m.root.activeElement?.className).toBe("rename");
    expect(m.$("section.threads").hidden).toBe(false);

    (m.item("Ada's limit").querySelector("button.rename") as HTMLElement).click();
    field = m.$<HTMLInputElement>("input.rename-field");
    field.value = "Credit limits";
    m.key(field, "Enter");
    await until(() => m.titles()[0] === "Credit limits");
    expect(m.root.activeElement?.textContent).toBe("Credit limits");
    expect(m.$("p.threads-status").textContent).toBe("Renamed.");
    // Emptied: its first question's words again, as the host says.
    (m.item("Credit limits").querySelector("button.rename") as HTMLElement).click();
    field = m.$<HTMLInputElement>("input.rename-field");
    field.value = "  ";
    m.key(field, "Enter");
    await until(() => m.titles()[0] === "First question");
  });

  it("archives, lists the archived ones, and brings one back", async () => {
    const m = mount([thread("t1", "Ada's limit", MINUTE), thread("t2", "Invoices", 2 * MINUTE)]);
    m.$("button.threads-button").click();
    await until(() => m.titles().length === 2);
    (m.item("Ada's limit").querySelector("button.archive") as HTMLElement).click();
    await until(() => m.titles().length === 1);
    expect(m.$("p.threads-status").textContent).toBe("Archived.");
    expect(m.root.activeElement?.textContent).toBe("Invoices");
    const toggle = m.$("button.archived-toggle");
    toggle.click();
    expect(toggle.getAttribute("aria-pressed")).toBe("true");
    expect(m.$("section.threads h3").textContent).toBe("Archived conversations");
    await until(() => m.titles().length === 1);
    expect(m.titles()).toEqual(["Ada's limit"]);
    const back = m.item("Ada's limit").querySelector("button.archive") as HTMLElement;
    expect(back.textContent).toBe("Bring back");
    back.click();
    await until(() => m.titles().length === 0);
    expect(m.$("p.threads-status").textContent).toBe("Brought back. No archived conversations.");
    toggle.click();
    await until(() => m.titles().length === 2);
  });

  it("deletes after asking, in the panel's dialog style; the one shown gives way to a new one", async () => {
    const m = mount([thread("t1", "Ada's limit", MINUTE), thread("t2", "Invoices", 2 * MINUTE)]);
    m.$("button.threads-button").click();
    await until(() => m.titles().length === 2);
    const ask = () => (m.item("Ada's limit").querySelector("button.delete") as HTMLElement).click();
    ask();
    let dialog = m.$("li.thread .confirm[role=dialog]");
    expect(m.root.activeElement).toBe(dialog);
    expect(dialog.classList.contains("destructive")).toBe(true);
    expect(dialog.textContent).toContain(
      "Delete this conversation for good?This cannot be undone.",
    );
    m.key(dialog, "Escape");
    expect(m.$("li.thread .confirm")).toBeNull();
    expect(m.root.activeElement?.className).toBe("delete");
    expect(m.$("section.threads").hidden).toBe(false);
    ask();
    (m.$("li.thread .confirm button.decline") as HTMLElement).click();
    expect(m.$("li.thread .confirm")).toBeNull();
    ask();
    dialog = m.$("li.thread .confirm[role=dialog]");
    (dialog.querySelector("button.accept") as HTMLElement).click();
    await until(() => m.titles().length === 1);
    expect(m.memory.asked).toContainEqual(["delete", "t1"]);
    expect(m.$("p.threads-status").textContent).toBe("Deleted for good.");
    expect(m.root.activeElement?.textContent).toBe("Invoices");
    // t1 was the one shown: a new conversation took its place.
    expect(m.switched).toEqual([undefined]);
    expect(m.store.thread?.()).toBe("fresh1");
  });

  it("says in words what failed, and the question stays", async () => {
    const m = mount([thread("t1", "Ada's limit", MINUTE)]);
    m.$("button.threads-button").click();
    await until(() => m.titles().length === 1);
    m.memory.refuse("delete");
    (m.item("Ada's limit").querySelector("button.delete") as HTMLElement).click();
    (m.$("li.thread .confirm button.accept") as HTMLElement).click();
    await until(() => !m.$("p.threads-problem").hidden);
    expect(m.$("p.threads-problem").textContent).toBe(
      "It could not be deleted: that conversation is no longer there.",
    );
    expect(m.$("li.thread .confirm button.accept").getAttribute("aria-disabled")).toBe("false");
  });

  it("New conversation, in the list or the header, starts a new thread instead of resetting this one", async () => {
    const m = mount([thread("t1", "Ada's limit", MINUTE)]);
    m.$("button.threads-button").click();
    await until(() => m.titles().length === 1);
    m.$("button.new-thread").click();
    expect(m.switched).toEqual([undefined]);
    expect(m.$("section.threads").hidden).toBe(true);
    expect(m.root.activeElement).toBe(m.$("textarea"));
    m.$("button.reset").click();
    expect(m.switched).toEqual([undefined, undefined]);
    expect(m.store.thread?.()).toBe("fresh2");
    expect(m.fake.calls.some((c) => c.method === "reset")).toBe(false);
  });

  it("Up and Down move between the threads", async () => {
    const m = mount([
      thread("t1", "One", MINUTE),
      thread("t2", "Two", 2 * MINUTE),
      thread("t3", "Three", 3 * MINUTE),
    ]);
    m.$("button.threads-button").click();
    await until(() => m.titles().length === 3);
    const first = m.item("One").querySelector("button.open") as HTMLElement;
    first.focus();
    m.key(first, "ArrowDown");
    expect(m.root.activeElement?.textContent).toBe("Two");
    m.key(m.item("Two").querySelector("button.rename") as HTMLElement, "ArrowDown");
    expect(m.root.activeElement?.textContent).toBe("Three");
    m.key(m.root.activeElement as HTMLElement, "Home");
    expect(m.root.activeElement?.textContent).toBe("One");
    m.key(m.root.activeElement as HTMLElement, "End");
    expect(m.root.activeElement?.textContent).toBe("Three");
    m.key(m.root.activeElement as HTMLElement, "ArrowUp");
    expect(m.root.activeElement?.textContent).toBe("Two");
  });

  it("a question that arrives while the list is open closes it: it is never hidden behind the list", async () => {
    const m = mount([thread("t1", "Ada's limit", MINUTE)]);
    m.$<HTMLButtonElement>("button.threads-button").click();
    await until(() => m.titles().length === 1);
    expect(m.$("section.threads").hidden).toBe(false);
    m.fake.emit(
      { _tag: "TurnStarted", seq: 1, at: 1, turn: 1, text: "Delete 42", route: null, note: null },
      {
        _tag: "ConfirmRequested",
        seq: 2,
        at: 2,
        turn: 1,
        confirmId: "c1",
        callId: "k1",
        tool: "customers_delete",
        description: "Delete a customer for good.",
        args: { id: 42 },
      },
    );
    await until(() => m.$("section.threads").hidden);
    expect(m.root.querySelector("[role=dialog]")).not.toBeNull();
  });
});
