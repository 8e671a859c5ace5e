/**
 * A machine as a module Stately's editor imports (`export-machines --format
 * stately`): `createMachine({...})` over the same config the JSON export
 * holds (`machineJson`, drawn from `machine.config`), so a paste into the
 * editor opens with every state, and every action, guard, actor and delay
 * by its name. The module runs as it is under XState, given the
 * implementations (`.provide`).
 */
import type { AnyStateMachine } from "xstate";
import { machineJson } from "./machineJson.ts";

/** The kinds of names a machine's setup gives, as `machine.implementations` holds them. */
type Kind = "actions" | "guards" | "actors" | "delays";

const KINDS: ReadonlyArray<Kind> = ["actions", "guards", "actors", "delays"];
const ACTION_KEYS = new Set(["actions", "entry", "exit"]);

/** An action or guard as the config names it: `"name"` or `{ type: "name", params }`. */
const nameOf = (entry: unknown): string | undefined => {
  if (typeof entry === "string") return entry;
  if (typeof entry === "object" && entry !== null && "type" in entry)
    return typeof entry.type === "string" ? entry.type : undefined;
  return undefined;
};

/** Every name the config's states use, by kind. */
const namesInConfig = (json: unknown): Readonly<Record<Kind, ReadonlySet<string>>> => {
  const names: Record<Kind, Set<string>> = {
    actions: new Set(),
    guards: new Set(),
    actors: new Set(),
    delays: new Set(),
  };
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) for (const item of value) visit(item);
    if (typeof value !== "object" || value === null || Array.isArray(value)) return;
    for (const [key, child] of Object.entries(value)) {
      if (ACTION_KEYS.has(key) || key === "guard") {
        const kind = key === "guard" ? names.guards : names.actions;
        for (const entry of [child].flat()) {
          const name = nameOf(entry);
          if (name !== undefined) kind.add(name);
        }
      } else if (key === "src" && typeof child === "string") names.actors.add(child);
      else if (key === "after" && typeof child === "object" && child !== null)
        for (const delay of Object.keys(child)) if (!/^\d+$/.test(delay)) names.delays.add(delay);
      visit(child);
    }
  };
  visit(json);
  return names;
};

/**
 * What the machine's setup names that no state of its config does: an actor
 * spawned by an action rather than invoked by a state, a delay an action
 * waits for. The module says so in a comment, since the editor cannot.
 */
const namedOnlyInSetup = (machine: AnyStateMachine, json: unknown): string[] => {
  const used = namesInConfig(json);
  return KINDS.flatMap((kind) => {
    const own = Object.keys(machine.implementations[kind]).filter((n) => !used[kind].has(n));
    return own.length === 0 ? [] : [`${kind} ${own.sort().join(", ")}`];
  });
};

/** The line width the repository's formatter keeps (biome.json), so a written module reads as formatted. */
const WIDTH = 100;

const keyOf = (key: string): string => (/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key));

/**
 * A JSON value as a JavaScript literal, laid out as biome lays out code
 * (a spec checks it): objects one key a line, arrays on one line when they
 * fit in {@link WIDTH} after `lead` (what precedes them on their line),
 * trailing commas, keys unquoted where they are identifiers.
 */
const literal = (value: unknown, indent: string, lead: number): string => {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    const items = value.map((item) => literal(item, inner, inner.length));
    const flat = `[${items.join(", ")}]`;
    if (items.length === 0 || (!flat.includes("\n") && lead + flat.length + 1 <= WIDTH))
      return flat;
    return `[\n${items.map((item) => `${inner}${item},\n`).join("")}${indent}]`;
  }
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) return "{}";
    const lines = entries.map(([key, child]) => {
      const head = `${inner}${keyOf(key)}: `;
      return `${head}${literal(child, inner, head.length)},\n`;
    });
    return `{\n${lines.join("")}${indent}}`;
  }
  return JSON.stringify(value);
};

/**
 * The module of one machine for Stately's editor: `export const
 * <name>Machine = createMachine({...})`, with named actions and guards as
 * strings (`{ type, params }` where the params are values), actors by their
 * `src`, delays by name, and `always`, `after`, final states, tags and
 * descriptions as the machine has them. Context, inputs and params computed
 * at run time are functions, so they are left out, as in the JSON; a header
 * comment says where the module comes from and what its setup names that
 * no state does. The same machine always gives the same text. `name` must
 * be a JavaScript identifier.
 *
 * @example
 * ```ts
 * const text = statelyModule("confirmation", confirmationMachine);
 * // // The confirmation machine of elyra-assistant, written by …
 * // import { createMachine } from "xstate";
 * // export const confirmationMachine = createMachine({
 * //   id: "confirmation",
 * //   initial: "pending",
 * //   …
 * await writeFile("machines/confirmation.ts", text);
 * ```
 */
export const statelyModule = (name: string, machine: AnyStateMachine): string => {
  const json = machineJson(machine);
  const setupOnly = namedOnlyInSetup(machine, json);
  return [
    `// The ${name} machine of elyra-assistant, written by`,
    "// `elyra-assistant export-machines --format stately`. Paste it into Stately's",
    "// editor (Import, in the Code panel): every state, transition, action, guard,",
    "// actor and delay shows by its name. What each one does is in",
    "// elyra-assistant/machines; context, inputs and computed params are left out.",
    ...(setupOnly.length === 0
      ? []
      : [`// Named in its setup but by no state: ${setupOnly.join("; ")}.`]),
    "",
    'import { createMachine } from "xstate";',
    "",
    `export const ${name}Machine = createMachine(${literal(json, "", 0)});`,
    "",
  ].join("\n");
};
