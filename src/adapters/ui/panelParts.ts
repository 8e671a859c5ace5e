/**
 * The panel's elements, built once in its shadow root: the launcher, the
 * header, the settings, the greeting, the log and the form. The element
 * wires what they do.
 */
import { h } from "./dom.ts";
import { type PanelSettings, panelSettings } from "./panelSettings.ts";
import { adoptPanelStyles } from "./panelSheet.ts";
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
}

/** What the parts tell the element. */
export interface PartsEvents {
  /** A suggestion was clicked: to send, or to put in the text box. */
  readonly suggest: (prompt: string, send: boolean) => void;
  /** The host said what the banner says (`POST /source`): a sentence, or `null` for none. */
  readonly sourceNotice: (notice: string | null) => void;
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
  const reset = h(doc, "button", { type: "button", class: "reset" }, "New conversation");
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
      settings.button,
      usage.button,
      reset,
      close,
    ),
    usage.line,
    settings.view,
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
    form,
    close,
    reset,
  };
};
