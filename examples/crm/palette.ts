/**
 * The CRM's command palette: ⌘K (Ctrl+K elsewhere) anywhere opens a small
 * modal dialog over the CRM's pages and commands. A combobox filters a
 * listbox (`aria-activedescendant`): the arrow keys choose, Enter runs,
 * Escape closes and puts the focus back where it was. When nothing matches,
 * `assistantPaletteEntry` offers "Ask the assistant: …", which opens the
 * panel and sends what was typed. Everything shown is text, never HTML.
 */
import { type AssistantStore, assistantPaletteEntry, openAssistant } from "elyra-assistant/ui";
import { el } from "./dom.ts";

/** One line of the palette. */
export interface PaletteItem {
  /** Unique among the items shown: the option's element id is made from it. */
  readonly id: string;
  readonly label: string;
  /** What it is, shown beside it: Page, Command, Assistant. */
  readonly kind: string;
  /** More words it is found by, beside its label's. */
  readonly words?: string;
  /** Runs it; the palette is already closed. */
  readonly run: () => void;
}

const wordsOf = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "");

/**
 * The items `query` matches: each of its words begins a word of the item's
 * label or words. An empty query matches them all, in their order.
 */
export const matching = (
  items: ReadonlyArray<PaletteItem>,
  query: string,
): ReadonlyArray<PaletteItem> => {
  const asked = wordsOf(query);
  return items.filter((item) => {
    const known = wordsOf(`${item.label} ${item.words ?? ""}`);
    return asked.every((word) => known.some((k) => k.startsWith(word)));
  });
};

/** A record the query names by number: `INV-0042` or `invoice 42`, `customer 42` or `#42`. */
const recordNamed = (query: string, go: (route: string) => void): PaletteItem | undefined => {
  const text = query.trim();
  const invoice = /^(?:inv-?|invoice\s*#?\s*)0*(\d{1,9})$/i.exec(text);
  if (invoice) {
    const id = Number(invoice[1]);
    const number = `INV-${String(id).padStart(4, "0")}`;
    return {
      id: `invoice-${id}`,
      label: `Invoice ${number}`,
      kind: "Page",
      run: () => go(`/invoices/${id}`),
    };
  }
  const customer = /^(?:customer\s*#?\s*|#)(\d{1,9})$/i.exec(text);
  if (customer) {
    const id = Number(customer[1]);
    return {
      id: `customer-${id}`,
      label: `Customer #${id}`,
      kind: "Page",
      run: () => go(`/customers/${id}`),
    };
  }
  return undefined;
};

const STYLE = `
.palette-open { display: inline-flex; gap: .5rem; align-items: center; font: inherit; color: #e5e7eb; background: #374151; border: 1px solid #4b5563; border-radius: 6px; padding: .25rem .6rem; cursor: pointer; }
.palette-open kbd { font: inherit; font-size: .8em; color: #d1d5db; border: 1px solid #6b7280; border-radius: 4px; padding: 0 .3rem; }
/* The shortcut's hint only where there is a keyboard to press it: not on a touch screen or a phone's width. */
@media (max-width: 600px), (hover: none), (pointer: coarse) { .palette-open kbd { display: none; } }
dialog.palette { padding: 0; width: min(36rem, calc(100vw - 2rem)); margin: 12vh auto auto; border: 1px solid #d1d5db; border-radius: 10px; box-shadow: 0 20px 50px rgb(0 0 0 / .25); color: #111827; }
dialog.palette::backdrop { background: rgb(17 24 39 / .35); }
dialog.palette input { display: block; width: 100%; border: 0; border-bottom: 1px solid #e5e7eb; padding: .8rem 1rem; font: inherit; font-size: 1.05rem; outline: none; }
dialog.palette input:focus-visible { box-shadow: inset 0 -2px 0 #4f46e5; }
dialog.palette ul { list-style: none; margin: 0; padding: .4rem; max-height: 50vh; overflow: auto; }
dialog.palette li { display: flex; justify-content: space-between; gap: 1rem; padding: .45rem .7rem; border-radius: 6px; cursor: pointer; }
dialog.palette li[aria-selected="true"] { background: #eef2ff; color: #3730a3; outline: 2px solid #4f46e5; outline-offset: -2px; }
dialog.palette li .label { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
dialog.palette li .kind { color: #6b7280; font-size: .85em; flex: none; }
dialog.palette .status { margin: 0; padding: .4rem 1rem .6rem; color: #6b7280; font-size: .85em; }
dialog.palette .sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
`;

/** The element that has the focus, inside shadow roots too (the panel's text box, not the panel). */
const focused = (): HTMLElement | null => {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active instanceof HTMLElement ? active : null;
};

/** ⌘K or Ctrl+K, on any layout: `k` where the keyboard types Latin letters, else the K key. */
const isPaletteKey = (event: KeyboardEvent): boolean =>
  (event.metaKey || event.ctrlKey) &&
  !event.altKey &&
  !event.shiftKey &&
  !event.isComposing &&
  (event.key.toLowerCase() === "k" || (event.code === "KeyK" && !/^[a-z]$/i.test(event.key)));

/**
 * Puts the palette on the page: ⌘K / Ctrl+K and a button in the header open
 * it. Its items are the CRM's pages and the assistant's commands, over
 * `store` (the page's installed assistant).
 */
export const installPalette = (store: AssistantStore): void => {
  const mac = /Mac|iPhone|iPad/.test(navigator.platform);
  document.head.append(el("style", {}, STYLE));
  const main = () => document.getElementById("page");
  const panel = () => document.querySelector<HTMLElement>("elyra-assistant-panel");

  const input = el("input", {
    type: "text",
    role: "combobox",
    "aria-label": "Go to a page, run a command, or ask the assistant",
    "aria-expanded": "true",
    "aria-controls": "crm-palette-list",
    "aria-autocomplete": "list",
    autocomplete: "off",
    spellcheck: "false",
    placeholder: "Go to, do, or ask…",
  });
  const list = el("ul", {
    role: "listbox",
    id: "crm-palette-list",
    "aria-label": "Pages and commands",
  });
  const status = el("p", { class: "status", role: "status" });
  const dialog = el(
    "dialog",
    { class: "palette", "aria-label": "Command palette" },
    input,
    list,
    status,
  );
  document.body.append(dialog);

  const opener = el(
    "button",
    {
      type: "button",
      class: "palette-open",
      "aria-keyshortcuts": "Control+K Meta+K",
      "aria-haspopup": "dialog",
    },
    "Go to…",
    el("kbd", {}, mac ? "⌘K" : "Ctrl K"),
  );
  document.querySelector("header nav")?.after(opener);

  /** Where the focus was before the palette opened: it goes back there unless an item moves it. */
  let before: HTMLElement | null = null;
  let restore = true;
  let shown: ReadonlyArray<PaletteItem> = [];
  let active = 0;

  const close = (restoreFocus: boolean) => {
    restore = restoreFocus;
    if (dialog.open) dialog.close();
  };
  dialog.addEventListener("close", () => {
    if (!restore) return;
    const back = before?.isConnected ? before : main();
    back?.focus();
  });

  const go = (route: string) => {
    // The router shows the page and puts the focus on it; the same page again is only focused.
    if (location.hash === `#${route}`) main()?.focus();
    else location.hash = route;
  };
  const focusPanel = () => panel()?.focus();

  const items = (query: string): ReadonlyArray<PaletteItem> => {
    const open = store.getSnapshot().open;
    const fixed: PaletteItem[] = [
      {
        id: "customers",
        label: "Customers",
        kind: "Page",
        words: "clients people contacts go to",
        run: () => go("/customers"),
      },
      {
        id: "invoices",
        label: "Invoices",
        kind: "Page",
        words: "bills billing go to",
        run: () => go("/invoices"),
      },
      {
        id: "assistant-open",
        label: open ? "Go to the assistant" : "Open the assistant",
        kind: "Command",
        words: "open panel chat show",
        run: () => {
          void openAssistant();
          focusPanel();
        },
      },
      ...(open
        ? [
            {
              id: "assistant-close",
              label: "Close the assistant",
              kind: "Command",
              words: "panel chat hide",
              run: () => {
                store.close();
                main()?.focus();
              },
            },
          ]
        : []),
      {
        id: "assistant-reset",
        label: "New conversation",
        kind: "Command",
        words: "assistant reset clear start over",
        run: () => {
          // A new thread: the conversation left stays in the panel's list of conversations.
          void store.open().then(() => {
            if (store.switchThread === undefined) return store.reset();
            store.switchThread();
          });
          focusPanel();
        },
      },
    ];
    const record = recordNamed(query, go);
    return [...(record === undefined ? [] : [record]), ...matching(fixed, query)];
  };

  const optionId = (item: PaletteItem) => `crm-palette-${item.id}`;

  const render = () => {
    const query = input.value;
    const found = items(query);
    const ask = assistantPaletteEntry(query, found);
    shown =
      ask === undefined
        ? found
        : [
            {
              id: ask.id,
              label: ask.label,
              kind: "Assistant",
              // The panel opens at once (the prompt is sent after): its text box takes the focus.
              run: () => {
                void ask.run();
                focusPanel();
              },
            },
          ];
    active = Math.min(active, Math.max(0, shown.length - 1));
    list.replaceChildren(
      ...shown.map((item, index) => {
        const option = el(
          "li",
          { role: "option", id: optionId(item), "aria-selected": String(index === active) },
          el("span", { class: "label" }, item.label),
          el("span", { class: "sr" }, ", "),
          el("span", { class: "kind" }, item.kind),
        );
        if (ask !== undefined) option.title = ask.query;
        option.addEventListener("mousemove", () => {
          if (index !== active) select(index);
        });
        option.addEventListener("click", () => choose(index));
        return option;
      }),
    );
    const current = shown[active];
    if (current === undefined) input.removeAttribute("aria-activedescendant");
    else input.setAttribute("aria-activedescendant", optionId(current));
    status.textContent =
      ask !== undefined
        ? "No page or command matches. Enter asks the assistant."
        : `${shown.length} ${shown.length === 1 ? "match" : "matches"}. ↑ ↓ to choose, Enter to go, Escape to close.`;
  };

  const select = (index: number) => {
    const options = list.children;
    options[active]?.setAttribute("aria-selected", "false");
    active = index;
    const option = options[active];
    option?.setAttribute("aria-selected", "true");
    option?.scrollIntoView({ block: "nearest" });
    if (option !== undefined) input.setAttribute("aria-activedescendant", option.id);
  };

  const choose = (index: number) => {
    const item = shown[index];
    if (item === undefined) return;
    close(false);
    item.run();
  };

  input.addEventListener("input", () => {
    active = 0;
    render();
  });
  input.addEventListener("keydown", (event) => {
    if (event.isComposing) return;
    const count = shown.length;
    if (event.key === "ArrowDown" && count > 0) select((active + 1) % count);
    else if (event.key === "ArrowUp" && count > 0) select((active - 1 + count) % count);
    else if (event.key === "Enter") choose(active);
    else return;
    event.preventDefault();
  });
  // A click on the backdrop (the dialog itself, outside its content) closes it.
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) close(true);
  });

  const open = () => {
    before = focused();
    restore = true;
    input.value = "";
    active = 0;
    render();
    dialog.showModal();
    input.focus();
  };

  document.addEventListener("keydown", (event) => {
    if (!isPaletteKey(event)) return;
    event.preventDefault();
    if (dialog.open) close(true);
    else open();
  });
  opener.addEventListener("click", open);
};
