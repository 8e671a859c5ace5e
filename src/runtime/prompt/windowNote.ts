/**
 * The window note (docs/window-context.md): what the user is looking at, as
 * a bounded `<window>{json}</window>` put before their text in the user turn.
 * Pure: the route, the live queries and the selections come in; a string of
 * at most 2 048 UTF-8 bytes, or null when there is nothing worth saying,
 * comes out. Its JSON is written and measured by hand (noteJson.ts): each
 * piece is measured before it is written, and only what is kept is written.
 */
import { clip } from "../clip.ts";
import { argumentJson, quote, quotedBytes, quotedPrefixBytes, utf8Bytes } from "./noteJson.ts";

/**
 * The note's bounds.
 *
 * @example
 * ```ts
 * const route = location.pathname.slice(0, NOTE_BOUNDS.route); // what the note would keep of it anyway
 * ```
 */
export const NOTE_BOUNDS = {
  /** The whole note, `<window>` and `</window>` included, in UTF-8 bytes. */
  bytes: 2048,
  /** The route, in characters (cut with an ellipsis). */
  route: 500,
  /** Each string in a query's arguments, and each selected id that is a string. */
  argumentString: 200,
  /** Live queries shown, newest first. */
  queries: 16,
  /** Selection kinds shown, the most recently changed first. */
  kinds: 8,
  /** A kind's name, in characters. */
  kindName: 64,
  /** Ids shown of one kind. */
  idsPerKind: 100,
} as const;

/** Where a live query comes from: the app's own screen, or an agent over MCP. */
export type QueryOrigin = "frontend" | "agent";

/** A live query as the note reads it. */
export interface NoteQuery {
  readonly clientId: string;
  readonly command: string;
  /** The named arguments, as the command's schema encodes them. */
  readonly args: unknown;
  readonly origin: QueryOrigin;
}

/** What is selected of one kind, and the route it was selected on. */
export interface NoteSelection {
  readonly kind: string;
  readonly ids: ReadonlyArray<string | number>;
  /**
   * How many were selected, when more than `ids` holds (the log keeps the
   * first 100 ids and this count). Absent, or not more than `ids.length`:
   * `ids` is all that was selected.
   */
  readonly total?: number;
  readonly route: string | null;
}

/** What the window note is written from: the window, its route, its live queries and selections, and the tools offered. */
export interface NoteInput {
  /** The asking window: only its own queries are shown. */
  readonly clientId: string;
  readonly route: string | null;
  /** Live queries in the order they were made, oldest first. */
  readonly queries: ReadonlyArray<NoteQuery>;
  /** Selections in the order they last changed, oldest first. */
  readonly selections: ReadonlyArray<NoteSelection>;
  /** The tools offered to this user now: a query of any other command is not shown. */
  readonly offered: ReadonlySet<string>;
  /** A command's argument names in parameter order (undefined for an unknown command). */
  readonly argumentNames: (command: string) => ReadonlyArray<string> | undefined;
}

/** JSON with `<` written `\u003c`, so nothing in the note can open or close a tag. */
export const json = (value: unknown): string => {
  if (typeof value === "string") return quote(value);
  const text = JSON.stringify(value);
  return text.includes("<") ? text.replaceAll("<", "\\u003c") : text;
};

/** The UTF-8 bytes of `json(text)` for a string. */
export const stringJsonBytes = (text: string): number => quotedBytes(text);

/** `{"name":value,…}` in parameter order; nulls left out, an unreadable value shown as `{}`. */
const argumentsJson = (args: unknown, names: ReadonlyArray<string>): string => {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return "{}";
  let out = "";
  for (const name of names) {
    if (!Object.hasOwn(args, name)) continue;
    const value = (args as Record<string, unknown>)[name];
    if (value === null || value === undefined) continue;
    const member = `${quote(name)}:${argumentJson(value, NOTE_BOUNDS.argumentString) ?? "{}"}`;
    out = out === "" ? member : `${out},${member}`;
  }
  return `{${out}}`;
};

const OPEN = "<window>{";
const CLOSE = "}</window>";
/** `"more_selected":`, before the count of selected ids left out. */
const MORE_KEY = 16;
/** `"route":`, `"showing":[]`, `"selected":{}`: the bytes a part adds around its content. */
const ROUTE_KEY = 8;
const SHOWING_KEY = 12;
const SELECTED_KEY = 13;

/** The bytes of `"more_selected":n` for `left` ids left out; 0 when none is (the part is not written). */
const moreBytes = (left: number): number => (left > 0 ? MORE_KEY + `${left}`.length : 0);

/**
 * How many of a kind were selected: its `total` when that says more than its
 * ids (a fraction rounded down, past 2^53 - 1 taken as that), else its ids.
 */
const selectedCount = (s: NoteSelection): number => {
  const total = s.total;
  return typeof total === "number" && total > s.ids.length
    ? Math.min(Math.floor(total), Number.MAX_SAFE_INTEGER)
    : s.ids.length;
};

/**
 * The bytes of a note made of a route's JSON (0 for none), queries' JSON
 * with the commas between them (0 for none), a `"selected"` part (0 for
 * none, else all of it) and `more_selected` (`moreBytes`, 0 for none).
 */
const noteBytes = (route: number, queries: number, selected: number, more: number): number => {
  let parts = 0;
  let n = OPEN.length + CLOSE.length;
  if (route > 0) {
    n += ROUTE_KEY + route;
    parts += 1;
  }
  if (queries > 0) {
    n += SHOWING_KEY + queries;
    parts += 1;
  }
  if (selected > 0) {
    n += selected;
    parts += 1;
  }
  if (more > 0) {
    n += more;
    parts += 1;
  }
  return n + Math.max(0, parts - 1);
};

/** One kind of selection as the note shows it. */
interface Kind {
  /** The name, cut. */
  readonly name: string;
  /** Bytes of `"name":[]`. */
  readonly nameBytes: number;
  readonly ids: ReadonlyArray<string | number>;
  /** The ids shown, as JSON. */
  readonly shown: string[];
}

const isId = (id: string | number): boolean => typeof id === "string" || Number.isFinite(id);

/** The first 100 ids, those that are strings or finite numbers; the array itself when it is that. */
const kindIds = (ids: ReadonlyArray<string | number>): ReadonlyArray<string | number> => {
  const n = Math.min(ids.length, NOTE_BOUNDS.idsPerKind);
  for (let i = 0; i < n; i++) {
    if (!isId(ids[i] as string | number)) return ids.slice(0, NOTE_BOUNDS.idsPerKind).filter(isId);
  }
  return ids.length > n ? ids.slice(0, n) : ids;
};

/**
 * The route's bytes unit by unit, when it must be cut (a route is at most 500
 * units): filled and read within one call, with nothing in between that could
 * call back into the app, so nothing is kept in it between calls.
 */
const ROUTE_PREFIX = new Uint32Array(NOTE_BOUNDS.route + 1);

/** The bytes of `json(clip(route, max))` for a longer route, from its units' bytes summed in `prefix`. */
const cutRouteBytes = (route: string, prefix: Uint32Array, max: number): number => {
  let end = max - 1;
  const last = route.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return 2 + (prefix[end] as number) + 3; // the quotes, the units kept, the ellipsis
};

/**
 * Builds the note for a turn, or null when there is nothing worth saying.
 * Past 2 048 bytes the oldest queries go first, then ids from the longest
 * selection, then whole kinds (the oldest first), and last the route is cut
 * shorter. Each piece is measured before it is written: what cannot fit is
 * never written. `more_selected` is how many selected ids on the route the
 * note leaves out (absent when none is): of each kind, `selectedCount` less
 * the ids shown.
 *
 * @example
 * ```ts
 * windowNote({ clientId: "w1", route: "/customers/42", queries: [], selections: [],
 *   offered: new Set(), argumentNames: () => undefined });
 * // '<window>{"route":"/customers/42"}</window>'
 * ```
 */
export const windowNote = (input: NoteInput): string | null => {
  const max = NOTE_BOUNDS.bytes;
  const wholeRoute =
    input.route === null || input.route.trim() === "" ? null : clip(input.route, NOTE_BOUNDS.route);
  const routeBytes = wholeRoute === null ? 0 : quotedBytes(wholeRoute);

  // The selections made on this route, the most recently changed first; 8 kinds, 100 ids a kind.
  // `total` counts every id selected of the kinds the note looks at (those past 8 too); `listed`
  // the ids of the kinds kept, before any is cut to fit. What is not shown of `total` is left out.
  let total = 0;
  let listed = 0;
  const kinds: Kind[] = [];
  const names = new Set<string>();
  for (let i = input.selections.length - 1; i >= 0; i--) {
    const s = input.selections[i] as NoteSelection;
    if (s.route !== input.route) continue;
    const name = clip(s.kind, NOTE_BOUNDS.kindName);
    if (name.trim() === "" || names.has(name)) continue;
    const ids = kindIds(s.ids);
    if (ids.length === 0) continue;
    names.add(name);
    total = Math.min(total + selectedCount(s), Number.MAX_SAFE_INTEGER);
    if (kinds.length === NOTE_BOUNDS.kinds) continue;
    listed += ids.length;
    kinds.push({ name, nameBytes: quotedBytes(name) + 3, ids, shown: [] });
  }
  /** The bytes of `"selected":{…}` with its first `count` kinds and `ids` bytes of their ids. */
  const nameSums = [0];
  for (const k of kinds) nameSums.push((nameSums[nameSums.length - 1] as number) + k.nameBytes);
  const selected = (count: number, ids: number): number =>
    count === 0 ? 0 : SELECTED_KEY + ids + count - 1 + (nameSums[count] as number);

  // The ids, level by level (the first of each kind, then the second…) while they fit: the same
  // as dropping them one at a time from the longest selection. What went in is kept in order, so
  // room can be made again by taking the last ones out.
  const takenKinds: Kind[] = [];
  const takenCosts: number[] = [];
  let ids = 0;
  let all = true;
  const room = max - noteBytes(routeBytes, 0, selected(kinds.length, 0), moreBytes(total - listed));
  fill: for (let level = 0; level < NOTE_BOUNDS.idsPerKind; level++) {
    let any = false;
    for (const k of kinds) {
      const id = k.ids[level];
      if (id === undefined) continue;
      let text: string;
      let cost: number;
      if (typeof id === "number") {
        text = `${id}`;
        cost = text.length;
      } else {
        const cut = clip(id, NOTE_BOUNDS.argumentString);
        cost = quotedBytes(cut);
        text = cost === cut.length + 2 ? `"${cut}"` : quote(cut);
      }
      if (level > 0) cost += 1;
      if (ids + cost > room) {
        all = false;
        break fill;
      }
      ids += cost;
      k.shown.push(text);
      takenKinds.push(k);
      takenCosts.push(cost);
      any = true;
    }
    if (!any) break;
  }
  if (!all) {
    // Ids went, so more is left out than was counted, and its count may take a digit more: an id
    // at a time goes until it fits (each frees a byte at least, and adds a digit at most).
    while (
      takenKinds.length > 0 &&
      noteBytes(routeBytes, 0, selected(kinds.length, ids), moreBytes(total - takenKinds.length)) >
        max
    ) {
      (takenKinds.pop() as Kind).shown.pop();
      ids -= takenCosts.pop() as number;
    }
  }
  let kindCount = kinds.length;
  let left = total - takenKinds.length;
  let more = moreBytes(left);

  // Queries, newest first: the asking window's own, from its screen, offered now, one of each,
  // while they fit beside everything selected (so the oldest go first, and all go before any id).
  const queries: string[] = [];
  let queryBytes = 0;
  const seen = new Set<string>();
  for (
    let i = input.queries.length - 1;
    all && i >= 0 && queries.length < NOTE_BOUNDS.queries;
    i--
  ) {
    const q = input.queries[i] as NoteQuery;
    if (q.clientId !== input.clientId || q.origin !== "frontend" || !input.offered.has(q.command))
      continue;
    const params = input.argumentNames(q.command);
    if (params === undefined) continue;
    const shown = `{"command":${quote(q.command)},"arguments":${argumentsJson(q.args, params)}}`;
    if (seen.has(shown)) continue;
    seen.add(shown);
    const next = queryBytes + utf8Bytes(shown) + (queries.length > 0 ? 1 : 0);
    if (noteBytes(routeBytes, next, selected(kindCount, ids), more) > max) break;
    queryBytes = next;
    queries.push(shown);
  }

  // Still too long with no query and no id: whole kinds go, the oldest first, then the route is cut.
  while (kindCount > 0 && noteBytes(routeBytes, queryBytes, selected(kindCount, ids), more) > max) {
    if (ids > 0) for (const k of kinds) k.shown.length = 0;
    kindCount -= 1;
    ids = 0;
    left = total;
    more = moreBytes(left);
  }
  let route: string | null = null;
  if (wholeRoute !== null) {
    const rest = selected(kindCount, ids);
    if (noteBytes(routeBytes, queryBytes, rest, more) <= max) route = quote(wholeRoute);
    else {
      // The longest cut of the route that fits: its bytes summed unit by unit, the cut found by halving.
      const prefix = ROUTE_PREFIX;
      quotedPrefixBytes(wholeRoute, prefix);
      let fits = 0;
      let over = wholeRoute.length;
      while (over - fits > 1) {
        const mid = (fits + over) >> 1;
        const bytes = cutRouteBytes(wholeRoute, prefix, mid);
        if (noteBytes(bytes, queryBytes, rest, more) <= max) fits = mid;
        else over = mid;
      }
      route = fits > 1 ? quote(clip(wholeRoute, fits)) : null;
    }
  }

  const parts: string[] = [];
  if (route !== null) parts.push(`"route":${route}`);
  if (queries.length > 0) parts.push(`"showing":[${queries.join(",")}]`);
  if (kindCount > 0) {
    const shown: string[] = [];
    for (let k = 0; k < kindCount; k++) {
      const kind = kinds[k] as Kind;
      shown.push(`${quote(kind.name)}:[${kind.shown.join(",")}]`);
    }
    parts.push(`"selected":{${shown.join(",")}}`);
  }
  if (left > 0) parts.push(`"more_selected":${left}`);
  if (parts.length === 0) return null;
  return `${OPEN}${parts.join(",")}${CLOSE}`;
};
