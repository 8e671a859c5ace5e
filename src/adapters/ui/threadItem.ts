/**
 * One conversation in the panel's list: its name (a button that opens it),
 * when it was last used and its preview (or, found by a search, the words
 * around the match), and Rename, Archive (or Bring back) and Delete. Rename
 * is a text field in place (Enter saves, Escape cancels); Delete asks first
 * in the panel's dialog style. Text nodes only (U1); never the thread's id.
 */
import type { ThreadFound, ThreadInfo } from "../web/wire.ts";
import { h } from "./dom.ts";
import { lastUsedWords, THREAD_WORDS, threadTitle } from "./threadWords.ts";

/** A thread as a list or a search gave it. */
export type ListedThread = ThreadInfo | ThreadFound;

/** What an item needs of its list. */
export interface ItemContext {
  readonly doc: Document;
  /** A unique id inside the shadow root, for `aria-describedby`. */
  readonly nextId: () => string;
  /** The page's language, for times. */
  readonly lang: () => string | undefined;
  /** Whether this thread is the one the panel shows. */
  readonly current: (id: string) => boolean;
  /** Opens the thread: the panel shows it. */
  readonly open: (thread: ListedThread) => void;
  /** Renames it; resolves to the thread as the host has it now, or undefined when it failed. */
  readonly rename: (thread: ListedThread, title: string) => Promise<ListedThread | undefined>;
  /** Archives it, or brings it back; resolves to whether the host took it. */
  readonly archive: (thread: ListedThread, archived: boolean) => Promise<boolean>;
  /** Erases it; resolves to whether the host took it. */
  readonly remove: (thread: ListedThread) => Promise<boolean>;
  /** The item's thread changed (renamed, archived in a search): its item is built again, `focus` focused. */
  readonly replaced: (old: HTMLElement, thread: ListedThread, focus: string) => void;
}

/**
 * The selector of an item's open button (its name): where the keyboard lands on an item.
 *
 * @example
 * ```ts
 * item.querySelector<HTMLElement>(OPEN_SELECTOR)?.focus();
 * ```
 */
export const OPEN_SELECTOR = "button.open";

const isFound = (thread: ListedThread): thread is ThreadFound =>
  typeof (thread as { snippet?: unknown }).snippet === "string";

/**
 * Builds one thread's item.
 *
 * @example
 * ```ts
 * list.append(threadItem(context, { id: "t1", title: "Ada's limit", createdAt, lastAt, preview: "", turns: 1, archived: false }));
 * ```
 */
export const threadItem = (context: ItemContext, thread: ListedThread): HTMLLIElement => {
  const { doc } = context;
  const current = context.current(thread.id);
  const titleId = context.nextId();
  const aboutId = context.nextId();
  const title = threadTitle(thread);
  const open = h(
    doc,
    "button",
    {
      type: "button",
      class: "open",
      id: titleId,
      "aria-describedby": aboutId,
      "aria-current": current ? "true" : undefined,
    },
    title,
  );
  const when = h(
    doc,
    "time",
    { datetime: new Date(thread.lastAt).toISOString() },
    lastUsedWords(thread.lastAt, Date.now(), context.lang()),
  );
  const said = isFound(thread) ? thread.snippet : thread.preview;
  const about = h(
    doc,
    "span",
    { id: aboutId },
    h(
      doc,
      "span",
      { class: "meta" },
      when,
      current && ` · ${THREAD_WORDS.shownNow}`,
      thread.archived && ` · ${THREAD_WORDS.archivedTag}`,
    ),
    said.trim() !== "" && h(doc, "span", { class: "preview" }, said),
  );
  const action = (name: string, word: string) =>
    h(doc, "button", { type: "button", class: name, "aria-describedby": titleId }, word);
  const rename = action("rename", THREAD_WORDS.rename);
  const archive = action(
    "archive",
    thread.archived ? THREAD_WORDS.bringBack : THREAD_WORDS.archive,
  );
  const remove = action("delete", THREAD_WORDS.delete);
  const actions = h(doc, "div", { class: "actions" }, rename, archive, remove);
  const item = h(doc, "li", { class: `thread${current ? " current" : ""}` }, open, about, actions);

  open.addEventListener("click", () => context.open(thread));

  // Rename: a field in the name's place; Enter saves, Escape (or leaving it) cancels.
  rename.addEventListener("click", () => {
    const hintId = context.nextId();
    const field = h(doc, "input", {
      type: "text",
      class: "rename-field",
      "aria-label": THREAD_WORDS.renameField,
      "aria-describedby": hintId,
      maxlength: "200",
    });
    field.value = thread.title;
    const hint = h(doc, "span", { class: "hint", id: hintId }, THREAD_WORDS.renameHint);
    let done = false;
    const back = (focus: boolean) => {
      if (done) return;
      done = true;
      field.replaceWith(open);
      hint.remove();
      if (focus) rename.focus();
    };
    field.addEventListener("keydown", (event) => {
      if (event.isComposing) return;
      if (event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        back(true);
      } else if (event.key === "Enter") {
        event.preventDefault();
        if (done) return;
        field.readOnly = true;
        void context.rename(thread, field.value.trim()).then((renamed) => {
          field.readOnly = false;
          if (renamed === undefined) return field.focus();
          done = true;
          context.replaced(item, renamed, OPEN_SELECTOR);
        });
      }
    });
    field.addEventListener("blur", () => {
      if (!field.readOnly) back(false);
    });
    open.replaceWith(field);
    field.after(hint);
    field.focus();
    field.select();
  });

  archive.addEventListener("click", () => {
    void context.archive(thread, !thread.archived);
  });

  // Delete asks first, in the item, as the panel's confirmation dialog does.
  remove.addEventListener("click", () => {
    const questionId = context.nextId();
    const warningId = context.nextId();
    const no = h(doc, "button", { type: "button", class: "decline" }, THREAD_WORDS.cancel);
    const yes = h(
      doc,
      "button",
      { type: "button", class: "accept destructive" },
      THREAD_WORDS.delete,
    );
    const dialog = h(
      doc,
      "section",
      {
        class: "confirm destructive",
        role: "dialog",
        "aria-modal": "false",
        "aria-labelledby": `${questionId} ${titleId}`,
        "aria-describedby": warningId,
        tabindex: "-1",
      },
      h(doc, "h4", { id: questionId }, THREAD_WORDS.deleteQuestion),
      h(doc, "p", { id: warningId }, THREAD_WORDS.deleteWarning),
      h(doc, "div", { class: "buttons" }, no, yes),
    );
    let asking = false;
    const cancel = () => {
      if (asking) return;
      dialog.replaceWith(actions);
      remove.focus();
    };
    no.addEventListener("click", cancel);
    dialog.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") return;
      event.stopPropagation();
      cancel();
    });
    // aria-disabled, not disabled: a disabled button would drop the keyboard's focus.
    const wait = (value: boolean) => {
      asking = value;
      for (const b of [no, yes]) b.setAttribute("aria-disabled", String(value));
    };
    yes.addEventListener("click", () => {
      if (asking) return;
      wait(true);
      void context.remove(thread).then((gone) => {
        if (!gone) wait(false);
      });
    });
    actions.replaceWith(dialog);
    dialog.focus();
  });

  return item;
};
