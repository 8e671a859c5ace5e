/**
 * The panel's settings: bring your own key. Which source answers now (`POST
 * /source`, in words), a write-only field that gives the host the user's own
 * Anthropic API key (`POST /key`), and _Forget my key_. Shown only when the
 * host says it can keep a key (`canSaveKey`). The key typed is read once, the
 * field emptied as it is sent, and nothing the host answers ever fills it: a
 * saved key is never shown, here or anywhere.
 */
import type { SourceName, SourceResponse } from "../web/wire.ts";
import type { AssistantStore } from "./assistantStore.ts";
import { h } from "./dom.ts";

/** What the settings need of a store: its `sourceInfo` and `key`. */
export interface KeySettings {
  readonly sourceInfo: () => Promise<SourceResponse>;
  readonly key: (key: string | null) => Promise<void>;
}

/** The settings' parts: the header's button, the view it opens, and how the panel drives them. */
export interface PanelSettings {
  /** The header's _Settings_ button: hidden until the host says it can keep a key. */
  readonly button: HTMLButtonElement;
  /** The settings view, under the header: hidden until the button opens it. */
  readonly view: HTMLElement;
  /** The store's settings (or none): the button hides until {@link PanelSettings.check} asks the host. */
  readonly use: (settings: KeySettings | undefined) => void;
  /** Asks the host whether it can keep a key, unless it already answered. */
  readonly check: () => void;
}

const SOURCE_WORDS: Readonly<Record<SourceName, string>> = {
  backend: "Claude, through the app's own connection",
  userKey: "Claude, with your own API key",
  environment: "Claude, with the app's API key",
  app: "the app's own model",
  none: "no Claude model (no key of yours, and none from the app)",
};

/**
 * Where the user's steps go, in words: never the wire's tag.
 *
 * @example
 * ```ts
 * sourceWords("userKey"); // "Claude, with your own API key"
 * ```
 */
export const sourceWords = (source: string): string =>
  Object.hasOwn(SOURCE_WORDS, source)
    ? SOURCE_WORDS[source as SourceName]
    : "a source this panel does not know";

/**
 * Why saving (or forgetting) a key failed, in words; it never repeats the key.
 *
 * @example
 * ```ts
 * keyErrorWords(new HostError({ status: 400, type: "badRequest", message: "key: …" }), false);
 * // "That is not an Anthropic API key: one starts with sk-ant- and has no spaces. Nothing was saved."
 * ```
 */
export const keyErrorWords = (error: unknown, forgetting: boolean): string => {
  const unchanged = forgetting ? "Your key is still kept." : "Nothing was saved.";
  const e = error as { _tag?: unknown; type?: unknown; status?: unknown } | null;
  if (e?._tag === "ConnectionError")
    return `The app could not be reached. ${unchanged} Check your connection and try again.`;
  if (e?._tag !== "HostError") return `Something went wrong. ${unchanged}`;
  const status = typeof e.status === "number" ? e.status : 0;
  switch (e.type) {
    case "badRequest":
    case "tooLarge":
      return `That is not an Anthropic API key: one starts with sk-ant- and has no spaces. ${unchanged}`;
    case "notConfigured":
      return `This app cannot keep a key of yours. ${unchanged}`;
    case "unauthenticated":
      return `You are signed out. ${unchanged} Sign in again, then try again.`;
    case "forbidden":
      return `This page is out of date. ${unchanged} Reload it, then try again.`;
    case "notYourWindow":
      return `This conversation belongs to another sign-in. ${unchanged} Reload the page, then try again.`;
  }
  return status === 429 || status >= 500
    ? `The app could not do that just now (it answered ${status}). ${unchanged} Try again in a moment.`
    : `The app refused (it answered ${status}). ${unchanged}`;
};

/**
 * The store's `sourceInfo` and `key`, when it has both; a store without them
 * gets no settings.
 *
 * @example
 * ```ts
 * settings.use(keySettingsOf(store));
 * ```
 */
export const keySettingsOf = (store: AssistantStore | undefined): KeySettings | undefined => {
  const { sourceInfo, key } = store ?? {};
  return sourceInfo === undefined || key === undefined ? undefined : { sourceInfo, key };
};

/**
 * Builds the settings: a _Settings_ button for the panel's header and the
 * view it opens. The panel calls `use` with its store's settings and
 * `check` when it opens; the button shows once the host says it can keep a
 * key. `onSource` is told each answer of `POST /source` (when the panel
 * opens, and after a key is saved or forgotten): the panel's banner follows it.
 *
 * @example
 * ```ts
 * const settings = panelSettings(document);
 * header.append(settings.button);
 * header.after(settings.view);
 * settings.use(keySettingsOf(store));
 * settings.check();
 * ```
 */
export const panelSettings = (
  doc: Document,
  onSource: (info: SourceResponse) => void = () => {},
): PanelSettings => {
  const button = h(
    doc,
    "button",
    {
      type: "button",
      class: "settings-button",
      "aria-expanded": "false",
      "aria-controls": "settings",
      "aria-label": "Settings",
      title: "Settings",
      hidden: "",
    },
    h(doc, "span", { "aria-hidden": "true" }, "⚙"),
  );
  const sourceName = h(doc, "strong", { class: "source-name" }, "…");
  const input = h(doc, "input", {
    id: "settings-key",
    type: "password",
    autocomplete: "off",
    spellcheck: "false",
    autocapitalize: "off",
    placeholder: "sk-ant-…",
    "aria-describedby": "settings-hint",
  });
  // Not a submit button: the composer's Send is the panel's one `button[type=submit]`.
  const save = h(doc, "button", { type: "button", class: "primary save" }, "Save key");
  const forget = h(doc, "button", { type: "button", class: "forget" }, "Forget my key");
  const status = h(doc, "p", { class: "settings-status", role: "status", "aria-live": "polite" });
  const problem = h(doc, "p", { class: "settings-problem", role: "alert", hidden: "" });
  const form = h(
    doc,
    "form",
    { class: "key-form" },
    h(doc, "label", { for: "settings-key" }, "Your Anthropic API key"),
    h(doc, "div", { class: "key-row" }, input, save),
    h(
      doc,
      "p",
      { id: "settings-hint", class: "hint" },
      "Kept by the app for you alone. It is never shown again, here or anywhere.",
    ),
  );
  const view = h(
    doc,
    "section",
    { class: "settings", id: "settings", "aria-labelledby": "settings-heading", hidden: "" },
    h(doc, "h3", { id: "settings-heading" }, "Settings"),
    h(doc, "p", { class: "source" }, "Answering now: ", sourceName),
    form,
    forget,
    status,
    problem,
  );

  let current: KeySettings | undefined;
  /** Whether the host can keep a key: unknown until it answers (asked again after a failure). */
  let can: "unknown" | "asking" | "yes" | "no" = "unknown";
  /** Counts `use` calls, so an answer about a store no longer used is dropped. */
  let generation = 0;
  let busy = false;

  const say = (text: string) => {
    problem.hidden = true;
    problem.textContent = "";
    status.textContent = text;
  };
  const fail = (text: string) => {
    status.textContent = "";
    problem.textContent = text;
    problem.hidden = false;
  };
  const setBusy = (value: boolean) => {
    busy = value;
    // aria-disabled, not disabled: a disabled button would drop the keyboard's focus.
    for (const b of [save, forget]) b.setAttribute("aria-disabled", String(value));
  };

  /** Shows the source the host names now, and returns it (undefined when it could not be asked). */
  const refresh = async (settings: KeySettings): Promise<SourceName | undefined> => {
    const mine = generation;
    try {
      const info = await settings.sourceInfo();
      if (mine !== generation) return undefined;
      sourceName.textContent = sourceWords(info.source);
      onSource(info);
      return info.source;
    } catch {
      if (mine === generation) sourceName.textContent = "not known: the app could not be asked";
      return undefined;
    }
  };

  const show = (open: boolean) => {
    view.hidden = !open;
    button.setAttribute("aria-expanded", String(open));
    // A key typed and not sent does not stay behind a closed view.
    if (!open) input.value = "";
  };

  const send = async (key: string | null) => {
    const settings = current;
    if (settings === undefined || busy) return;
    setBusy(true);
    say(key === null ? "Forgetting your key…" : "Saving your key…");
    try {
      await settings.key(key);
    } catch (error) {
      fail(keyErrorWords(error, key === null));
      return;
    } finally {
      setBusy(false);
    }
    if (settings !== current) return;
    const source = await refresh(settings);
    if (key === null) say("Your key is forgotten.");
    else
      say(
        source === "backend"
          ? "Your key is saved. The app's own connection to Claude still answers first."
          : "Your key is saved. It is never shown again.",
      );
  };

  const submit = () => {
    if (busy) return;
    const key = input.value.trim();
    // The key lives in the request alone: the field is emptied as it is sent.
    input.value = "";
    if (key === "") {
      fail("Type or paste your key first.");
      return;
    }
    void send(key);
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    submit();
  });
  input.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.isComposing) return;
    event.preventDefault();
    submit();
  });
  save.addEventListener("click", submit);
  forget.addEventListener("click", () => void send(null));
  button.addEventListener("click", () => {
    const open = view.hidden;
    show(open);
    if (!open) return;
    say("");
    if (current !== undefined) void refresh(current);
    input.focus();
  });
  view.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    // Escape closes the settings, not the whole panel.
    event.stopPropagation();
    show(false);
    button.focus();
  });

  return {
    button,
    view,
    use: (settings) => {
      generation += 1;
      current = settings;
      can = settings === undefined ? "no" : "unknown";
      button.hidden = true;
      show(false);
      say("");
    },
    check: () => {
      const settings = current;
      if (settings === undefined || can !== "unknown") return;
      can = "asking";
      const mine = generation;
      settings.sourceInfo().then(
        (info) => {
          if (mine !== generation) return;
          can = info.canSaveKey === true ? "yes" : "no";
          button.hidden = can === "no";
          sourceName.textContent = sourceWords(info.source);
          onSource(info);
        },
        (error: unknown) => {
          if (mine !== generation) return;
          // A host that cannot answer the route never will; one that could not be reached is asked again.
          const type = (error as { type?: unknown } | null)?.type;
          can = type === "notConfigured" || type === "notFound" ? "no" : "unknown";
        },
      );
    },
  };
};
