/**
 * The panel's elements, built once in its shadow root: the launcher, the
 * header, the settings, the greeting, the log and the form. The element
 * wires what they do.
 */
import { h } from "./dom.ts";
import { type PanelSettings, panelSettings } from "./panelSettings.ts";
import { adoptPanelStyles } from "./panelSheet.ts";
import { type ThreadListView, threadList } from "./threadList.ts";
import { type UsageView, usageView } from "./usageView.ts";
import { type WelcomeView, welcomeView } from "./welcome.ts";

export interface Parts {
  readonly launcher: HTMLButtonElement;
  /** On the launcher: how many questions wait. */
  readonly badge: HTMLElement;
  readonly panel: HTMLElement;
  readonly notice: HTMLElement;
  readonly connection: HTMLElement;
  readonly log: HTMLElement;
  readonly problem: HTMLElement;
  readonly textarea: HTMLTextAreaElement;
  readonly send: HTMLButtonElement;
  readonly stop: HTMLButtonElement;
  /** Bring your own key: the header's Settings button and its view. */
  readonly settings: PanelSettings;
  /** What the conversation used: the header's Usage button and its line. */
  readonly usage: UsageView;
  /** While the log is empty: the greeting and the suggestions. */
  readonly welcome: WelcomeView;
  /** The user's conversations: the header's Conversations button and its list. */
  readonly threads: ThreadListView;
}

/** What the parts tell the element. */
export interface PartsEvents {
  /** A suggestion was clicked: to send, or to put in the text box. */
  readonly suggest: (prompt: string, send: boolean) => void;
  /** The host said what the banner says (`POST /source`): a sentence, or `null` for none. */
  readonly sourceNotice: (notice: string | null) => void;
  /** The list showed another thread; `opened`: the user opened it, and the list closed. */
  readonly switched: (opened: boolean) => void;
}

/** Builds the panel's parts in `root`, its styles adopted; `form`, `close` and `reset` for wiring. */
export const panelParts = (
  doc: Document,
  root: ShadowRoot,
  on: PartsEvents,
): Parts & {
  readonly form: HTMLFormElement;
  readonly close: HTMLButtonElement;
  readonly reset: HTMLButtonElement;
} => {
  const textarea = h(doc, "textarea", {
    rows: "2",
    "aria-label": "Message",
    placeholder: "Ask…",
  });
  const send = h(doc, "button", { type: "submit", class: "primary" }, "Send");
  const stop = h(doc, "button", { type: "button", class: "stop", hidden: "" }, "Stop");
  const close = h(
    doc,
    "button",
    { type: "button", class: "close", "aria-label": "Close assistant" },
    "×",
  );
  // Its words, or on a phone (where the header has no room for them) a glyph; named alike.
  const reset = h(
    doc,
    "button",
    { type: "button", class: "reset", "aria-label": "New conversation", title: "New conversation" },
    h(doc, "span", { class: "wide", "aria-hidden": "true" }, "New conversation"),
    h(doc, "span", { class: "narrow", "aria-hidden": "true" }, "+"),
  );
  const badge = h(doc, "span", { class: "badge", "aria-hidden": "true", hidden: "" });
  const launcher = h(
    doc,
    "button",
    { type: "button", class: "launcher", "aria-expanded": "false", "aria-controls": "panel" },
    // A space between the word and the count: the visible text stays within the accessible name.
    "Assistant",
    " ",
    badge,
  );
  const notice = h(doc, "div", { class: "notice", role: "note", hidden: "" });
  const connection = h(doc, "span", { class: "connection", hidden: "" }, "Connecting…");
  const log = h(doc, "div", {
    class: "log",
    role: "log",
    "aria-live": "polite",
    "aria-label": "Conversation",
    tabindex: "0",
  });
  const problem = h(doc, "p", { class: "problem", role: "alert", hidden: "" });
  const form = h(doc, "form", {}, textarea, stop, send);
  const welcome = welcomeView(doc, on.suggest);
  const settings = panelSettings(doc, (info) => {
    if (info.notice !== undefined) on.sourceNotice(info.notice);
  });
  const usage = usageView(doc);
  const threads = threadList(doc, on.switched);
  const panel = h(
    doc,
    "section",
    { class: "panel", id: "panel", "aria-label": "Assistant", hidden: "" },
    notice,
    h(
      doc,
      "header",
      {},
      h(doc, "h2", {}, "Assistant"),
      connection,
      threads.button,
      settings.button,
      usage.button,
      reset,
      close,
    ),
    usage.line,
    settings.view,
    threads.view,
    welcome.element,
    log,
    problem,
    form,
  );
  root.replaceChildren(launcher, panel);
  adoptPanelStyles(root);
  return {
    launcher,
    badge,
    panel,
    notice,
    connection,
    log,
    problem,
    textarea,
    send,
    stop,
    settings,
    usage,
    welcome,
    threads,
    form,
    close,
    reset,
  };
};

/**
 * A question never waits unseen: the closed panel's launcher says how many wait.
 *
 * @example
 * ```ts
 * showWaiting(parts, snapshot.waiting.length); // "Assistant — 2 questions waiting"
 * ```
 */
export const showWaiting = (parts: Parts, count: number, before = 0): void => {
  // A new question is never hidden behind the list of conversations: the list closes for it.
  if (count > before) parts.threads.close(false);
  parts.badge.textContent = count === 0 ? "" : String(count);
  parts.badge.hidden = count === 0;
  if (count === 0) parts.launcher.removeAttribute("aria-label");
  else
    parts.launcher.setAttribute(
      "aria-label",
      `Assistant — ${count} question${count === 1 ? "" : "s"} waiting`,
    );
};
