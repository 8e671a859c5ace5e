/**
 * What an empty panel shows instead of a blank column: a greeting and a few
 * suggestions from the app, each a button that sends its prompt (or puts it
 * in the text box to be finished). Text only, like everything else the panel
 * shows.
 */
import { h } from "./dom.ts";

/**
 * A suggestion an empty panel offers. A string is a prompt, shown as it is
 * and sent when clicked; an object may show a shorter `label` than its
 * `prompt`, and with `send: false` puts the prompt in the text box for the
 * user to finish instead of sending it.
 *
 * @example
 * ```ts
 * const suggestions: AssistantSuggestion[] = [
 *   "Which invoices are overdue?",
 *   { label: "Bill a customer…", prompt: "Bill customer ", send: false },
 * ];
 * ```
 */
export type AssistantSuggestion =
  | string
  | {
      /** What the button says; default the prompt. */
      readonly label?: string;
      /** What is sent, or put in the text box. */
      readonly prompt: string;
      /** Send it when clicked (default), or `false`: put it in the text box, the cursor after it. */
      readonly send?: boolean;
    };

/** An empty panel's greeting and suggestions, as `installAssistant` and the element take them. */
export interface AssistantWelcome {
  /** The greeting; default {@link DEFAULT_GREETING}. */
  readonly greeting?: string;
  /** The suggestions, in order; none by default. Blank ones are left out. */
  readonly suggestions?: ReadonlyArray<AssistantSuggestion>;
}

/**
 * What an empty panel says when the app gives no greeting of its own.
 *
 * @example
 * ```ts
 * const greeting = customer === undefined ? DEFAULT_GREETING : `Hello. Ask me about ${customer.name}.`;
 * installAssistant(createAssistantStore(assistantClient({ token: "page-token" })), { greeting });
 * ```
 */
export const DEFAULT_GREETING =
  "Hello. Ask me about what you see here, or ask me to do it for you.";

/** A suggestion as the panel shows it: label, prompt, and whether a click sends it. */
interface Shown {
  readonly label: string;
  readonly prompt: string;
  readonly send: boolean;
}

const shownOf = (suggestion: AssistantSuggestion): Shown | undefined => {
  const prompt = typeof suggestion === "string" ? suggestion : suggestion?.prompt;
  if (typeof prompt !== "string" || prompt.trim() === "") return undefined;
  const label =
    typeof suggestion === "object" &&
    typeof suggestion.label === "string" &&
    suggestion.label.trim()
      ? suggestion.label.trim()
      : prompt.trim();
  return { label, prompt, send: typeof suggestion === "string" || suggestion.send !== false };
};

/** The welcome's element and how to show it. */
export interface WelcomeView {
  readonly element: HTMLElement;
  /** Shows this greeting and these suggestions; `disabled` while a prompt is on its way or a turn runs. */
  readonly show: (welcome: AssistantWelcome, disabled: boolean) => void;
}

/**
 * The empty panel's welcome: a greeting (`p.greeting`) and a list of
 * suggestion buttons labelled _Suggestions_. `choose` is told of a click.
 */
export const welcomeView = (
  doc: Document,
  choose: (prompt: string, send: boolean) => void,
): WelcomeView => {
  const greeting = h(doc, "p", { class: "greeting" });
  const list = h(doc, "ul", { class: "suggestions", "aria-label": "Suggestions" });
  const element = h(doc, "div", { class: "welcome", hidden: "" }, greeting, list);
  let last = "";
  return {
    element,
    show: (welcome, disabled) => {
      const text = welcome.greeting?.trim() ? welcome.greeting.trim() : DEFAULT_GREETING;
      greeting.textContent = text;
      const shown = (welcome.suggestions ?? []).flatMap((s) => shownOf(s) ?? []);
      const key = JSON.stringify(shown);
      if (key !== last) {
        last = key;
        list.replaceChildren(
          ...shown.map((s) => {
            const button = h(doc, "button", { type: "button", class: "suggestion" }, s.label);
            if (s.label !== s.prompt.trim()) button.title = s.prompt;
            button.addEventListener("click", () => choose(s.prompt, s.send));
            return h(doc, "li", {}, button);
          }),
        );
      }
      list.hidden = shown.length === 0;
      for (const button of list.querySelectorAll("button")) button.disabled = disabled;
    },
  };
};

/** The welcome's styles, added to the panel's. */
export const WELCOME_CSS = `
/* The empty panel's greeting and suggestions (welcome.ts); the log below it takes no room until it has items. */
.welcome { flex: 1; overflow-y: auto; padding: 1em 0.9em; display: flex; flex-direction: column; gap: 0.75em; }
.welcome .greeting { margin: 0; }
.welcome ul.suggestions { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; align-items: flex-start; gap: 0.4em; }
.welcome button.suggestion { text-align: left; border-color: color-mix(in srgb, var(--_accent) 35%, var(--_bg)); background: var(--_tint); border-radius: 1em; }
.welcome button.suggestion:hover:not(:disabled) { border-color: var(--_accent); }
.panel.empty .log { flex: 0 0 auto; padding: 0; }
@media (max-width: 600px) { .welcome button.suggestion { min-height: 44px; } }
`;
