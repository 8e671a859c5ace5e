/**
 * The window note as src/runtime/prompt/windowNote.ts built it before issue 18
 * (target 4) made it faster, kept word for word (JSON.stringify, TextEncoder)
 * so the properties can check that the new note is byte for byte the old one.
 * Issue 19 (item 6) changed both alike: `more_selected` is how many selected
 * ids were left out, not `true`; here that count is written with
 * JSON.stringify and measured by its UTF-8 bytes like every other part.
 * Not a spec: the properties in windowNoteSame.spec.ts import it.
 */
import type { NoteInput, NoteQuery, NoteSelection } from "elyra-assistant/machines";

const B = {
  bytes: 2048,
  route: 500,
  argumentString: 200,
  queries: 16,
  kinds: 8,
  kindName: 64,
  idsPerKind: 100,
} as const;

const clip = (text: string, max: number): string => {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
};

/** JSON with `<` written `\u003c`, so nothing in the note can open or close a tag. */
const json = (value: unknown): string => {
  const text = JSON.stringify(value);
  return text.includes("<") ? text.replaceAll("<", "\\u003c") : text;
};

const encoder = new TextEncoder();
/** Where lengths are measured: nothing is kept in it between calls. */
const scratch = new Uint8Array(16_384);

/** UTF-8 length of a string that holds no lone surrogate (JSON.stringify escapes those). */
const bytesOf = (text: string): number =>
  text.length * 3 <= scratch.length
    ? encoder.encodeInto(text, scratch).written
    : encoder.encode(text).length;

/** The bytes one UTF-16 unit adds to a string's JSON in the note (a pair counts at its first unit). */
const unitBytes = (text: string, i: number): number => {
  const c = text.charCodeAt(i);
  if (c < 0x20) return c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6;
  if (c === 0x22 || c === 0x5c) return 2; // \" and \\
  if (c === 0x3c) return 6; // \u003c
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdbff) {
    const next = text.charCodeAt(i + 1);
    return next >= 0xdc00 && next <= 0xdfff ? 4 : 6;
  }
  if (c >= 0xdc00 && c <= 0xdfff) {
    const before = text.charCodeAt(i - 1);
    return before >= 0xd800 && before <= 0xdbff ? 0 : 6;
  }
  return 3;
};

/** The UTF-8 bytes of `json(text)` for a string. */
export const referenceStringJsonBytes = (text: string): number => bytesOf(json(text));

const UNREADABLE = Symbol("unreadable");
const MAX_DEPTH = 16;

/** An argument value as the note shows it: strings cut, anything not plain JSON unreadable. */
const readable = (value: unknown, depth = 0): unknown => {
  if (depth > MAX_DEPTH) return UNREADABLE;
  switch (typeof value) {
    case "string":
      return clip(value, B.argumentString);
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
/** `"more_selected":n` for `left` ids left out. */
const moreJson = (left: number): string => `${json("more_selected")}:${json(left)}`;
/** `"route":`, `"showing":[]`, `"selected":{}`: the bytes a part adds around its content. */
const ROUTE_KEY = 8;
const SHOWING_KEY = 12;
const SELECTED_KEY = 13;

/** One kind of selection as the note shows it. */
interface Kind {
  /** The name as JSON. */
  readonly name: string;
  /** Bytes of `"name":[]`. */
  readonly nameBytes: number;
  readonly ids: ReadonlyArray<string | number>;
  /** The ids shown, as JSON. */
  readonly shown: string[];
}

const idJson = (id: string | number): string =>
  typeof id === "number" ? json(id) : json(clip(id, B.argumentString));

/** The sizes a note is made of, in bytes. */
interface Sizes {
  /** The route's JSON, 0 for none. */
  readonly route: number;
  /** The queries' JSON with the commas between them, and whether there are any. */
  readonly queries: number;
  readonly hasQueries: boolean;
  /** How many kinds are shown, and the bytes of their ids with the commas between. */
  readonly kinds: number;
  readonly ids: number;
  /** How many selected ids are left out: `more_selected` is written when that is any. */
  readonly left: number;
}

/**
 * Builds the note for a turn, or null when there is nothing worth saying.
 * Past 2 048 bytes the oldest queries go first, then ids from the longest
 * selection, then whole kinds (the oldest first), and last the route is cut
 * shorter. Each piece is measured before it is written: what cannot fit is
 * never written.
 *
 * @example
 * ```ts
 * windowNote({ clientId: "w1", route: "/customers/42", queries: [], selections: [],
 *   offered: new Set(), argumentNames: () => undefined });
 * // '<window>{"route":"/customers/42"}</window>'
 * ```
 */
export const referenceNote = (input: NoteInput): string | null => {
  const wholeRoute =
    input.route === null || input.route.trim() === "" ? null : clip(input.route, B.route);
  const routeJson = wholeRoute === null ? null : json(wholeRoute);

  // The selections made on this route, the most recently changed first; 8 kinds, 100 ids a kind.
  // `total`: every id selected of the kinds looked at (those past 8 too), the log's count if larger.
  let total = 0;
  const kinds: Kind[] = [];
  const names = new Set<string>();
  for (let i = input.selections.length - 1; i >= 0; i--) {
    const s = input.selections[i] as NoteSelection;
    if (s.route !== input.route) continue;
    const name = clip(s.kind, B.kindName);
    if (name.trim() === "" || names.has(name)) continue;
    const ids = s.ids
      .slice(0, B.idsPerKind)
      .filter((id) => typeof id === "string" || Number.isFinite(id));
    if (ids.length === 0) continue;
    names.add(name);
    const selected =
      s.total !== undefined && s.total > s.ids.length
        ? Math.min(Math.floor(s.total), Number.MAX_SAFE_INTEGER)
        : s.ids.length;
    total = Math.min(total + selected, Number.MAX_SAFE_INTEGER);
    if (kinds.length === B.kinds) continue;
    const nameJson = json(name);
    kinds.push({ name: nameJson, nameBytes: bytesOf(nameJson) + 3, ids, shown: [] });
  }

  const size = (z: Sizes): number => {
    let parts = 0;
    let n = OPEN.length + CLOSE.length;
    if (z.route > 0) {
      n += ROUTE_KEY + z.route;
      parts += 1;
    }
    if (z.hasQueries) {
      n += SHOWING_KEY + z.queries;
      parts += 1;
    }
    if (z.kinds > 0) {
      n += SELECTED_KEY + z.ids + z.kinds - 1;
      for (let k = 0; k < z.kinds; k++) n += (kinds[k] as Kind).nameBytes;
      parts += 1;
    }
    if (z.left > 0) {
      n += bytesOf(moreJson(z.left));
      parts += 1;
    }
    return n + Math.max(0, parts - 1);
  };

  /**
   * Fills the kinds with ids level by level (the first id of each kind, then
   * the second…) within `room` bytes: the same as dropping ids one at a time
   * from the longest selection. `taken` keeps the order ids went in, so room
   * can be made again by taking the last ones out.
   */
  const taken: Array<{ readonly kind: Kind; readonly cost: number }> = [];
  let idsUsed = 0;
  const fill = (room: number): boolean => {
    for (let level = 0; level < B.idsPerKind; level++) {
      let any = false;
      for (const k of kinds) {
        const id = k.ids[level];
        if (id === undefined) continue;
        const text = idJson(id);
        const cost = bytesOf(text) + (level > 0 ? 1 : 0);
        if (idsUsed + cost > room) return false;
        idsUsed += cost;
        k.shown.push(text);
        taken.push({ kind: k, cost });
        any = true;
      }
      if (!any) break;
    }
    return true;
  };

  const base = {
    route: routeJson === null ? 0 : bytesOf(routeJson),
    queries: 0,
    hasQueries: false,
    kinds: kinds.length,
    ids: 0,
  };
  const listed = kinds.reduce((n, k) => n + k.ids.length, 0);
  const all = fill(B.bytes - size({ ...base, left: total - listed }));
  // Ids went, so more was left out than counted, and saying how many may take more room.
  while (
    !all &&
    taken.length > 0 &&
    size({ ...base, ids: idsUsed, left: total - taken.length }) > B.bytes
  ) {
    const last = taken.pop() as { readonly kind: Kind; readonly cost: number };
    last.kind.shown.pop();
    idsUsed -= last.cost;
  }
  let z: Sizes = { ...base, ids: idsUsed, left: total - taken.length };

  // Queries, newest first: the asking window's own, from its screen, offered now, one of each,
  // while they fit beside everything selected (so the oldest go first, and all go before any id).
  const queries: string[] = [];
  const seen = new Set<string>();
  for (let i = input.queries.length - 1; all && i >= 0 && queries.length < B.queries; i--) {
    const q = input.queries[i] as NoteQuery;
    if (q.clientId !== input.clientId || q.origin !== "frontend" || !input.offered.has(q.command))
      continue;
    const params = input.argumentNames(q.command);
    if (params === undefined) continue;
    const shown = `{"command":${json(q.command)},"arguments":${argumentsJson(q.args, params)}}`;
    if (seen.has(shown)) continue;
    seen.add(shown);
    const next: Sizes = {
      ...z,
      hasQueries: true,
      queries: z.queries + bytesOf(shown) + (queries.length > 0 ? 1 : 0),
    };
    if (size(next) > B.bytes) break;
    z = next;
    queries.push(shown);
  }

  // Still too long with no query and no id: whole kinds go, the oldest first, then the route is cut.
  while (z.kinds > 0 && size(z) > B.bytes) {
    for (const k of kinds) k.shown.length = 0;
    z = { ...z, kinds: z.kinds - 1, ids: 0, left: total };
  }
  let route = routeJson;
  if (wholeRoute !== null && size(z) > B.bytes) {
    // The longest cut of the route that fits: its bytes summed unit by unit, the cut found by halving.
    const prefix = new Uint32Array(wholeRoute.length + 1);
    for (let i = 0; i < wholeRoute.length; i++)
      prefix[i + 1] = (prefix[i] as number) + unitBytes(wholeRoute, i);
    const cutBytes = (max: number): number => {
      let end = max - 1;
      const last = wholeRoute.charCodeAt(end - 1);
      if (last >= 0xd800 && last <= 0xdbff) end -= 1;
      return 2 + (prefix[end] as number) + 3; // the quotes, the units kept, the ellipsis
    };
    let fits = 0;
    let over = wholeRoute.length;
    while (over - fits > 1) {
      const mid = (fits + over) >> 1;
      if (size({ ...z, route: cutBytes(mid) }) <= B.bytes) fits = mid;
      else over = mid;
    }
    route = fits > 1 ? json(clip(wholeRoute, fits)) : null;
  }

  const parts: string[] = [];
  if (route !== null) parts.push(`"route":${route}`);
  if (queries.length > 0) parts.push(`"showing":[${queries.join(",")}]`);
  if (z.kinds > 0) {
    const shown = kinds.slice(0, z.kinds).map((k) => `${k.name}:[${k.shown.join(",")}]`);
    parts.push(`"selected":{${shown.join(",")}}`);
  }
  if (z.left > 0) parts.push(moreJson(z.left));
  if (parts.length === 0) return null;
  return `${OPEN}${parts.join(",")}${CLOSE}`;
};

export { json as referenceJson };

/** An argument value as the old note wrote it, or undefined where it wrote `{}`. */
export const referenceArgumentJson = (value: unknown): string | undefined => {
  const shown = readable(value);
  return shown === UNREADABLE ? undefined : json(shown);
};
