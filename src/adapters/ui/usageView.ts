/**
 * The panel's usage line: what the conversation holds, cost and has left of
 * its budget (`POST /usage`), shown when the user asks (the header's
 * _Usage_ button) and on its own once a fifth of the budget or less is left,
 * so a conversation never runs out unannounced.
 */
import type { UsageResponse } from "../web/wire.ts";
import { h } from "./dom.ts";

/** From how much of its budget left (a share) the panel says so unasked. */
export const LOW_BUDGET_SHARE = 0.2;

/** What the usage line needs of a store. */
export interface UsageSource {
  readonly usage: (options?: { readonly cost?: boolean }) => Promise<UsageResponse>;
}

/** The usage line's parts: the header's button, the line, and how the panel drives them. */
export interface UsageView {
  readonly button: HTMLButtonElement;
  /** A live region, always in place: empty (and of no height) while nothing is shown. */
  readonly line: HTMLElement;
  /** The store's usage (or none): without one the button stays hidden. */
  readonly use: (source: UsageSource | undefined) => void;
  /**
   * A turn ended, or the conversation was started anew: the line shown is
   * read again; a hidden one asks the budget alone, and shows itself if it
   * runs low; one shown unasked goes once the budget is no longer low.
   */
  readonly turnEnded: () => void;
}

/** Numbers in the page's language. */
const formats = (lang: string | undefined) => ({
  tokens: new Intl.NumberFormat(lang, { notation: "compact", maximumFractionDigits: 1 }),
  share: new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: 0 }),
  dollars: (amount: number) =>
    new Intl.NumberFormat(lang, {
      style: "currency",
      currency: "USD",
      minimumFractionDigits: 2,
      // A conversation of a few cents says which: $0.0123, not $0.01.
      maximumFractionDigits: amount > 0 && amount < 1 ? 4 : 2,
    }).format(amount),
});

/**
 * What the line says of `usage`, in the page's language `lang`.
 *
 * @example
 * ```ts
 * usageWords({ context: 41_300, budget: { used: 400_000, max: 5_000_000 }, dollars: 0.1234 }, "en");
 * // "Last request: 41.3K tokens. Cost so far: $0.1234. Left: 4.6M of 5M tokens (92%)."
 * ```
 */
export const usageWords = (usage: UsageResponse, lang?: string): string => {
  // Asked without its cost (`cost: false`), the line says nothing of it.
  const f = formats(lang);
  const left = Math.max(0, usage.budget.max - usage.budget.used);
  const share = usage.budget.max > 0 ? left / usage.budget.max : 0;
  const cost =
    usage.dollars === undefined
      ? ""
      : usage.dollars === null
        ? " Cost so far: not known (what answered has no price here)."
        : ` Cost so far: ${f.dollars(usage.dollars)}.`;
  const ran = left === 0 ? " Start a new conversation to go on." : "";
  return `Last request: ${f.tokens.format(usage.context)} tokens.${cost} Left: ${f.tokens.format(left)} of ${f.tokens.format(usage.budget.max)} tokens (${f.share.format(share)}).${ran}`;
};

/** Whether `usage` leaves {@link LOW_BUDGET_SHARE} of the budget or less. */
export const budgetLow = (usage: UsageResponse): boolean =>
  usage.budget.max > 0 &&
  usage.budget.max - usage.budget.used <= usage.budget.max * LOW_BUDGET_SHARE;

/**
 * Builds the usage line and its _Usage_ button. The panel puts the button in
 * its header and the line under it, calls `use` with its store and
 * `turnEnded` after each turn.
 *
 * @example
 * ```ts
 * const usage = usageView(document);
 * header.append(usage.button);
 * header.after(usage.line);
 * usage.use(store.usage === undefined ? undefined : { usage: store.usage });
 * ```
 */
export const usageView = (doc: Document): UsageView => {
  const button = h(
    doc,
    "button",
    {
      type: "button",
      class: "usage-button",
      "aria-expanded": "false",
      "aria-controls": "usage",
      "aria-label": "Usage",
      title: "Usage",
      hidden: "",
    },
    // A glyph, as Settings' is: the header has no room for another word on a phone.
    h(doc, "span", { "aria-hidden": "true" }, "%"),
  );
  // Never hidden: a live region that appears with its text already in it may not be read out.
  const line = h(doc, "p", { class: "usage", id: "usage", role: "status" });
  let source: UsageSource | undefined;
  /** Why the line shows: the user asked, the budget runs low, or it does not. */
  let shown: "asked" | "low" | "no" = "no";
  /** Counts reads, so an answer older than the last one asked is dropped. */
  let asked = 0;
  const lang = () => doc.documentElement.lang || undefined;
  /** Shows `text` (why: the user asked, or the budget runs low), marked as low when `low`; or nothing. */
  const show = (why: "asked" | "low" | "no", text = "", low = why === "low") => {
    shown = why;
    line.textContent = why === "no" ? "" : text;
    line.classList.toggle("low", why !== "no" && low);
    button.setAttribute("aria-expanded", String(why === "asked"));
  };

  /** Reads the whole answer and shows it (`why`), unless a later read began. */
  const full = async (why: "asked" | "low", from: UsageSource, mine: number) => {
    try {
      const usage = await from.usage();
      if (mine !== asked) return;
      const low = budgetLow(usage);
      show(why === "asked" ? "asked" : low ? "low" : "no", usageWords(usage, lang()), low);
    } catch {
      if (mine !== asked || why !== "asked") return;
      show("asked", "What this conversation used could not be read just now.");
    }
  };

  const refresh = async () => {
    const from = source;
    if (from === undefined) return;
    const mine = ++asked;
    if (shown === "asked") return full("asked", from, mine);
    try {
      // Hidden, or shown because it ran low: the budget alone, which the host has in memory.
      const usage = await from.usage({ cost: false });
      if (mine !== asked) return;
      if (!budgetLow(usage)) return show("no");
      return full("low", from, mine);
    } catch {
      // Unasked, a failure shows nothing.
    }
  };

  button.addEventListener("click", () => {
    const from = source;
    if (shown === "asked") {
      asked++;
      return show("no");
    }
    if (from !== undefined) void full("asked", from, ++asked);
  });

  return {
    button,
    line,
    use: (next) => {
      source = next;
      asked++;
      button.hidden = next === undefined;
      show("no");
    },
    turnEnded: () => void refresh(),
  };
};
