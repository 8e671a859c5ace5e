/**
 * What the panel's list of conversations says, in words for the person
 * reading it: never a thread's id, an error's tag or a status code alone.
 * One table of the words, and the sentences made from them; times in the
 * page's language.
 */
import type { ThreadInfo } from "../web/wire.ts";

/**
 * The list's words, in one place.
 *
 * @example
 * ```ts
 * button.setAttribute("aria-label", THREAD_WORDS.conversations);
 * ```
 */
export const THREAD_WORDS = {
  conversations: "Conversations",
  archivedConversations: "Archived conversations",
  newConversation: "New conversation",
  untitled: "New conversation",
  search: "Search conversations",
  searchHint: "Search…",
  archived: "Archived",
  archivedTag: "archived",
  shownNow: "shown now",
  showMore: "Show more",
  rename: "Rename",
  renameField: "New name",
  renameHint: "Enter saves, Escape cancels. Empty: its first question's words.",
  archive: "Archive",
  bringBack: "Bring back",
  delete: "Delete",
  cancel: "Cancel",
  deleteQuestion: "Delete this conversation for good?",
  deleteWarning: "This cannot be undone.",
  loading: "Loading…",
  none: "No conversations yet.",
  noneArchived: "No archived conversations.",
  renamed: "Renamed.",
  archivedDone: "Archived.",
  broughtBack: "Brought back.",
  deleted: "Deleted for good.",
  listFailed: "The list could not be read",
  renameFailed: "It could not be renamed",
  archiveFailed: "It could not be archived",
  bringBackFailed: "It could not be brought back",
  deleteFailed: "It could not be deleted",
} as const;

/**
 * A thread's name as the list shows it: its title, or the word for an untitled one.
 *
 * @example
 * ```ts
 * threadTitle({ title: "" }); // "New conversation"
 * ```
 */
export const threadTitle = (thread: Pick<ThreadInfo, "title">): string =>
  thread.title.trim() === "" ? THREAD_WORDS.untitled : thread.title;

/**
 * How many a search found, or that it found none.
 *
 * @example
 * ```ts
 * foundWords(2); // "2 conversations found."
 * ```
 */
export const foundWords = (count: number): string =>
  count === 0 ? "Nothing found." : `${count} conversation${count === 1 ? "" : "s"} found.`;

/**
 * When a thread was last used, in the page's language `lang`: "now", "5
 * minutes ago", "yesterday", up to a week; its date after that.
 *
 * @example
 * ```ts
 * lastUsedWords(Date.now() - 2 * 3_600_000, Date.now(), "en"); // "2 hours ago"
 * ```
 */
export const lastUsedWords = (at: number, now: number, lang?: string): string => {
  const seconds = (at - now) / 1_000;
  const far = Math.abs(seconds);
  const relative = new Intl.RelativeTimeFormat(lang, { numeric: "auto" });
  if (far < 45) return relative.format(0, "second");
  if (far < 45 * 60) return relative.format(Math.round(seconds / 60), "minute");
  if (far < 22 * 3_600) return relative.format(Math.round(seconds / 3_600), "hour");
  if (far < 6.5 * 86_400) return relative.format(Math.round(seconds / 86_400), "day");
  return new Date(at).toLocaleDateString(lang, { dateStyle: "medium" });
};

/**
 * Why a request about the user's conversations failed, in words; `doing`
 * says what was asked ("The list could not be read").
 *
 * @example
 * ```ts
 * threadErrorWords(new ConnectionError({ message: "Failed to fetch" }), "The list could not be read");
 * // "The list could not be read: the app could not be reached. Check your connection and try again."
 * ```
 */
export const threadErrorWords = (error: unknown, doing: string): string => {
  const e = error as { _tag?: unknown; type?: unknown; status?: unknown } | null;
  if (e?._tag === "ConnectionError")
    return `${doing}: the app could not be reached. Check your connection and try again.`;
  const status = typeof e?.status === "number" ? e.status : 0;
  switch (e?.type) {
    case "threadNotFound":
      return `${doing}: that conversation is no longer there.`;
    case "unauthenticated":
      return `${doing}: you are signed out. Sign in again, then try again.`;
    case "forbidden":
      return `${doing}: this page is out of date. Reload it, then try again.`;
    case "notFound":
      return `${doing}: this app keeps no list of conversations.`;
  }
  return status === 429 || status >= 500
    ? `${doing}: the app could not do it just now. Try again in a moment.`
    : `${doing}: the app refused.`;
};
