/**
 * The window note (DESIGN §9): what the user is looking at, as a bounded
 * `<window>{json}</window>` put before their text in the user turn. Pure: the
 * route, the live queries and the selections come in; a string of at most
 * 2 048 UTF-8 bytes, or null when there is nothing worth saying, comes out.
 */
import { clip } from "./clip.ts";

/** The note's bounds. */
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
  /** How many were selected, when more than `ids` holds. */
  readonly total?: number;
  readonly route: string | null;
}

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

/** JSON with `<`, `>` and `&` escaped, so nothing in it can close the `<window>` tag. */
const json = (value: unknown): string =>
  JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );

/** UTF-8 length of a string that holds no lone surrogate (JSON.stringify escapes those). */
const bytesOf = (text: string): number => {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i += 1;
    } else n += 3;
  }
  return n;
};

const UNREADABLE = Symbol("unreadable");
const MAX_DEPTH = 16;

/** An argument value as the note shows it: strings cut, anything not plain JSON unreadable. */
const readable = (value: unknown, depth = 0): unknown => {
  if (depth > MAX_DEPTH) return UNREADABLE;
  switch (typeof value) {
    case "string":
      return clip(value, NOTE_BOUNDS.argumentString);
    case "number":
      return Number.isFinite(value) ? value : UNREADABLE;
    case "boolean":
      return value;
    case "object": {
      if (value === null) return null;
      if (Array.isArray(value)) {
        const out: unknown[] = [];
        for (const item of value) {
          const r = readable(item, depth + 1);
          if (r === UNREADABLE) return UNREADABLE;
          out.push(r);
        }
        return out;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return UNREADABLE;
      const out: Record<string, unknown> = Object.create(null);
      for (const key of Object.keys(value)) {
        const r = readable((value as Record<string, unknown>)[key], depth + 1);
        if (r === UNREADABLE) return UNREADABLE;
        out[key] = r;
      }
      return out;
    }
    default:
      return UNREADABLE;
  }
};

/** `{"name":value,…}` in parameter order; nulls left out, an unreadable value shown as `{}`. */
const argumentsJson = (args: unknown, names: ReadonlyArray<string>): string => {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return "{}";
  const parts: string[] = [];
  for (const name of names) {
    if (!Object.hasOwn(args, name)) continue;
    const value = (args as Record<string, unknown>)[name];
    if (value === null || value === undefined) continue;
    const shown = readable(value);
    parts.push(`${json(name)}:${shown === UNREADABLE ? "{}" : json(shown)}`);
  }
  return `{${parts.join(",")}}`;
};

const OPEN = "<window>{";
const CLOSE = "}</window>";
const MORE = '"more_selected":true';

interface Kind {
  readonly name: string;
  readonly ids: string[];
  idBytes: number;
}

/**
 * Builds the note for a turn, or null when there is nothing worth saying.
 * Past 2 048 bytes the oldest queries go first, then ids from the longest
 * selection, then whole kinds, then the route is cut shorter.
 *
 * @example
 * ```ts
 * windowNote({ clientId: "w1", route: "/customers/42", queries: [], selections: [],
 *   offered: new Set(), argumentNames: () => undefined });
 * // '<window>{"route":"/customers/42"}</window>'
 * ```
 */
export const windowNote = (input: NoteInput): string | null => {
  let route =
    input.route === null || input.route.trim() === "" ? null : clip(input.route, NOTE_BOUNDS.route);

  // Newest first, the asking window's own, from its screen, offered now; one of each.
  const queries: string[] = [];
  const seen = new Set<string>();
  for (let i = input.queries.length - 1; i >= 0 && queries.length < NOTE_BOUNDS.queries; i--) {
    const q = input.queries[i] as NoteQuery;
    if (q.clientId !== input.clientId || q.origin !== "frontend" || !input.offered.has(q.command))
      continue;
    const names = input.argumentNames(q.command);
    if (names === undefined) continue;
    const shown = `{"command":${json(q.command)},"arguments":${argumentsJson(q.args, names)}}`;
    if (seen.has(shown)) continue;
    seen.add(shown);
    queries.push(shown);
  }

  // The selections made on this route, the most recently changed first.
  let more = false;
  const kinds: Kind[] = [];
  const names = new Set<string>();
  for (let i = input.selections.length - 1; i >= 0; i--) {
    const s = input.selections[i] as NoteSelection;
    if (s.route !== input.route) continue;
    const name = clip(s.kind, NOTE_BOUNDS.kindName);
    if (name.trim() === "" || names.has(name)) continue;
    if (s.ids.length === 0) continue;
    names.add(name);
    if (kinds.length === NOTE_BOUNDS.kinds) {
      more = true;
      continue;
    }
    const ids = s.ids
      .slice(0, NOTE_BOUNDS.idsPerKind)
      .filter((id) => typeof id === "string" || Number.isFinite(id))
      .map((id) => json(typeof id === "string" ? clip(id, NOTE_BOUNDS.argumentString) : id));
    if (ids.length < s.ids.length || (s.total ?? 0) > s.ids.length) more = true;
    kinds.push({ name: json(name), ids, idBytes: ids.reduce((n, id) => n + bytesOf(id), 0) });
  }

  const kindBytes = (k: Kind) => bytesOf(k.name) + 3 + k.idBytes + Math.max(0, k.ids.length - 1); // name:[ids]
  const size = (): number => {
    const parts: number[] = [];
    if (route !== null) parts.push(8 + bytesOf(json(route))); // "route":
    if (queries.length > 0)
      parts.push(12 + queries.reduce((n, q) => n + bytesOf(q), 0) + queries.length - 1); // "showing":[]
    if (kinds.length > 0)
      parts.push(13 + kinds.reduce((n, k) => n + kindBytes(k), 0) + kinds.length - 1); // "selected":{}
    if (more) parts.push(MORE.length);
    return OPEN.length + CLOSE.length + parts.reduce((n, p) => n + p, 0) + parts.length - 1;
  };

  while (size() > NOTE_BOUNDS.bytes && queries.length > 0) queries.pop();
  while (size() > NOTE_BOUNDS.bytes && kinds.some((k) => k.ids.length > 0)) {
    let longest = kinds[0] as Kind;
    for (const k of kinds) if (k.ids.length > longest.ids.length) longest = k;
    longest.idBytes -= bytesOf(longest.ids.pop() as string);
    more = true;
  }
  while (size() > NOTE_BOUNDS.bytes && kinds.length > 0) {
    kinds.pop();
    more = true;
  }
  if (route !== null && size() > NOTE_BOUNDS.bytes) {
    // The longest cut of the route that fits, found by halving.
    const whole = route;
    let fits = 0;
    let over = whole.length;
    while (over - fits > 1) {
      const mid = (fits + over) >> 1;
      route = clip(whole, mid);
      if (size() <= NOTE_BOUNDS.bytes) fits = mid;
      else over = mid;
    }
    route = fits > 1 ? clip(whole, fits) : null;
  }

  if (route === null && queries.length === 0 && kinds.length === 0 && !more) return null;
  const parts: string[] = [];
  if (route !== null) parts.push(`"route":${json(route)}`);
  if (queries.length > 0) parts.push(`"showing":[${queries.join(",")}]`);
  if (kinds.length > 0)
    parts.push(`"selected":{${kinds.map((k) => `${k.name}:[${k.ids.join(",")}]`).join(",")}}`);
  if (more) parts.push(MORE);
  return `${OPEN}${parts.join(",")}${CLOSE}`;
};
