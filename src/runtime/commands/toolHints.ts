/**
 * What a command says about itself to MCP clients, beyond its name and
 * description: a human title and the hints MCP calls tool annotations
 * (read-only, destructive, idempotent, open world). Declared on the command
 * (`title`, `mcp`); checked by `defineCommand`. The MCP adapter derives the
 * hints a command leaves out from the command and the grant.
 */

/**
 * A command's own word on its MCP tool, overriding what is derived. The
 * names are MCP's (`ToolAnnotations`); each is a hint to the client, never
 * a rule the server keeps: a tool the grant confirms is asked first whatever
 * it says here.
 */
export interface McpToolHints {
  /** The tool's title for people, 1 to 100 characters; default the command's `title`, else {@link toolTitle}. */
  readonly title?: string;
  /** It changes nothing. Default: the command is `live`. */
  readonly readOnlyHint?: boolean;
  /**
   * It may delete or overwrite, not only add. Default: the command is
   * destructive (`destructive`, or a verb such as `delete`); false for a
   * read-only tool, which may not say true. The MCP grant's `confirm` asks
   * first whatever this says.
   */
  readonly destructiveHint?: boolean;
  /** Calling it again with the same arguments changes nothing more. Sent only when declared. */
  readonly idempotentHint?: boolean;
  /** It reaches outside the app (the web, email, another system). Default false. */
  readonly openWorldHint?: boolean;
}

/** The longest title, `title` or `mcp.title`. */
const MAX_TITLE = 100;

const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;
const FIELDS: ReadonlySet<string> = new Set(["title", ...HINTS]);

/** A command's title and MCP hints, as `defineCommand` keeps them. */
interface ToolHints {
  readonly title?: string;
  readonly mcp?: McpToolHints;
}

/**
 * Checks a command's `title` and `mcp`; returns them (titles trimmed), or
 * the problem as a sentence when the declaration is wrong.
 */
export const toolHintsOf = (spec: {
  readonly title?: unknown;
  readonly mcp?: unknown;
  readonly live?: unknown;
  /** Whether the command is destructive (declared, or by its ability's verb). */
  readonly destructive?: boolean | undefined;
}): ToolHints | string => {
  const title = titleOf(spec.title, "title");
  if (title instanceof Problem) return title.sentence;
  if (spec.mcp === undefined) return title === undefined ? {} : { title };
  const mcp = spec.mcp;
  if (typeof mcp !== "object" || mcp === null || Array.isArray(mcp))
    return "mcp must be an object of hints: title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint";
  const fields = mcp as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => !FIELDS.has(key));
  if (unknown !== undefined)
    return `mcp has no hint ${JSON.stringify(unknown)}: it takes title, readOnlyHint, destructiveHint, idempotentHint and openWorldHint`;
  const hints: Record<string, unknown> = {};
  const mcpTitle = titleOf(fields.title, "mcp.title");
  if (mcpTitle instanceof Problem) return mcpTitle.sentence;
  if (mcpTitle !== undefined) hints.title = mcpTitle;
  for (const hint of HINTS) {
    const value = fields[hint];
    if (value === undefined) continue;
    if (typeof value !== "boolean") return `mcp.${hint} must be true or false`;
    hints[hint] = value;
  }
  const readOnly = (hints.readOnlyHint as boolean | undefined) ?? spec.live === true;
  if (readOnly && hints.destructiveHint === true)
    return "mcp.destructiveHint can't be true for a read-only tool (live, or mcp.readOnlyHint)";
  if (spec.destructive === true && hints.destructiveHint === false)
    return "mcp.destructiveHint can't be false for a destructive command (destructive, or a verb such as delete in its ability)";
  if (spec.destructive === true && hints.readOnlyHint === true)
    return "mcp.readOnlyHint can't be true for a destructive command (destructive, or a verb such as delete in its ability)";
  return {
    ...(title === undefined ? {} : { title }),
    mcp: hints as McpToolHints,
  };
};

class Problem {
  constructor(readonly sentence: string) {}
}

const titleOf = (value: unknown, what: string): string | undefined | Problem => {
  if (value === undefined) return undefined;
  const text = typeof value === "string" ? value.trim() : "";
  if (text === "" || text.length > MAX_TITLE || /[\r\n]/.test(text))
    return new Problem(`${what} must be one line of 1 to ${MAX_TITLE} characters`);
  return text;
};

/**
 * A tool name as a title: its words, split at `_`, `-` and case changes,
 * the first capitalized, the rest lower case but for acronyms.
 *
 * @example
 * ```ts
 * humanTitle("customers_destroy"); // "Customers destroy"
 * humanTitle("getPDFReport"); // "Get PDF report"
 * ```
 */
export const humanTitle = (name: string): string => {
  const words = name
    .split(/[_\-\s]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/)
    .filter((word) => word !== "")
    .map((word) => (/^[A-Z0-9]{2,}$/.test(word) ? word : word.toLowerCase()));
  const [first = name, ...rest] = words;
  return [first.charAt(0).toUpperCase() + first.slice(1), ...rest].join(" ");
};

/** The verbs a tool name may end in, and the words people read for them. */
const VERBS: Readonly<Record<string, { readonly word: string; readonly many: boolean }>> = {
  index: { word: "List", many: true },
  list: { word: "List", many: true },
  search: { word: "Search", many: true },
  show: { word: "Show", many: false },
  get: { word: "Show", many: false },
  view: { word: "Show", many: false },
  read: { word: "Show", many: false },
  store: { word: "Create", many: false },
  create: { word: "Create", many: false },
  add: { word: "Add", many: false },
  update: { word: "Update", many: false },
  edit: { word: "Edit", many: false },
  destroy: { word: "Delete", many: false },
  delete: { word: "Delete", many: false },
  remove: { word: "Remove", many: false },
};

/** One of a plural noun, when it reads as one: `invoices` → `invoice`, `companies` → `company`. */
const singular = (noun: string): string | undefined => {
  if (/[^aeiou]ies$/.test(noun)) return `${noun.slice(0, -3)}y`;
  if (/(?:ss|sh|ch|x|z)es$/.test(noun)) return noun.slice(0, -2);
  if (/[^su]s$/.test(noun)) return noun.slice(0, -1);
  return undefined;
};

/**
 * A command's title for people when it declares none: a name made of a
 * resource and a verb (Laravel's `customers_destroy`, `invoices_store`)
 * reads as what it does, the verb first ("Delete a customer", "Create an
 * invoice", "List customers"); any other name is its words
 * ({@link humanTitle}).
 *
 * @example
 * ```ts
 * toolTitle("customers_destroy"); // "Delete a customer"
 * toolTitle("invoices_index"); // "List invoices"
 * toolTitle("line_items_update"); // "Update a line item"
 * toolTitle("search_reindex"); // "Search reindex"
 * ```
 */
export const toolTitle = (name: string): string => {
  const title = humanTitle(name);
  // Its words as written in a sentence: the first one lower case again, unless an acronym.
  const words = title
    .split(" ")
    .map((word, i) => (i === 0 && !/^[A-Z0-9]{2,}$/.test(word) ? word.toLowerCase() : word));
  const end = (words[words.length - 1] ?? "").toLowerCase();
  const verb = words.length >= 2 && Object.hasOwn(VERBS, end) ? VERBS[end] : undefined;
  if (verb === undefined) return title;
  const resource = words.slice(0, -1);
  const last = resource[resource.length - 1] ?? "";
  const one = singular(last);
  // A resource that is not a plural (`profile_update`) is one thing: "Update the profile".
  if (one === undefined) return `${verb.word} the ${resource.join(" ")}`;
  if (verb.many) return `${verb.word} ${resource.join(" ")}`;
  const thing = [...resource.slice(0, -1), one].join(" ");
  // "an invoice", "an upload"; "a user", "a unit".
  const an = /^(?:[aeio]|u[^aeiou][^aeiou])/i.test(thing);
  return `${verb.word} ${an ? "an" : "a"} ${thing}`;
};
