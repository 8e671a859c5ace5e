/**
 * The panel's list of conversations: the header's _Conversations_ button
 * opens it in the panel's body, in place of the conversation. The user's
 * threads, most recently used first and a page at a time (_Show more_), a
 * search box (its results with the words around what matched), _Archived_
 * (a toggle listing the archived ones), _New conversation_, and each thread
 * with its name, when it was last used and its preview, to open, rename,
 * archive or bring back, and delete for good after a confirmation.
 *
 * Keyboard: Tab and Shift-Tab go through it; Up and Down (Home, End) move
 * between the threads; Escape closes it and gives the focus back to the
 * button (in a name being edited or a question, Escape cancels that alone).
 */
import type { AssistantStore } from "./assistantStore.ts";
import type { AssistantThreads } from "./client.ts";
import { h } from "./dom.ts";
import { type ItemContext, type ListedThread, OPEN_SELECTOR, threadItem } from "./threadItem.ts";
import { foundWords, THREAD_WORDS, threadErrorWords } from "./threadWords.ts";

/** What the list needs of a store: its threads, the one shown, and switching. */
export interface ThreadSource {
  readonly threads: AssistantThreads;
  readonly thread: () => string;
  readonly switchThread: (id?: string) => string;
}

/**
 * The store's threads and switching, when it has them; a store without gets
 * no list.
 *
 * @example
 * ```ts
 * list.use(threadSourceOf(store));
 * ```
 */
export const threadSourceOf = (store: AssistantStore | undefined): ThreadSource | undefined => {
  const { threads, thread, switchThread } = store ?? {};
  return threads === undefined || thread === undefined || switchThread === undefined
    ? undefined
    : { threads, thread, switchThread };
};

/** The list's parts: the header's button, the view it opens, and how the panel drives them. */
export interface ThreadListView {
  /** The header's _Conversations_ button: hidden while the store has no threads. */
  readonly button: HTMLButtonElement;
  readonly view: HTMLElement;
  readonly use: (source: ThreadSource | undefined) => void;
  /** Closes the view; `focus` gives the focus back to the button. */
  readonly close: (focus: boolean) => void;
}

/**
 * How long the search waits for more typing before it asks, in milliseconds.
 *
 * @example
 * ```ts
 * await new Promise((resolve) => setTimeout(resolve, SEARCH_DEBOUNCE_MS + 50)); // the search was asked
 * ```
 */
export const SEARCH_DEBOUNCE_MS = 250;

/**
 * Builds the list. `switched` is told each time it showed another thread:
 * `opened` when the user opened one (or a new one) and the view closed, so
 * the conversation takes the focus.
 *
 * @example
 * ```ts
 * const list = threadList(document, (opened) => opened && textarea.focus());
 * header.append(list.button);
 * header.after(list.view);
 * list.use(threadSourceOf(store));
 * ```
 */
export const threadList = (doc: Document, switched: (opened: boolean) => void): ThreadListView => {
  const button = h(
    doc,
    "button",
    {
      type: "button",
      class: "threads-button",
      "aria-expanded": "false",
      "aria-controls": "threads",
      "aria-label": THREAD_WORDS.conversations,
      title: THREAD_WORDS.conversations,
      hidden: "",
    },
    h(doc, "span", { "aria-hidden": "true" }, "☰"),
  );
  const heading = h(doc, "h3", { id: "threads-heading" }, THREAD_WORDS.conversations);
  const fresh = h(
    doc,
    "button",
    { type: "button", class: "primary new-thread" },
    THREAD_WORDS.newConversation,
  );
  const search = h(doc, "input", {
    type: "search",
    class: "thread-search",
    "aria-label": THREAD_WORDS.search,
    placeholder: THREAD_WORDS.searchHint,
    maxlength: "256",
    autocomplete: "off",
  });
  const archived = h(
    doc,
    "button",
    { type: "button", class: "archived-toggle", "aria-pressed": "false" },
    THREAD_WORDS.archived,
  );
  // Never hidden: a live region that appears with its text already in it may not be read out.
  const status = h(doc, "p", { class: "threads-status", role: "status" });
  const problem = h(doc, "p", { class: "threads-problem", role: "alert", hidden: "" });
  const list = h(doc, "ul", { class: "thread-list", "aria-labelledby": "threads-heading" });
  const more = h(
    doc,
    "button",
    { type: "button", class: "more", hidden: "" },
    THREAD_WORDS.showMore,
  );
  const view = h(
    doc,
    "section",
    { class: "threads", id: "threads", "aria-labelledby": "threads-heading", hidden: "" },
    h(doc, "div", { class: "top" }, heading, fresh),
    h(doc, "div", { class: "tools" }, search, archived),
    status,
    problem,
    list,
    more,
  );

  let source: ThreadSource | undefined;
  /** Counts loads (and `use`), so an answer older than the last one asked is dropped. */
  let asked = 0;
  let next: string | undefined;
  let ids = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const showingArchived = () => archived.getAttribute("aria-pressed") === "true";
  const searching = () => search.value.trim() !== "";

  const say = (text: string) => {
    problem.hidden = true;
    problem.textContent = "";
    status.textContent = text;
  };
  const fail = (error: unknown, doing: string) => {
    problem.textContent = threadErrorWords(error, doing);
    problem.hidden = false;
  };
  const items = () => [...list.querySelectorAll<HTMLElement>(":scope > li")];
  /** An item went (`done` says why): the focus goes to the next one's (else the last's) name, else the search box. */
  const focusAfter = (gone: HTMLElement, done: string) => {
    const after = gone.nextElementSibling ?? gone.previousElementSibling;
    gone.remove();
    (after?.querySelector<HTMLElement>(OPEN_SELECTOR) ?? search).focus();
    const none = showingArchived() ? THREAD_WORDS.noneArchived : THREAD_WORDS.none;
    say(items().length === 0 && !searching() ? `${done} ${none}` : done);
  };
  /** Each item's thread: the page never holds a thread's id. */
  const threadOf = new WeakMap<HTMLElement, ListedThread>();
  const itemOf = (thread: ListedThread): HTMLElement => {
    const item = threadItem(context, thread);
    threadOf.set(item, thread);
    return item;
  };
  const find = (thread: ListedThread) =>
    items().find((item) => threadOf.get(item)?.id === thread.id);

  const context: ItemContext = {
    doc,
    nextId: () => `thread-${++ids}`,
    lang: () => doc.documentElement.lang || undefined,
    current: (id) => source?.thread() === id,
    open: (thread) => {
      if (source === undefined) return;
      source.switchThread(thread.id);
      close(false);
      switched(true);
    },
    rename: async (thread, title) => {
      const from = source;
      if (from === undefined) return undefined;
      try {
        await from.threads.rename(thread.id, title);
        const now = await from.threads.get(thread.id);
        say(THREAD_WORDS.renamed);
        return { ...thread, ...now };
      } catch (error) {
        fail(error, THREAD_WORDS.renameFailed);
        return undefined;
      }
    },
    archive: async (thread, archive) => {
      const from = source;
      if (from === undefined) return false;
      try {
        await from.threads.archive(thread.id, archive);
      } catch (error) {
        fail(error, archive ? THREAD_WORDS.archiveFailed : THREAD_WORDS.bringBackFailed);
        return false;
      }
      const done = archive ? THREAD_WORDS.archivedDone : THREAD_WORDS.broughtBack;
      say(done);
      const item = find(thread);
      if (item === undefined) return true;
      // A search lists both kinds: the item stays, archived or not; a list loses it to the other.
      if (searching()) context.replaced(item, { ...thread, archived: archive }, "button.archive");
      else focusAfter(item, done);
      return true;
    },
    remove: async (thread) => {
      const from = source;
      if (from === undefined) return false;
      try {
        await from.threads.delete(thread.id);
      } catch (error) {
        fail(error, THREAD_WORDS.deleteFailed);
        return false;
      }
      say(THREAD_WORDS.deleted);
      // The conversation shown is no more: a new one takes its place.
      if (from.thread() === thread.id) {
        from.switchThread();
        switched(false);
      }
      const item = find(thread);
      if (item !== undefined) focusAfter(item, THREAD_WORDS.deleted);
      return true;
    },
    replaced: (old, thread, focus) => {
      const item = itemOf(thread);
      old.replaceWith(item);
      item.querySelector<HTMLElement>(focus)?.focus();
    },
  };

  const show = (threads: ReadonlyArray<ListedThread>, append: boolean) => {
    const shown = threads.map(itemOf);
    if (append) list.append(...shown);
    else list.replaceChildren(...shown);
    return shown;
  };

  /** Loads the first page (or the search's results), or, with `after`, the page after it. */
  const load = async (after?: string) => {
    const from = source;
    if (from === undefined) return;
    const mine = ++asked;
    const text = search.value.trim();
    list.setAttribute("aria-busy", "true");
    if (after === undefined && items().length === 0) say(THREAD_WORDS.loading);
    try {
      const page =
        text === ""
          ? await from.threads.list({
              archived: showingArchived(),
              ...(after === undefined ? {} : { after }),
            })
          : await from.threads.search(text);
      if (mine !== asked) return;
      const shown = show(page.threads, after !== undefined);
      next = page.next;
      more.hidden = text !== "" || next === undefined;
      if (text !== "") say(foundWords(page.threads.length));
      else if (after === undefined && page.threads.length === 0)
        say(showingArchived() ? THREAD_WORDS.noneArchived : THREAD_WORDS.none);
      else say("");
      // Shown more: the keyboard goes on from the first of them.
      if (after !== undefined) shown[0]?.querySelector<HTMLElement>(OPEN_SELECTOR)?.focus();
    } catch (error) {
      if (mine !== asked) return;
      say("");
      fail(error, THREAD_WORDS.listFailed);
    } finally {
      if (mine === asked) list.removeAttribute("aria-busy");
    }
  };

  const open = () => {
    view.hidden = false;
    button.setAttribute("aria-expanded", "true");
    search.value = "";
    archived.setAttribute("aria-pressed", "false");
    heading.textContent = THREAD_WORDS.conversations;
    list.replaceChildren();
    more.hidden = true;
    say("");
    void load();
    search.focus();
  };
  const close = (focus: boolean) => {
    clearTimeout(timer);
    asked++;
    view.hidden = true;
    button.setAttribute("aria-expanded", "false");
    if (focus) button.focus();
  };

  button.addEventListener("click", () => (view.hidden ? open() : close(true)));
  fresh.addEventListener("click", () => {
    if (source === undefined) return;
    source.switchThread();
    close(false);
    switched(true);
  });
  search.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => void load(), SEARCH_DEBOUNCE_MS);
  });
  search.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.isComposing) return;
    event.preventDefault();
    clearTimeout(timer);
    void load();
  });
  archived.addEventListener("click", () => {
    const now = !showingArchived();
    archived.setAttribute("aria-pressed", String(now));
    heading.textContent = now ? THREAD_WORDS.archivedConversations : THREAD_WORDS.conversations;
    list.replaceChildren();
    void load();
  });
  more.addEventListener("click", () => {
    if (next !== undefined) void load(next);
  });
  // Up and Down (Home, End) move between the threads' names.
  list.addEventListener("keydown", (event) => {
    const target = event.target as HTMLElement;
    if (target.tagName !== "BUTTON" || target.closest(".confirm") !== null) return;
    const all = items();
    const at = all.findIndex((item) => item.contains(target));
    const to =
      event.key === "ArrowDown"
        ? at + 1
        : event.key === "ArrowUp"
          ? at - 1
          : event.key === "Home"
            ? 0
            : event.key === "End"
              ? all.length - 1
              : undefined;
    const goal = to === undefined ? undefined : all[to]?.querySelector<HTMLElement>(OPEN_SELECTOR);
    if (goal === undefined || goal === null) return;
    event.preventDefault();
    goal.focus();
  });
  view.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    // Escape closes the list, not the whole panel.
    event.preventDefault();
    event.stopPropagation();
    close(true);
  });

  return {
    button,
    view,
    use: (given) => {
      source = given;
      button.hidden = given === undefined;
      close(false);
    },
    close,
  };
};
