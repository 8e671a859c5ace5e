/**
 * Walking a machine re-created from an export (no code of its own: its
 * guards, actions, actors and delays are only names) to every state node,
 * with `@xstate/graph`, for the JSON and the Stately exports alike:
 *
 * - Guards are stubs that pass when the event names them (`pass: [guard]`,
 *   or `input.pass` for the initial event), and every event is sent once
 *   naming no guard and once naming each guard, so each branch is tried.
 * - Delayed transitions are taken by sending their `xstate.after.<delay>.<id>`
 *   event, as the clock would (each named delay is given a length, else it
 *   would fire at once); invoked actors are stubs that never settle, and
 *   their outcome is sent as `xstate.done.actor.<id>` /
 *   `xstate.error.actor.<id>`. Actions do nothing.
 * - States passed through within one step (`always` ones) never rest in a
 *   snapshot, so each step is also replayed with `getMicrosteps`.
 */
import { getShortestPaths, getStateNodes } from "@xstate/graph";
import {
  type AnyMachineSnapshot,
  type AnyStateMachine,
  fromPromise,
  getInitialMicrosteps,
  getMicrosteps,
  type StateValue,
} from "xstate";

const ACTION_KEYS = new Set(["actions", "entry", "exit"]);

/** An action or guard as a config names it: `"name"` or `{ type: "name", params }`. */
const nameOf = (entry: unknown): string | undefined =>
  typeof entry === "string"
    ? entry
    : typeof entry === "object" && entry !== null && "type" in entry
      ? String(entry.type)
      : undefined;

/** The names a config gives its actions, guards, actors (`src`) and delays (`after`). */
export const namesIn = (
  config: unknown,
): Record<"actions" | "guards" | "actors" | "delays", string[]> => {
  const found = {
    actions: new Set<string>(),
    guards: new Set<string>(),
    actors: new Set<string>(),
    delays: new Set<string>(),
  };
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) for (const item of value) visit(item);
    else if (typeof value === "object" && value !== null)
      for (const [key, child] of Object.entries(value)) {
        if (ACTION_KEYS.has(key) || key === "guard")
          for (const entry of [child].flat()) {
            const name = nameOf(entry);
            if (name !== undefined) (key === "guard" ? found.guards : found.actions).add(name);
          }
        if (key === "src" && typeof child === "string") found.actors.add(child);
        if (key === "after" && typeof child === "object" && child !== null)
          for (const delay of Object.keys(child)) if (!/^\d+$/.test(delay)) found.delays.add(delay);
        visit(child);
      }
  };
  visit(config);
  return {
    actions: [...found.actions].sort(),
    guards: [...found.guards].sort(),
    actors: [...found.actors].sort(),
    delays: [...found.delays].sort(),
  };
};

const passes = (event: unknown, guard: string): boolean => {
  const e = event as { pass?: ReadonlyArray<string>; input?: { pass?: ReadonlyArray<string> } };
  return (e.pass ?? e.input?.pass ?? []).includes(guard);
};

/**
 * The machine with a stub for every name its config uses: guards that pass
 * when the event names them, actions that do nothing, actors that never
 * settle, delays of a minute (the walk sends their events itself).
 */
export const withStubs = (machine: AnyStateMachine): AnyStateMachine => {
  const names = namesIn(machine.config);
  const each = <T>(list: ReadonlyArray<string>, stub: (name: string) => T) =>
    Object.fromEntries(list.map((name) => [name, stub(name)]));
  return machine.provide({
    guards: each(
      names.guards,
      (g) =>
        ({ event }: { event: unknown }) =>
          passes(event, g),
    ),
    actions: each(names.actions, () => () => {}),
    actors: each(names.actors, () => fromPromise(() => new Promise(() => {}))),
    delays: each(names.delays, () => 60_000),
  } as never);
};

type WalkEvent = { type: string; pass?: ReadonlyArray<string> };

/** Every snapshot the walk rests in or passes through. */
const walk = (machine: AnyStateMachine): AnyMachineSnapshot[] => {
  const { guards } = namesIn(machine.config);
  const types = new Set<string>();
  for (const node of getStateNodes(machine))
    for (const type of Object.keys(node.on)) types.add(type);
  const events: WalkEvent[] = [...types].flatMap((type) => [
    { type },
    ...guards.map((g) => ({ type, pass: [g] })),
  ]);
  const seen: AnyMachineSnapshot[] = [];
  for (const pass of [[], ...guards.map((g) => [g])]) {
    const input = { pass };
    for (const [snapshot] of getInitialMicrosteps(machine, input)) seen.push(snapshot);
    for (const path of getShortestPaths(machine, { events, input })) {
      seen.push(path.state);
      if (path.state.status !== "active") continue;
      for (const event of events)
        for (const [snapshot] of getMicrosteps(machine, path.state, event)) seen.push(snapshot);
    }
  }
  return seen;
};

/** A state node's path as the state value `matches` takes: `["turn", "deciding"]` → `{ turn: "deciding" }`. */
const stateValueOf = (path: ReadonlyArray<string>): StateValue =>
  path
    .slice(0, -1)
    .reduceRight<StateValue>((inner, key) => ({ [key]: inner }), path[path.length - 1] ?? "");

/** The ids of the state nodes of `machine` no snapshot of the walk is in. */
export const unreached = (machine: AnyStateMachine): string[] => {
  const seen = walk(machine);
  return getStateNodes(machine)
    .filter((node) => !seen.some((snapshot) => snapshot.matches(stateValueOf(node.path))))
    .map((node) => node.id);
};
