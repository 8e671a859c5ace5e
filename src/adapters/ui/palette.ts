/**
 * The assistant in an app's command palette (⌘K): when nothing the palette
 * knows matches what the user typed, one entry offers to ask the assistant
 * instead. Plain data and a function: any palette, any framework.
 */
import { openAssistant } from "./installed.ts";

/**
 * The entry {@link assistantPaletteEntry} returns: show `label`, call `run` when it is chosen.
 *
 * @example
 * ```ts
 * const ask: AssistantPaletteEntry | undefined = assistantPaletteEntry("Find Hopper", []);
 * if (ask !== undefined) option.textContent = ask.label; // "Ask the assistant: Find Hopper"
 * ```
 */
export interface AssistantPaletteEntry {
  /** `"elyra-assistant-ask"` unless given: stable, for a key or an element id (`aria-activedescendant`). */
  readonly id: string;
  /** `Ask the assistant: …` with the query on one line, clipped to `maxLabel` characters. */
  readonly label: string;
  /** What `run` sends: the query as typed, trimmed, never clipped. */
  readonly query: string;
  /** Opens the assistant and sends `query`; resolves to whether it was sent (false with no assistant installed). */
  readonly run: () => Promise<boolean>;
}

/**
 * Options of {@link assistantPaletteEntry}.
 *
 * @example
 * ```ts
 * const options: AssistantPaletteOptions = { always: true, maxLabel: 40, prefix: "Ask: " };
 * const ask = assistantPaletteEntry(query, matches, options);
 * ```
 */
export interface AssistantPaletteOptions {
  /** Offer the entry even when the palette has matches (default false: only when nothing matches). */
  readonly always?: boolean;
  /** The entry's id (default `"elyra-assistant-ask"`). */
  readonly id?: string;
  /** Written before the query (default `"Ask the assistant: "`). */
  readonly prefix?: string;
  /** How many characters of the query the label shows before `…` (default 60, at least 1). */
  readonly maxLabel?: number;
  /** What `run` calls with the query (default {@link openAssistant}: the page's installed assistant). */
  readonly open?: (prompt: string) => Promise<boolean>;
}

const DEFAULT_ID = "elyra-assistant-ask";
const DEFAULT_PREFIX = "Ask the assistant: ";
export const DEFAULT_MAX_LABEL = 60;

/** `text` on one line (runs of white space, line breaks included, become one space), at most `max` characters. */
const clip = (text: string, max: number): string => {
  const line = text.replace(/\s+/g, " ");
  // By code point, so a clip never splits an emoji or another astral character in two.
  const chars = Array.from(line);
  return chars.length <= max ? line : `${chars.slice(0, max - 1).join("")}…`;
};

/**
 * The "Ask the assistant: …" entry a command palette shows for `query`, or
 * `undefined` when it should show none: the query is empty or only white
 * space, or the palette has `matches` (an array of them, or their count) and
 * `always` is not set. Choosing it sends the trimmed query, whole, to the
 * page's assistant through {@link openAssistant}: the panel opens and the
 * prompt is sent. Only the label is clipped; a query too long for the host is
 * refused there and shown in the panel like any refused prompt.
 *
 * @example
 * ```ts
 * const matches = commands.filter((c) => c.title.toLowerCase().includes(query.toLowerCase()));
 * const ask = assistantPaletteEntry(query, matches);
 * const shown = ask === undefined ? matches : [...matches, { id: ask.id, title: ask.label, run: ask.run }];
 * ```
 */
export const assistantPaletteEntry = (
  query: string,
  matches: ArrayLike<unknown> | number,
  options: AssistantPaletteOptions = {},
): AssistantPaletteEntry | undefined => {
  const text = query.trim();
  if (text === "") return undefined;
  const count = typeof matches === "number" ? matches : matches.length;
  if (count > 0 && options.always !== true) return undefined;
  const open = options.open ?? openAssistant;
  const wanted = options.maxLabel ?? DEFAULT_MAX_LABEL;
  const max = Number.isNaN(wanted) ? DEFAULT_MAX_LABEL : Math.max(1, Math.floor(wanted));
  return {
    id: options.id ?? DEFAULT_ID,
    label: `${options.prefix ?? DEFAULT_PREFIX}${clip(text, max)}`,
    query: text,
    run: () => open(text),
  };
};
