/**
 * `<elyra-assistant-panel>`: the panel in plain DOM over an assistant store.
 * Model text only ever becomes text nodes (U1); a step links only into the
 * app (U2). Items are kept by key, so a change rebuilds only what changed and
 * the textarea keeps its value and focus.
 */
import type { PanelItem } from "../../runtime/log/panelItems.ts";
import type { AssistantSnapshot, AssistantStore } from "./assistantStore.ts";
import { installedWelcome, whenInstalled } from "./installed.ts";
import { itemView, keyOf, patchAnswer, patchScript, type ViewContext } from "./itemViews.ts";
import { type Parts, panelParts, showWaiting } from "./panelParts.ts";
import { keySettingsOf } from "./panelSettings.ts";
import { threadSourceOf } from "./threadList.ts";
import type { AssistantSuggestion } from "./welcome.ts";

/**
 * The panel element's tag name, `elyra-assistant-panel`: what
 * `defineAssistantPanel` defines when given no tag of its own.
 *
 * @example
 * ```ts
 * defineAssistantPanel();
 * const panel = document.querySelector(PANEL_TAG);
 * ```
 */
export const PANEL_TAG = "elyra-assistant-panel";

// Where there is no DOM (a server importing the entry), the class still loads; it is never defined.
const Base = (globalThis.HTMLElement ?? class {}) as typeof HTMLElement;

interface Shown {
  readonly item: PanelItem;
  readonly view: HTMLElement;
}

/**
 * The panel element. Give it a store (`panel.store = store`), or it uses the
 * installed one; its `notice` attribute shows a banner at the top. While
 * the conversation is empty it shows a greeting and the app's suggestions:
 * the `greeting` attribute or property and the `suggestions` property, else
 * those given to `installAssistant`.
 *
 * @example
 * ```ts
 * defineAssistantPanel();
 * const panel = document.createElement("elyra-assistant-panel") as AssistantPanel;
 * panel.store = createAssistantStore(assistantClient({ token: "page-token" }), { open: true });
 * document.body.append(panel);
 * ```
 */
export class AssistantPanel extends Base {
  static readonly observedAttributes = ["notice", "greeting"];
  #store: AssistantStore | undefined;
  #unsubscribe: (() => void) | undefined;
  #parts: Parts | undefined;
  #shown = new Map<string, Shown>();
  #last: AssistantSnapshot | undefined;
  /** What had the page's focus when the panel opened: closing gives it back. */
  #opener: HTMLElement | undefined;
  #ids = 0;
  #greeting: string | undefined;
  #suggestions: ReadonlyArray<AssistantSuggestion> | undefined;
  /** A suggestion's prompt is on its way: the suggestions wait for it. */
  #sending = false;
  /** The banner as the host last said it (`null`: none); undefined until a host says one. */
  #hostNotice: string | null | undefined;

  get store(): AssistantStore | undefined {
    return this.#store;
  }

  set store(store: AssistantStore | undefined) {
    if (store === this.#store) return;
    this.#store = store;
    if (this.isConnected) this.#listen();
  }

  /**
   * What the empty panel says first: set here, else the `greeting`
   * attribute, else `installAssistant`'s `greeting`, else a greeting of the
   * panel's own. Setting `undefined` goes back to the attribute's.
   */
  get greeting(): string | undefined {
    return this.#greeting ?? this.getAttribute("greeting") ?? installedWelcome().greeting;
  }

  set greeting(greeting: string | undefined) {
    this.#greeting = greeting;
    this.#showWelcome();
  }

  /**
   * The prompts the empty panel offers as buttons (a click sends one), else
   * `installAssistant`'s `suggestions`. Set them again as the page changes,
   * to offer what fits it; `[]` offers none.
   */
  get suggestions(): ReadonlyArray<AssistantSuggestion> {
    return this.#suggestions ?? installedWelcome().suggestions ?? [];
  }

  set suggestions(suggestions: ReadonlyArray<AssistantSuggestion> | undefined) {
    this.#suggestions = suggestions === undefined ? undefined : [...suggestions];
    this.#showWelcome();
  }

  connectedCallback(): void {
    this.#build();
    this.#listen();
  }

  disconnectedCallback(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  /**
   * Focuses the text box when the panel is open (the launcher when it is
   * closed): an app's own "Ask the assistant" button opens it, then calls this.
   */
  override focus(options?: FocusOptions): void {
    const parts = this.#parts;
    if (parts === undefined) super.focus(options);
    else (parts.panel.hidden ? parts.launcher : parts.textarea).focus(options);
  }

  attributeChangedCallback(name: string): void {
    if (name === "notice") this.#showNotice();
    if (name === "greeting") this.#showWelcome();
  }

  #listen(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    for (const { view } of this.#shown.values()) view.remove();
    this.#shown.clear();
    this.#last = undefined;
    this.#parts?.settings.use(keySettingsOf(this.#store));
    const usage = this.#store?.usage;
    this.#parts?.usage.use(usage === undefined ? undefined : { usage });
    this.#parts?.threads.use(threadSourceOf(this.#store));
    if (this.#store === undefined) {
      // No store given: the page's installed one, now or once the page installs it.
      this.#unsubscribe = whenInstalled((store) => {
        this.#unsubscribe = undefined;
        this.store = store;
      });
      return;
    }
    this.#unsubscribe = this.#store.subscribe((snapshot) => this.#render(snapshot));
  }

  #build(): void {
    if (this.#parts !== undefined) return;
    const doc = this.ownerDocument;
    const root = this.shadowRoot ?? this.attachShadow({ mode: "open" });
    const built = panelParts(doc, root, {
      suggest: (prompt, send) => this.#suggest(prompt, send),
      // The banner follows what answers, as the host says it (`POST /source`), like the settings.
      sourceNotice: (notice) => {
        this.#hostNotice = notice;
        this.#showNotice();
      },
      // Another thread shown: its usage is read anew; opened from the list, the text box is next.
      switched: (opened) => {
        if (opened) this.#parts?.textarea.focus();
        this.#parts?.usage.turnEnded();
      },
    });
    const { form, close, reset, ...parts } = built;
    const { textarea, stop, launcher, panel } = parts;
    this.#parts = parts;
    this.#showNotice();

    const submit = () => {
      const text = textarea.value;
      if (text.trim() === "" || this.#store === undefined || this.#last?.busy) return;
      textarea.value = "";
      void this.#store.prompt(text).then((sent) => {
        // Refused (a turn running, the host down): the text comes back to be sent again.
        if (!sent && textarea.value === "") textarea.value = text;
      });
    };
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      submit();
    });
    textarea.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        submit();
      }
    });
    stop.addEventListener("click", () => {
      textarea.focus();
      void this.#store?.stop();
    });
    reset.addEventListener("click", () => {
      parts.threads.close(false);
      textarea.focus();
      // A new thread (this one stays in the list), else this one anew; its usage is read anew.
      const store = this.#store;
      if (store?.switchThread === undefined)
        void store?.reset().then(() => parts.usage.turnEnded());
      else {
        store.switchThread();
        parts.usage.turnEnded();
      }
    });
    close.addEventListener("click", () => this.#store?.close());
    launcher.addEventListener("click", () => this.#store?.open());
    panel.addEventListener("keydown", (event) => {
      if (event.key === "Escape") this.#store?.close();
    });
  }

  #showNotice(): void {
    const notice = this.#parts?.notice;
    if (notice === undefined) return;
    const text = this.#hostNotice === undefined ? this.getAttribute("notice") : this.#hostNotice;
    notice.textContent = text ?? "";
    notice.hidden = text === null || text === "";
  }

  /** Shows the greeting and the suggestions while the conversation is empty, and hides them after. */
  #showWelcome(): void {
    const parts = this.#parts;
    if (parts === undefined) return;
    const empty = (this.#last?.items.length ?? 0) === 0;
    parts.welcome.element.hidden = !empty;
    parts.panel.classList.toggle("empty", empty);
    if (!empty) return;
    const greeting = this.greeting;
    parts.welcome.show(
      { ...(greeting === undefined ? {} : { greeting }), suggestions: this.suggestions },
      this.#sending || this.#last?.busy === true || this.#store === undefined,
    );
  }

  /** A suggestion clicked: sent (its text back in the box if refused), or put in the box to finish. */
  #suggest(prompt: string, send: boolean): void {
    const parts = this.#parts;
    const store = this.#store;
    if (parts === undefined || store === undefined) return;
    parts.textarea.focus();
    if (!send) {
      parts.textarea.value = prompt;
      parts.textarea.setSelectionRange(prompt.length, prompt.length);
      return;
    }
    if (this.#sending || this.#last?.busy) return;
    this.#sending = true;
    this.#showWelcome();
    void store.prompt(prompt).then((sent) => {
      this.#sending = false;
      if (!sent && parts.textarea.value === "") parts.textarea.value = prompt;
      this.#showWelcome();
    });
  }

  #focused(): boolean {
    return this.shadowRoot?.activeElement != null;
  }

  #render(snapshot: AssistantSnapshot): void {
    const parts = this.#parts;
    if (parts === undefined || snapshot === this.#last) return;
    const last = this.#last;
    this.#last = snapshot;
    if (snapshot.open !== last?.open) {
      const hadFocus = this.#focused();
      // Where the page's focus was when the panel opened (its "Ask" button): given back at close.
      const active = this.ownerDocument.activeElement;
      if (snapshot.open)
        this.#opener =
          active instanceof HTMLElement && active !== this && active !== this.ownerDocument.body
            ? active
            : undefined;
      parts.panel.hidden = !snapshot.open;
      parts.launcher.hidden = snapshot.open;
      parts.launcher.setAttribute("aria-expanded", String(snapshot.open));
      if (snapshot.open) parts.settings.check();
      else parts.threads.close(false);
      const opener = this.#opener;
      const back =
        opener?.isConnected === true && opener.getClientRects().length > 0
          ? opener
          : parts.launcher;
      if (last !== undefined)
        (snapshot.open ? parts.textarea : hadFocus ? back : undefined)?.focus();
      if (!snapshot.open) this.#opener = undefined;
    }
    // A turn ended: the usage line reads what it used (and says so unasked if the budget runs low).
    if (last?.busy === true && !snapshot.busy) parts.usage.turnEnded();
    if (snapshot.waiting !== last?.waiting)
      showWaiting(parts, snapshot.waiting.length, last?.waiting.length);
    parts.connection.hidden = snapshot.connected;
    parts.stop.hidden = !snapshot.busy;
    parts.send.disabled = snapshot.busy;
    if (
      snapshot.busy !== last?.busy &&
      !snapshot.busy &&
      this.shadowRoot?.activeElement === parts.stop
    )
      parts.textarea.focus();
    parts.problem.hidden = snapshot.error === null;
    parts.problem.textContent = snapshot.error?.message ?? "";
    if (snapshot.items !== last?.items) this.#renderItems(parts.log, snapshot.items);
    this.#showWelcome();
  }

  /** Keeps each item's view by key: unchanged items keep theirs, changed ones are patched or rebuilt. */
  #renderItems(log: HTMLElement, items: ReadonlyArray<PanelItem>): void {
    const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
    const active = this.shadowRoot?.activeElement ?? null;
    let lostFocus = false;
    let newDialog: HTMLElement | undefined;
    const shown = new Map<string, Shown>();
    const views: HTMLElement[] = [];
    for (const [index, item] of items.entries()) {
      let key = keyOf(item);
      if (shown.has(key)) key = `${key}#${index}`;
      const old = this.#shown.get(key);
      let view: HTMLElement;
      if (old !== undefined && old.item === item) view = old.view;
      else if (old !== undefined && old.item.kind === "answer" && item.kind === "answer") {
        patchAnswer(old.view, item);
        view = old.view;
      } else if (old !== undefined && old.item.kind === "script" && item.kind === "script") {
        // Its code grows as Claude writes it: the same element, patched, so it stays as the user left it.
        patchScript(old.view, item, old.item);
        view = old.view;
      } else {
        view = itemView(this.#context(), item);
        if (old !== undefined) {
          if (active !== null && old.view.contains(active)) lostFocus = true;
          old.view.replaceWith(view);
        } else if (item.kind === "confirm" && item.answer === undefined) newDialog = view;
      }
      shown.set(key, { item, view });
      views.push(view);
    }
    for (const [key, { view }] of this.#shown) if (!shown.has(key)) view.remove();
    // Only the newest turn's failure can be retried: an older one's Retry hides once a turn follows.
    const last = views[views.length - 1];
    for (const view of views) {
      const retry = view.classList.contains("error") ? view.querySelector("button.retry") : null;
      if (retry instanceof HTMLElement) retry.hidden = view !== last;
    }
    this.#shown = shown;
    let cursor = log.firstChild;
    for (const view of views) {
      if (view === cursor) cursor = cursor.nextSibling;
      else log.insertBefore(view, cursor);
    }
    if (atEnd) log.scrollTop = log.scrollHeight;
    // A question that needs an answer takes focus only from inside the panel, and as the dialog
    // itself, not its Accept button: an Enter meant for the textarea must not accept.
    if (newDialog !== undefined && this.#focused()) newDialog.focus();
    else if (lostFocus) this.#parts?.textarea.focus();
  }

  #context(): ViewContext {
    return {
      doc: this.ownerDocument,
      nextId: () => `elyra-${++this.#ids}`,
      onRetry: (prompt) => {
        this.#parts?.textarea.focus();
        void this.#store?.prompt(prompt);
      },
      onConfirm: async (item, accept, edited) => {
        // Back to the text box; with edited arguments only once they are taken (else the
        // dialog keeps the focus, to say what to fix).
        if (edited === undefined) this.#parts?.textarea.focus();
        const result = await this.#store?.answer(item.confirmId, accept, {
          tool: item.tool,
          args: item.args,
          ...(edited === undefined ? {} : { edited }),
        });
        if (edited !== undefined && result?._tag !== "InvalidEdit") this.#parts?.textarea.focus();
        return result;
      },
    };
  }
}

/**
 * Defines `<elyra-assistant-panel>` (or `tag`) once; a second call, or a page
 * that already has it, changes nothing. Does nothing where there is no DOM.
 *
 * @example
 * ```ts
 * defineAssistantPanel();
 * ```
 */
export const defineAssistantPanel = (tag: string = PANEL_TAG): void => {
  const registry = globalThis.customElements as CustomElementRegistry | undefined;
  if (registry === undefined || registry.get(tag) !== undefined) return;
  // A class can back one tag only: another tag gets its own subclass.
  registry.define(tag, tag === PANEL_TAG ? AssistantPanel : class extends AssistantPanel {});
};
