/**
 * `export-machines`: each machine written as JSON is re-created with
 * `createMachine(json)`, and its graph walked with `@xstate/graph` reaches
 * every state node (the walk is ./machineWalk.ts's, shared with the Stately
 * export's spec).
 *
 * How the walk treats what JSON cannot hold:
 * - Guards are stubs that pass when the event names them (`pass: [guard]`,
 *   or `input.pass` for the initial event), and every event is sent once
 *   naming no guard and once naming each guard, so each branch is tried.
 * - Delayed transitions are taken by sending their `xstate.after.<delay>.<id>`
 *   event, as the clock would (each named delay is given a length, else it
 *   would fire at once); invoked actors are stubs that never settle,
 *   and their outcome is sent as `xstate.done.actor.<id>` /
 *   `xstate.error.actor.<id>`. So no transition is skipped.
 * - States passed through within one step (`always` ones: `checking`,
 *   `deciding`, `timedOut`) never rest in a snapshot, so each step is also
 *   replayed with `getMicrosteps`.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getStateNodes } from "@xstate/graph";
import { describe, expect, it } from "vitest";
import { type AnyStateMachine, assign, createMachine } from "xstate";
import {
  exportMachinesCommand,
  INLINE,
  MACHINES,
  machineJson,
} from "../../src/cli/exportMachines.ts";
import { unreached, withStubs } from "./machineWalk.ts";

type Json = Record<string, unknown>;

/** Every value under `key` anywhere in the JSON. */
const valuesOf = (json: unknown, key: string, found = new Set<string>()): Set<string> => {
  if (Array.isArray(json)) for (const item of json) valuesOf(item, key, found);
  else if (typeof json === "object" && json !== null) {
    for (const [k, v] of Object.entries(json)) {
      if (k === key && typeof v === "string") found.add(v);
      valuesOf(v, key, found);
    }
  }
  return found;
};

const ACTION_KEYS = new Set(["actions", "entry", "exit"]);

/** An action or guard as the JSON names it: `"name"` or `{ "type": "name", "params": … }`. */
const nameOf = (entry: unknown): unknown =>
  typeof entry === "object" && entry !== null && !Array.isArray(entry)
    ? "type" in entry
      ? entry.type
      : undefined
    : entry;

/**
 * Where the JSON has an action or guard with no name of its own: a function
 * given inline (written `"inline"`), or a built-in action used bare, such as
 * `assign(…)` (written by its type, `"xstate.assign"`).
 */
const unnamedIn = (json: unknown, path = ""): string[] => {
  if (Array.isArray(json)) return json.flatMap((item, i) => unnamedIn(item, `${path}[${i}]`));
  if (typeof json !== "object" || json === null) return [];
  return Object.entries(json).flatMap(([key, value]) => {
    const at = `${path}.${key}`;
    if (!ACTION_KEYS.has(key) && key !== "guard") return unnamedIn(value, at);
    return [value]
      .flat()
      .map(nameOf)
      .filter((name) => typeof name !== "string" || name === INLINE || name.startsWith("xstate."))
      .map((name) => `${at}: ${String(name)}`);
  });
};

/** The JSON re-created, with stub guards, actions, actors and delays (JSON holds no code). */
const recreate = (json: Json): AnyStateMachine =>
  withStubs(createMachine(json as Parameters<typeof createMachine>[0]));

describe("export-machines", () => {
  it("writes one JSON file per machine, each one re-created reaches every state node", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "machines-")), "out");
    const out: string[] = [];
    const code = await exportMachinesCommand([dir], {
      stdout: (s) => out.push(s),
      stderr: (s) => out.push(s),
      cwd: process.cwd(),
    });
    expect(code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([
      "coalescer.json",
      "codeRun.json",
      "confirmation.json",
      "conversation.json",
      "supervisor.json",
      "window.json",
    ]);
    for (const [name, original] of Object.entries(MACHINES)) {
      const json = JSON.parse(readFileSync(join(dir, `${name}.json`), "utf8")) as Json;
      expect(json).toEqual(machineJson(original));
      const machine = recreate(json);
      const ids = (m: AnyStateMachine) => getStateNodes(m).map((node) => node.id);
      expect(ids(machine), name).toEqual(ids(original));
      expect(unreached(machine), name).toEqual([]);
    }
  });

  it("the walk finds a state nothing leads to, and one behind a guard it never passes", () => {
    const json = {
      id: "m",
      initial: "a",
      states: {
        a: { on: { GO: "b" }, after: { later: "c" } },
        b: { always: { guard: "never", target: "d" } },
        c: {},
        d: {},
        orphan: {},
      },
    };
    expect(unreached(recreate(json))).toEqual(["m.orphan"]);
    const machine = createMachine(json).provide({
      delays: { later: 1000 },
      guards: { never: () => false },
    });
    expect(unreached(machine)).toEqual(["m.d", "m.orphan"]);
  });

  it("keeps named guards, actions, actors and delays, and names inline ones", () => {
    const json = machineJson(MACHINES.conversation as AnyStateMachine);
    expect([...valuesOf(json, "guard")].sort()).toEqual([
      "codeOverCap",
      "codePause",
      "compactionDue",
      "modelError",
      "overBudget",
      "paused",
      "refused",
      "stepsLeft",
      "wantsTools",
    ]);
    expect([...valuesOf(json, "src")].sort()).toEqual(["codeRun", "steps"]);
    expect(JSON.stringify(machineJson(MACHINES.codeRun as AnyStateMachine))).toContain(
      '"after":{"deadline":"timedOut"}',
    );
    const inline = createMachine({
      initial: "a",
      states: { a: { on: { GO: { guard: () => true, actions: [assign({}), () => {}] } } } },
    });
    expect(machineJson(inline)).toMatchObject({
      states: { a: { on: { GO: { guard: INLINE, actions: ["xstate.assign", INLINE] } } } },
    });
  });

  it("names every action and guard of every machine: none inline, no bare assign", async () => {
    const dir = mkdtempSync(join(tmpdir(), "machines-"));
    const docs = join(process.cwd(), "docs", "machines");
    await exportMachinesCommand([dir], { stdout: () => {}, stderr: () => {}, cwd: process.cwd() });
    const exported = [
      ...readdirSync(dir).map((file) => ({
        label: `export-machines/${file}`,
        path: join(dir, file),
      })),
      ...readdirSync(docs).map((file) => ({
        label: `docs/machines/${file}`,
        path: join(docs, file),
      })),
    ];
    expect(exported).toHaveLength(12);
    const unnamed = exported.flatMap(({ label, path }) =>
      unnamedIn(JSON.parse(readFileSync(path, "utf8"))).map((entry) => `${label} ${entry}`),
    );
    expect(unnamed).toEqual([]);
  });

  it("the naming check finds an inline guard or action and a bare built-in", () => {
    const json = {
      id: "m",
      initial: "a",
      states: {
        a: {
          entry: "xstate.assign",
          on: {
            GO: [
              { guard: "inline", target: "b", actions: ["xstate.assign", "log"] },
              { actions: "inline" },
            ],
          },
          invoke: { src: "x", onDone: { guard: { type: "ok" }, actions: { type: "xstate.emit" } } },
        },
        b: { exit: [{ type: "named", params: { n: 1 } }] },
      },
    };
    expect(unnamedIn(json)).toEqual([
      ".states.a.entry: xstate.assign",
      ".states.a.on.GO[0].guard: inline",
      ".states.a.on.GO[0].actions: xstate.assign",
      ".states.a.on.GO[1].actions: inline",
      ".states.a.invoke.onDone.actions: xstate.emit",
    ]);
  });

  it("defaults to ./machines and exits 2 on a usage error", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "machines-"));
    const out: string[] = [];
    const io = { stdout: (s: string) => out.push(s), stderr: (s: string) => out.push(s), cwd };
    expect(await exportMachinesCommand([], io)).toBe(0);
    expect(out.join("")).toContain(join("machines", "conversation.json"));
    expect(readdirSync(join(cwd, "machines"))).toHaveLength(6);
    expect(await exportMachinesCommand(["a", "b"], io)).toBe(2);
    expect(await exportMachinesCommand(["--svg"], io)).toBe(2);
  });
});
