/**
 * A machine as a Mermaid state diagram, drawn from its exported config (the
 * JSON `export-machines` writes), so the diagrams in the docs are the
 * machines' own and cannot drift from them.
 */
import type { AnyStateMachine } from "xstate";
import { machineJson } from "./machineJson.ts";

type Config = Readonly<Record<string, unknown>>;

const isConfig = (value: unknown): value is Config =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const list = (value: unknown): ReadonlyArray<unknown> =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** An action, guard or delay as the diagram names it. */
const nameOf = (value: unknown): string =>
  typeof value === "string" ? value : isConfig(value) ? String(value.type ?? "?") : String(value);

/** The Mermaid id of the state at `path` (the root is `[*]`'s parent, never drawn). */
const idOf = (path: ReadonlyArray<string>): string => path.join("_");

/** Where a target string leads from the state at `path`. */
const resolveTarget = (
  machineId: string,
  path: ReadonlyArray<string>,
  target: string,
): ReadonlyArray<string> => {
  if (target.startsWith(`#${machineId}.`)) return target.slice(machineId.length + 2).split(".");
  if (target.startsWith(".")) return [...path, ...target.slice(1).split(".")];
  // A plain name is a sibling of the state the transition is on.
  return [...path.slice(0, -1), ...target.split(".")];
};

/** `EVENT [guard] / action, action`, the way the docs read a transition. */
const labelOf = (trigger: string, transition: Config): string => {
  const guard = transition.guard === undefined ? "" : ` [${nameOf(transition.guard)}]`;
  const actions = list(transition.actions).map(nameOf);
  return `${trigger}${guard}${actions.length === 0 ? "" : ` / ${actions.join(", ")}`}`;
};

/** An event's name in a label: a child's done or error events read as `child.done`. */
const triggerOf = (event: string): string =>
  event.replace(/^xstate\.(done|error)\.actor\.(.*)$/, "$2.$1");

/**
 * The Mermaid `stateDiagram-v2` of a machine: each state (compound states
 * drawn as composites), each transition labelled with its event, guard and
 * actions, eventless ones as `always`, delayed ones as `after`, an invoked
 * actor's outcomes as `src.done` / `src.error` (a spawned child's as
 * `*.done`), entry actions as notes.
 *
 * @example
 * ```ts
 * machineDiagram(coalescerMachine);
 * // stateDiagram-v2
 * //   [*] --> empty
 * //   empty --> gathering: PIECE
 * //   …
 * ```
 */
export const machineDiagram = (machine: AnyStateMachine): string => {
  const config = machineJson(machine);
  const machineId = String(config.id ?? machine.id);
  const lines: string[] = ["stateDiagram-v2"];
  const edges: string[] = [];

  const edge = (from: ReadonlyArray<string>, to: ReadonlyArray<string>, label: string) =>
    edges.push(`  ${idOf(from)} --> ${idOf(to)}: ${label}`);

  const transitionsOf = (path: ReadonlyArray<string>, trigger: string, value: unknown) => {
    for (const item of list(value)) {
      const transition: Config =
        typeof item === "string" ? { target: item } : isConfig(item) ? item : {};
      const targets = list(transition.target).map(String);
      if (targets.length === 0) edge(path, path, labelOf(trigger, transition));
      for (const target of targets)
        edge(path, resolveTarget(machineId, path, target), labelOf(trigger, transition));
    }
  };

  const draw = (node: Config, path: ReadonlyArray<string>, indent: string) => {
    const states = isConfig(node.states) ? node.states : {};
    if (typeof node.initial === "string")
      lines.push(`${indent}[*] --> ${idOf([...path, node.initial])}`);
    for (const [key, child] of Object.entries(states)) {
      if (!isConfig(child)) continue;
      const childPath = [...path, key];
      const id = idOf(childPath);
      if (id !== key) lines.push(`${indent}state "${key}" as ${id}`);
      const entry = list(child.entry).map(nameOf);
      if (entry.length > 0) lines.push(`${indent}${id}: entry / ${entry.join(", ")}`);
      if (isConfig(child.states)) {
        lines.push(`${indent}state ${id} {`);
        draw(child, childPath, `${indent}  `);
        lines.push(`${indent}}`);
      }
      if (child.type === "final") lines.push(`${indent}${id} --> [*]`);
      if (isConfig(child.on))
        for (const [event, value] of Object.entries(child.on))
          transitionsOf(childPath, triggerOf(event), value);
      if (child.always !== undefined) transitionsOf(childPath, "always", child.always);
      if (isConfig(child.after))
        for (const [delay, value] of Object.entries(child.after))
          transitionsOf(childPath, `after ${delay}`, value);
      for (const invoke of list(child.invoke)) {
        if (!isConfig(invoke)) continue;
        const src = nameOf(invoke.src);
        if (invoke.onDone !== undefined) transitionsOf(childPath, `${src}.done`, invoke.onDone);
        if (invoke.onError !== undefined) transitionsOf(childPath, `${src}.error`, invoke.onError);
      }
    }
  };

  draw(config, [], "  ");
  // Transitions on the machine itself hold in every state: drawn from each top-level state.
  if (isConfig(config.on) && isConfig(config.states))
    for (const key of Object.keys(config.states))
      for (const [event, value] of Object.entries(config.on))
        transitionsOf([key], triggerOf(event), value);
  return `${[...lines, ...edges].join("\n")}\n`;
};

/** The markers a machine's diagram sits between in a Markdown file. */
const markers = (name: string) =>
  [`<!-- machine:${name} -->`, `<!-- /machine:${name} -->`] as const;

/** A machine's diagram as the Markdown between its markers: a `mermaid` block. */
export const diagramBlock = (name: string, machine: AnyStateMachine): string => {
  const [open, close] = markers(name);
  return `${open}\n\n\`\`\`mermaid\n${machineDiagram(machine)}\`\`\`\n\n${close}`;
};

/**
 * `markdown` with each machine's block (from its opening marker to its
 * closing one) drawn again; a machine whose markers are missing is left out.
 */
export const withDiagrams = (
  markdown: string,
  machines: Readonly<Record<string, AnyStateMachine>>,
): string => {
  let text = markdown;
  for (const [name, machine] of Object.entries(machines)) {
    const [open, close] = markers(name);
    const start = text.indexOf(open);
    const end = text.indexOf(close, start);
    if (start < 0 || end < 0) continue;
    text = text.slice(0, start) + diagramBlock(name, machine) + text.slice(end + close.length);
  }
  return text;
};
