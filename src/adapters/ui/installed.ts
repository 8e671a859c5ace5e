/**
 * The page's assistant: one store installed for the whole page, so any code
 * can open the panel or tell what the user selected without passing it around.
 */
import type { AssistantStore } from "./assistantStore.ts";
import type { AssistantSuggestion, AssistantWelcome } from "./welcome.ts";

let installed: AssistantStore | undefined;
/** The installed store's greeting and suggestions, for panels that have none of their own. */
let welcome: AssistantWelcome = {};
/** Told when a store is installed: panels already on the page that have none take it. */
const waiting = new Set<(store: AssistantStore) => void>();

/** Calls `take` with the installed store now, or once one is installed; returns a function that stops waiting. */
export const whenInstalled = (take: (store: AssistantStore) => void): (() => void) => {
  if (installed !== undefined) {
    take(installed);
    return () => undefined;
  }
  waiting.add(take);
  return () => waiting.delete(take);
};

/** Options of {@link installAssistant}. */
export interface InstallOptions {
  /** Open the panel when a confirmation arrives while it is closed (default: only the launcher's badge says so). */
  readonly openOnQuestion?: boolean;
  /**
   * What an empty panel says first, instead of a blank column; default
   * "Hello. Ask me about what you see here, or ask me to do it for you."
   * A panel's own `greeting` wins.
   */
  readonly greeting?: string;
  /**
   * The prompts an empty panel offers as buttons: a click sends one (an
   * object with `send: false` puts it in the text box instead). A panel's own
   * `suggestions` win; set them there to follow the page (`panel.suggestions = […]`).
   */
  readonly suggestions?: ReadonlyArray<AssistantSuggestion>;
}

/**
 * Makes `store` the page's assistant, used by {@link openAssistant} and
 * {@link assistant}. Returns a function that uninstalls it.
 *
 * @example
 * ```ts
 * const uninstall = installAssistant(createAssistantStore(assistantClient({ token: "page-token" })));
 * openAssistant("Summarise this customer");
 * uninstall();
 * ```
 */
export const installAssistant = (
  store: AssistantStore,
  options: InstallOptions = {},
): (() => void) => {
  installed = store;
  welcome = {
    ...(options.greeting === undefined ? {} : { greeting: options.greeting }),
    ...(options.suggestions === undefined ? {} : { suggestions: options.suggestions }),
  };
  // A question that arrives while the panel is closed opens it, when asked to.
  let asked = store.getSnapshot().waiting.length;
  const unsubscribe =
    options.openOnQuestion === true
      ? store.subscribe((snapshot) => {
          const now = snapshot.waiting.length;
          if (now > asked && !snapshot.open) void store.open();
          asked = now;
        })
      : undefined;
  for (const take of [...waiting]) {
    waiting.delete(take);
    take(store);
  }
  // A page left for good (not kept in the back-forward cache) says goodbye to its window.
  const leave = (event: Event) => {
    if (!(event as PageTransitionEvent).persisted) store.goodbye();
  };
  globalThis.addEventListener?.("pagehide", leave);
  return () => {
    unsubscribe?.();
    globalThis.removeEventListener?.("pagehide", leave);
    if (installed === store) {
      installed = undefined;
      welcome = {};
    }
  };
};

/** The installed store's greeting and suggestions (`{}` when none were given). */
export const installedWelcome = (): AssistantWelcome => welcome;

/** The installed store, if any. */
export const installedAssistant = (): AssistantStore | undefined => installed;

/**
 * Opens the page's assistant and, given a prompt, sends it. Does nothing (and
 * resolves to false) when no assistant is installed.
 *
 * @example
 * ```ts
 * button.onclick = () => openAssistant("Which invoices are overdue?");
 * ```
 */
export const openAssistant = (prompt?: string): Promise<boolean> =>
  installed?.open(prompt) ?? Promise.resolve(false);

/**
 * The page's assistant as the app's views call it. `selected` tells what the
 * user selected of one kind (`[]` clears it); it does nothing in an app that
 * has no assistant installed, so views can call it unconditionally.
 *
 * @example
 * ```ts
 * assistant.selected("customers", [42, 43]);
 * ```
 */
export const assistant = {
  open: openAssistant,
  selected: (kind: string, ids: ReadonlyArray<string | number>): Promise<boolean> =>
    installed?.selected(kind, ids) ?? Promise.resolve(false),
} as const;
