/**
 * The example CRM in the browser, in plain DOM: hash routes for customers and
 * invoices, each page showing live queries (so a change the assistant makes
 * shows at once), list rows the user can select (the assistant is told), and
 * the assistant's panel docked at the side. Data only ever becomes text
 * (textContent, text nodes), never HTML.
 */

import {
  type AssistantError,
  type AssistantPanel,
  type AssistantSuggestion,
  assistantClient,
  createAssistantStore,
  installAssistant,
  type LiveResult,
  openAssistant,
} from "elyra-assistant/ui";
import { type Child, el } from "./dom.ts";
import { installPalette } from "./palette.ts";
import type { CustomerPage, CustomerRecord, InvoicePage, InvoiceRecord } from "./sqliteCommands.ts";

// ---- The assistant -------------------------------------------------------

/** Where the tab keeps the id of the thread it shows. */
const CLIENT_KEY = "elyra-crm-client";

/** One window per browser tab: a reload keeps the id, so the conversation replays. */
const clientId = (): string => {
  const known = sessionStorage.getItem(CLIENT_KEY);
  if (known !== null && /^[A-Za-z0-9_-]{1,128}$/.test(known)) return known;
  const id = crypto.randomUUID();
  sessionStorage.setItem(CLIENT_KEY, id);
  return id;
};

/** The route the user is on: `#/customers/42` → `/customers/42`. */
const currentRoute = (): string =>
  location.hash.startsWith("#/") ? location.hash.slice(1) : "/customers";

const token = document.querySelector<HTMLMetaElement>('meta[name="elyra-token"]')?.content ?? "";
const client = assistantClient({ baseUrl: "/__assistant", token, clientId: clientId() });
// Open beside the page on a desktop; on a phone it would cover the page: it opens from the header.
const store = createAssistantStore(client, {
  route: currentRoute,
  // Another thread shown (from the panel's list, or a new conversation): a reload shows it again.
  onThread: (id) => sessionStorage.setItem(CLIENT_KEY, id),
  open: !window.matchMedia("(max-width: 600px)").matches,
});
/**
 * What the empty panel offers on each page: about the customer or invoice
 * shown, else about the list. Set on the panel as the route changes.
 */
const suggestionsFor = (route: string): ReadonlyArray<AssistantSuggestion> => {
  if (/^\/customers\/\d+$/.test(route))
    return [
      "Which of their invoices are overdue?",
      "Set their credit limit to 20 000",
      // Put in the text box for the amount to be typed.
      { label: "Bill them…", prompt: "Bill them ", send: false },
    ];
  if (/^\/invoices\/\d+$/.test(route))
    return ["Which invoices are overdue?", "Delete this invoice"];
  if (route.startsWith("/invoices"))
    return ["Which invoices are overdue?", "Which invoices have no project?"];
  return [
    "Which invoices are overdue?",
    "Find Hopper",
    { label: "Bill a customer…", prompt: "Bill customer ", send: false },
  ];
};
installAssistant(store, {
  greeting:
    "Hello, Ada. Ask about your customers and invoices, or ask me to change them: I ask you first before I delete or bill anything.",
  suggestions: suggestionsFor(currentRoute()),
});
const panel = document.querySelector<AssistantPanel>("elyra-assistant-panel");
if (panel !== null) panel.store = store;
// The header's button opens the panel and puts the cursor in its text box.
document.getElementById("ask")?.addEventListener("click", () => {
  void openAssistant();
  document.querySelector<HTMLElement>("elyra-assistant-panel")?.focus();
});
// ⌘K / Ctrl+K: the pages and commands, or the assistant when nothing matches.
installPalette(store);

// ---- DOM helpers: text only ----------------------------------------------

const money = new Intl.NumberFormat("en-GB", { style: "currency", currency: "EUR" });
const euros = (amount: number) => money.format(amount);

const link = (href: string, text: string) => el("a", { href }, text);

/** Buttons that open the assistant with a prompt. */
const asks = (...prompts: string[]) =>
  el(
    "div",
    { class: "asks", "aria-label": "Ask the assistant" },
    ...prompts.map((prompt) => {
      const button = el("button", { type: "button" }, prompt);
      button.addEventListener("click", () => void openAssistant(prompt));
      return button;
    }),
  );

/**
 * Why a record's page shows no record, in words: it is gone (deleted, or
 * never there), or it could not be read just now. The query's own error is
 * for the developer, not the page.
 */
const recordMissing = (noun: "customer" | "invoice", id: number, error: string) =>
  new RegExp(`^no ${noun} has id`).test(error)
    ? `There is no ${noun} ${id}. It may have been deleted.`
    : `This ${noun} could not be shown just now. Try again in a moment.`;

/** A line that says why a list or a record cannot be shown. */
const problemOf = (error: AssistantError | string) =>
  el("p", { class: "missing", role: "status" }, typeof error === "string" ? error : error.message);

const statusCell = (status: InvoiceRecord["status"]) =>
  el("td", { class: `status-${status}` }, status);

/** The previous/next buttons and where the list is. */
const pager = (
  result: { readonly page: number; readonly pages: number; readonly total: number },
  noun: string,
  go: (page: number) => void,
) => {
  const previous = el("button", { type: "button" }, "‹ Previous");
  const next = el("button", { type: "button" }, "Next ›");
  previous.disabled = result.page <= 1;
  next.disabled = result.page >= result.pages;
  previous.addEventListener("click", () => go(result.page - 1));
  next.addEventListener("click", () => go(result.page + 1));
  const count = `${result.total} ${noun}`;
  // Past the last page (the list shrank under it): back to the last one.
  if (result.page > result.pages) queueMicrotask(() => go(result.pages));
  return result.pages <= 1
    ? el("div", { class: "pager" }, count)
    : el(
        "div",
        { class: "pager" },
        previous,
        `Page ${Math.min(result.page, result.pages)} of ${result.pages} · ${count}`,
        next,
      );
};

/** Flashes the elements whose text changed since the last render (an update arrived). */
const flashChanges = (before: Map<string, string>, fields: Map<string, HTMLElement>) => {
  for (const [key, node] of fields) {
    const was = before.get(key);
    if (was !== undefined && was !== node.textContent) node.classList.add("updated");
    before.set(key, node.textContent ?? "");
  }
};

// ---- Live queries and selections -------------------------------------------

/** One live query a page holds at a time: opening the next closes the last. */
const liveSlot = () => {
  let close: (() => void) | undefined;
  return {
    open: (
      command: string,
      args: unknown,
      onResult: (result: LiveResult) => void,
      onError: (e: AssistantError) => void,
    ) => {
      close?.();
      close = client.live(command, args, onResult, onError);
    },
    close: () => {
      close?.();
      close = undefined;
    },
  };
};

/** The ids selected in a list, told to the assistant as they change. */
const selection = (kind: string, onChange: () => void) => {
  const ids = new Set<number>();
  const tell = () => {
    void store.selected(kind, [...ids]);
    onChange();
  };
  return {
    ids,
    has: (id: number) => ids.has(id),
    set: (id: number, on: boolean) => {
      if (on) ids.add(id);
      else ids.delete(id);
      tell();
    },
    setAll: (all: ReadonlyArray<number>, on: boolean) => {
      for (const id of all)
        if (on) ids.add(id);
        else ids.delete(id);
      tell();
    },
    clear: () => {
      if (ids.size === 0) return;
      ids.clear();
      tell();
    },
  };
};

type Page = (main: HTMLElement) => () => void;

/** The bar above a list: how many are selected, and what to do with them. */
const selectionBar = (noun: string, count: () => number, clear: () => void) => {
  const bar = el("div", { class: "selection", "aria-live": "polite" });
  const render = () => {
    const n = count();
    if (n === 0) {
      bar.replaceChildren();
      return;
    }
    const ask = el("button", { type: "button" }, "Ask about them");
    ask.addEventListener("click", () => void openAssistant());
    const none = el("button", { type: "button" }, "Clear");
    none.addEventListener("click", clear);
    bar.replaceChildren(
      `${n} ${noun}${n === 1 ? "" : "s"} selected (the assistant knows)`,
      ask,
      none,
    );
  };
  return { bar, render };
};

/** A checkbox with a label. */
const toggle = (label: string, onChange: (on: boolean) => void) => {
  const box = el("input", { type: "checkbox" });
  box.addEventListener("change", () => onChange(box.checked));
  return el("label", {}, box, ` ${label}`);
};

/** A search field that reports after the user pauses typing. */
const searchField = (label: string, onSearch: (text: string) => void) => {
  const input = el("input", { type: "search", "aria-label": label, placeholder: label });
  let timer: ReturnType<typeof setTimeout> | undefined;
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => onSearch(input.value.trim()), 250);
  });
  return input;
};

/**
 * A checkbox for each row shown and one for all of them, kept in step with
 * the selection in place (no re-render, so focus stays where it is).
 */
const checkboxes = (
  chosen: ReturnType<typeof selection>,
  ids: ReadonlyArray<number>,
  allLabel: string,
) => {
  const boxes = new Map<number, HTMLInputElement>();
  const all = el("input", { type: "checkbox", "aria-label": allLabel });
  const sync = () => {
    all.checked = ids.length > 0 && ids.every(chosen.has);
    all.indeterminate = !all.checked && ids.some(chosen.has);
    for (const [id, box] of boxes) {
      box.checked = chosen.has(id);
      box.closest("tr")?.classList.toggle("selected", box.checked);
    }
  };
  all.addEventListener("change", () => {
    chosen.setAll(ids, all.checked);
    sync();
  });
  const box = (id: number, label: string) => {
    const one = el("input", { type: "checkbox", "aria-label": label });
    one.addEventListener("change", () => {
      chosen.set(id, one.checked);
      sync();
    });
    boxes.set(id, one);
    return one;
  };
  return { all, box, sync };
};

/**
 * A list page's live query of rows that can be selected: the query, the
 * selection and its bar, kept in step. A change of query clears the selection.
 */
const selectableList = <T>(options: {
  readonly kind: string;
  readonly singular: string;
  readonly command: string;
  readonly args: () => Record<string, unknown>;
  /** The page's nodes for a result; `select` makes the row checkboxes. */
  readonly render: (
    value: T,
    select: (ids: ReadonlyArray<number>, label: string) => ReturnType<typeof checkboxes>,
  ) => Node[];
}) => {
  const slot = liveSlot();
  const chosen = selection(options.kind, () => bar.render());
  // The checkboxes shown now, kept in step when the selection is cleared from the bar.
  let sync = () => {};
  const bar = selectionBar(
    options.singular,
    () => chosen.ids.size,
    () => {
      chosen.clear();
      sync();
    },
  );
  const list = el("div");
  const show = (result: LiveResult) => {
    if (result._tag === "Failed") return list.replaceChildren(problemOf(result.error));
    let shown: ReturnType<typeof checkboxes> | undefined;
    const nodes = options.render(result.value as T, (ids, label) => {
      shown = checkboxes(chosen, ids, label);
      return shown;
    });
    if (shown !== undefined) {
      shown.sync();
      sync = shown.sync;
    }
    list.replaceChildren(...nodes);
  };
  const open = () =>
    slot.open(options.command, options.args(), show, (error) =>
      list.replaceChildren(problemOf(error)),
    );
  const change = (how: () => void) => {
    how();
    chosen.clear();
    open();
  };
  const close = () => {
    slot.close();
    chosen.clear();
  };
  return { bar: bar.bar, list, open, change, close };
};

// ---- Pages ---------------------------------------------------------------------

const customersPage: Page = (main) => {
  const query: { search: string; hasOverdue: boolean; page: number } = {
    search: "",
    hasOverdue: false,
    page: 1,
  };
  const { bar, list, open, change, close } = selectableList<CustomerPage>({
    kind: "customers",
    singular: "customer",
    command: "customers_index",
    args: () => ({
      ...(query.search ? { search: query.search } : {}),
      ...(query.hasOverdue ? { has_overdue: true } : {}),
      page: query.page,
    }),
    render: (page, select) => render(page, select),
  });
  const render = (
    page: CustomerPage,
    select: (ids: ReadonlyArray<number>, label: string) => ReturnType<typeof checkboxes>,
  ): Node[] => {
    const boxes = select(
      page.customers.map((c) => c.id),
      "Select all customers shown",
    );
    const rows = page.customers.map((c: CustomerRecord) =>
      el(
        "tr",
        {},
        el("td", {}, boxes.box(c.id, `Select ${c.name}`)),
        el("td", {}, link(`#/customers/${c.id}`, c.name)),
        el("td", {}, c.company),
        el("td", {}, c.email),
        el("td", { class: "num" }, euros(c.credit_limit)),
        el("td", { class: "num" }, euros(c.balance)),
        el(
          "td",
          { class: "num" },
          c.overdue_invoices > 0
            ? el("span", { class: "status-overdue" }, c.overdue_invoices)
            : "0",
        ),
      ),
    );
    const table = el(
      "table",
      {},
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", {}, boxes.all),
          el("th", {}, "Name"),
          el("th", {}, "Company"),
          el("th", {}, "Email"),
          el("th", { class: "num" }, "Credit limit"),
          el("th", { class: "num" }, "Unpaid"),
          el("th", { class: "num" }, "Overdue"),
        ),
      ),
      el("tbody", {}, ...rows),
    );
    return [
      table,
      ...(page.total === 0 ? [el("p", {}, "No customer matches.")] : []),
      pager(page, page.total === 1 ? "customer" : "customers", (p) =>
        change(() => (query.page = p)),
      ),
    ];
  };

  main.replaceChildren(
    el("h1", {}, "Customers"),
    el(
      "form",
      { class: "filters", role: "search" },
      searchField("Search name, email or company", (text) =>
        change(() => {
          query.search = text;
          query.page = 1;
        }),
      ),
      toggle("Only with overdue invoices", (on) =>
        change(() => {
          query.hasOverdue = on;
          query.page = 1;
        }),
      ),
    ),
    asks("Which invoices are overdue?", "Find Hopper"),
    bar,
    list,
  );
  open();
  return close;
};

/** Invoices as a table: with a checkbox a row when `select` is given, without the customer column on a customer's page. */
const invoiceTable = (
  invoices: ReadonlyArray<InvoiceRecord>,
  options: { readonly select?: ReturnType<typeof checkboxes>; readonly customer?: boolean } = {},
) =>
  el(
    "table",
    {},
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        options.select ? el("th", {}, options.select.all) : null,
        el("th", {}, "Invoice"),
        options.customer === false ? null : el("th", {}, "Customer"),
        el("th", {}, "Project"),
        el("th", { class: "num" }, "Amount"),
        el("th", {}, "Issued"),
        el("th", {}, "Due"),
        el("th", {}, "Status"),
      ),
    ),
    el(
      "tbody",
      {},
      ...invoices.map((i) =>
        el(
          "tr",
          {},
          options.select ? el("td", {}, options.select.box(i.id, `Select ${i.number}`)) : null,
          el("td", {}, link(`#/invoices/${i.id}`, i.number)),
          options.customer === false
            ? null
            : el("td", {}, link(`#/customers/${i.customer_id}`, i.customer_name)),
          el("td", {}, i.project ?? "—"),
          el("td", { class: "num" }, euros(i.amount)),
          el("td", {}, i.issued_on),
          el("td", {}, i.due_on),
          statusCell(i.status),
        ),
      ),
    ),
  );

const invoicesPage: Page = (main) => {
  const query = { search: "", overdue: false, unpaid: false, withoutProject: false, page: 1 };
  const { bar, list, open, change, close } = selectableList<InvoicePage>({
    kind: "invoices",
    singular: "invoice",
    command: "invoices_index",
    args: () => ({
      ...(query.search ? { search: query.search } : {}),
      ...(query.overdue ? { overdue: true } : {}),
      ...(query.unpaid ? { paid: false } : {}),
      ...(query.withoutProject ? { without_project: true } : {}),
      page: query.page,
    }),
    render: (page, select) => render(page, select),
  });
  const render = (
    page: InvoicePage,
    select: (ids: ReadonlyArray<number>, label: string) => ReturnType<typeof checkboxes>,
  ): Node[] => {
    const boxes = select(
      page.invoices.map((i) => i.id),
      "Select all invoices shown",
    );
    const table = invoiceTable(page.invoices, { select: boxes });
    return [
      el(
        "p",
        {},
        `${page.total} ${page.total === 1 ? "invoice" : "invoices"}, ${euros(page.total_amount)} in all.`,
      ),
      table,
      pager(page, page.total === 1 ? "invoice" : "invoices", (p) => change(() => (query.page = p))),
    ];
  };
  const filter = (label: string, key: "overdue" | "unpaid" | "withoutProject") =>
    toggle(label, (on) =>
      change(() => {
        query[key] = on;
        query.page = 1;
      }),
    );
  main.replaceChildren(
    el("h1", {}, "Invoices"),
    el(
      "form",
      { class: "filters", role: "search" },
      searchField("Search customer, project or INV-0042", (text) =>
        change(() => {
          query.search = text;
          query.page = 1;
        }),
      ),
      filter("Overdue", "overdue"),
      filter("Unpaid", "unpaid"),
      filter("Without a project", "withoutProject"),
    ),
    asks("Which invoices are overdue?", "Which invoices have no project?"),
    bar,
    list,
  );
  open();
  return close;
};

/** A definition list whose values flash when a live update changes them. */
const details = () => {
  const seen = new Map<string, string>();
  return (rows: ReadonlyArray<readonly [string, Child]>) => {
    const fields = new Map<string, HTMLElement>();
    const dl = el(
      "dl",
      {},
      ...rows.flatMap(([term, value]) => {
        const dd = el("dd", {}, value);
        fields.set(term, dd);
        return [el("dt", {}, term), dd];
      }),
    );
    flashChanges(seen, fields);
    return dl;
  };
};

const customerPage =
  (id: number): Page =>
  (main) => {
    const record = liveSlot();
    const invoices = liveSlot();
    const heading = el("h1", {}, `Customer ${id}`);
    const chips = asks(
      "Set their credit limit to 20 000",
      "Which of their invoices are overdue?",
      "Delete this customer",
    );
    const facts = el("div");
    const list = el("div");
    const dl = details();
    let page = 1;
    const openInvoices = () =>
      invoices.open(
        "invoices_index",
        { customer_id: id, page },
        (result) => {
          if (result._tag === "Failed") return list.replaceChildren(problemOf(result.error));
          const found = result.value as InvoicePage;
          if (found.total === 0) return list.replaceChildren(el("p", {}, "No invoices."));
          list.replaceChildren(
            invoiceTable(found.invoices, { customer: false }),
            pager(found, found.total === 1 ? "invoice" : "invoices", (p) => {
              page = p;
              openInvoices();
            }),
          );
        },
        (error) => list.replaceChildren(problemOf(error)),
      );
    record.open(
      "customers_show",
      { id },
      (result) => {
        chips.hidden = result._tag === "Failed";
        if (result._tag === "Failed") {
          heading.textContent = `Customer ${id}`;
          facts.replaceChildren(
            problemOf(recordMissing("customer", id, result.error)),
            link("#/customers", "Back to the customers"),
          );
          return;
        }
        const c = result.value as CustomerRecord;
        heading.textContent = c.name;
        document.title = `${c.name} · Elyra CRM`;
        facts.replaceChildren(
          dl([
            ["Company", c.company],
            ["Email", c.email],
            ["Credit limit", euros(c.credit_limit)],
            ["Unpaid", euros(c.balance)],
            ["Overdue invoices", String(c.overdue_invoices)],
            ["Customer since", c.created_on],
          ]),
        );
      },
      (error) => facts.replaceChildren(problemOf(error)),
    );
    openInvoices();
    main.replaceChildren(
      el("p", {}, link("#/customers", "‹ Customers")),
      heading,
      facts,
      chips,
      el("h2", {}, "Invoices"),
      list,
    );
    return () => {
      record.close();
      invoices.close();
    };
  };

const invoicePage =
  (id: number): Page =>
  (main) => {
    const record = liveSlot();
    const heading = el("h1", {}, `Invoice ${id}`);
    const chips = asks("Mark this invoice paid", "Delete this invoice");
    const markPaid = chips.querySelector("button");
    const facts = el("div");
    const dl = details();
    record.open(
      "invoices_show",
      { id },
      (result) => {
        chips.hidden = result._tag === "Failed";
        if (result._tag === "Failed") {
          facts.replaceChildren(
            problemOf(recordMissing("invoice", id, result.error)),
            link("#/invoices", "Back to the invoices"),
          );
          return;
        }
        const i = result.value as InvoiceRecord;
        // A paid invoice offers no "Mark this invoice paid".
        if (markPaid !== null) markPaid.hidden = i.status === "paid";
        heading.textContent = i.number;
        document.title = `${i.number} · Elyra CRM`;
        facts.replaceChildren(
          dl([
            ["Customer", link(`#/customers/${i.customer_id}`, i.customer_name)],
            ["Project", i.project ?? "—"],
            ["Amount", euros(i.amount)],
            ["Issued", i.issued_on],
            ["Due", i.due_on],
            ["Paid", i.paid_on ?? "—"],
            ["Status", el("span", { class: `status-${i.status}` }, i.status)],
          ]),
        );
      },
      (error) => facts.replaceChildren(problemOf(error)),
    );
    main.replaceChildren(el("p", {}, link("#/invoices", "‹ Invoices")), heading, facts, chips);
    return () => record.close();
  };

const notFound: Page = (main) => {
  main.replaceChildren(
    el("h1", {}, "Not found"),
    el("p", {}, link("#/customers", "Go to the customers")),
  );
  return () => {};
};

// ---- The router ----------------------------------------------------------------

const pageOf = (route: string): { readonly page: Page; readonly section: string } => {
  const match = /^\/(customers|invoices)(?:\/(\d+))?$/.exec(route);
  if (match === null) return { page: notFound, section: "" };
  const [, section = "", id] = match;
  if (section === "customers")
    return { page: id ? customerPage(Number(id)) : customersPage, section };
  return { page: id ? invoicePage(Number(id)) : invoicesPage, section };
};

const main = document.getElementById("page") as HTMLElement;
let leave: () => void = () => {};

const show = () => {
  leave();
  const { page, section } = pageOf(currentRoute());
  document.title = "Elyra CRM";
  document.querySelectorAll<HTMLAnchorElement>("header nav a").forEach((a) => {
    if (a.dataset.nav === section) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  });
  leave = page(main);
  // The empty panel's suggestions follow the page.
  if (panel !== null) panel.suggestions = suggestionsFor(currentRoute());
};

// A path such as /customers/42 (typed, or a bookmark) becomes its hash route.
if (!location.hash.startsWith("#/")) {
  const path = /^\/(?:customers|invoices)(?:\/\d+)?$/.test(location.pathname)
    ? location.pathname
    : "/customers";
  history.replaceState(null, "", `/#${path}`);
}
window.addEventListener("hashchange", () => {
  show();
  main.focus();
});
show();
