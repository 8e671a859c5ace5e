/**
 * `export-machines --format stately`: each machine written as a module whose
 * `createMachine({...})` pastes into Stately's editor. Each module is
 * imported as it is (from a temporary directory whose `node_modules/xstate`
 * is this repository's) and its machine, given stubs for its named guards,
 * actions, actors and delays, is walked with `@xstate/graph` to every state
 * node of the original (spec/cli/machineWalk.ts says how).
 */
import { spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { getStateNodes } from "@xstate/graph";
import { describe, expect, it } from "vitest";
import { type AnyStateMachine, createMachine } from "xstate";
import {
  exportMachinesCommand,
  MACHINES,
  machineJson,
  statelyFiles,
} from "../../src/cli/exportMachines.ts";
import { statelyModule } from "../../src/cli/statelyModule.ts";
import { namesIn, unreached, withStubs } from "./machineWalk.ts";

const root = join(import.meta.dirname, "..", "..");

/** A directory the modules can import `xstate` from: this repository's. */
const moduleDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "stately-"));
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(join(root, "node_modules", "xstate"), join(dir, "node_modules", "xstate"), "dir");
  return dir;
};

const quietIo = (cwd: string, out: string[] = []) => ({
  stdout: (s: string) => out.push(s),
  stderr: (s: string) => out.push(s),
  cwd,
});

/** Runs `export-machines <dir> --format stately` into a fresh directory. */
const exportModules = async (): Promise<string> => {
  const dir = moduleDir();
  expect(await exportMachinesCommand([join(dir, "out"), "--format", "stately"], quietIo(dir))).toBe(
    0,
  );
  return join(dir, "out");
};

/** The machine a module exports as `<name>Machine`, imported from its file. */
const load = async (file: string, name: string): Promise<AnyStateMachine> => {
  const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  expect(Object.keys(module), file).toEqual([`${name}Machine`]);
  return module[`${name}Machine`] as AnyStateMachine;
};

const ids = (machine: AnyStateMachine) => getStateNodes(machine).map((node) => node.id);

describe("export-machines --format stately", () => {
  it("writes one module per machine; each, imported, is its machine and reaches every state node", async () => {
    const dir = await exportModules();
    expect(readdirSync(dir).sort()).toEqual([
      "coalescer.ts",
      "codeRun.ts",
      "confirmation.ts",
      "conversation.ts",
      "supervisor.ts",
      "window.ts",
    ]);
    for (const [name, original] of Object.entries(MACHINES)) {
      const file = join(dir, `${name}.ts`);
      const text = readFileSync(file, "utf8");
      expect(text, name).toContain(
        `import { createMachine } from "xstate";\n\nexport const ${name}Machine = createMachine({\n`,
      );
      const machine = await load(file, name);
      expect(machine.id).toBe(original.id);
      expect(machine.config, name).toEqual(machineJson(original));
      expect(ids(machine), name).toEqual(ids(original));
      expect(unreached(withStubs(machine)), name).toEqual([]);
    }
  });

  it("names every action and guard of the original, its actors by src and its delays", async () => {
    const dir = await exportModules();
    for (const [name, original] of Object.entries(MACHINES)) {
      const text = readFileSync(join(dir, `${name}.ts`), "utf8");
      const exported = namesIn((await load(join(dir, `${name}.ts`), name)).config);
      expect(exported, name).toEqual(namesIn(original.config));
      // Every action and guard its setup implements is named by some state.
      expect(exported.actions, name).toEqual(
        expect.arrayContaining(Object.keys(original.implementations.actions)),
      );
      expect(exported.guards, name).toEqual(Object.keys(original.implementations.guards).sort());
      // What the setup names and no state does is said in the header.
      const setupOnly = Object.keys(original.implementations.actors).filter(
        (actor) => !exported.actors.includes(actor),
      );
      for (const actor of setupOnly) expect(text, name).toMatch(new RegExp(`// .*\\b${actor}\\b`));
    }
    const supervisor = readFileSync(join(dir, "supervisor.ts"), "utf8");
    expect(supervisor).toContain(
      "// Named in its setup but by no state: actors conversation, recover; delays restartWindow.\n",
    );
    expect(namesIn(machineJson(MACHINES.conversation as AnyStateMachine)).actors).toEqual([
      "codeRun",
      "steps",
    ]);
    const codeRun = readFileSync(join(dir, "codeRun.ts"), "utf8");
    expect(codeRun).toMatch(/after: \{\n\s+deadline: "timedOut",\n/);
    expect(codeRun).toMatch(/done: \{\n\s+type: "final",\n/);
    const confirmation = readFileSync(join(dir, "confirmation.ts"), "utf8");
    expect(confirmation).toMatch(
      /entry: \{\n\s+type: "recordAnswer",\n\s+params: \{\n\s+answer: "declined",\n/,
    );
  });

  it("writes the same bytes every time", async () => {
    const [first, second] = [await exportModules(), await exportModules()];
    const files = readdirSync(first).sort();
    expect(readdirSync(second).sort()).toEqual(files);
    for (const file of files)
      expect(readFileSync(join(second, file)).equals(readFileSync(join(first, file))), file).toBe(
        true,
      );
    expect(statelyFiles().map(({ file, text }) => [file, text])).toEqual(
      Object.keys(MACHINES).map((name) => [
        `${name}.ts`,
        readFileSync(join(first, `${name}.ts`), "utf8"),
      ]),
    );
  });

  it("keeps tags, descriptions, literal params and quoted event names; leaves out code", async () => {
    const machine = createMachine({
      id: "door",
      description: "A door",
      context: { opened: 0 },
      initial: "closed",
      states: {
        closed: {
          tags: ["shut"],
          on: {
            OPEN: {
              target: "open",
              guard: { type: "unlocked", params: { key: "front" } },
              actions: [{ type: "count", params: ({ event }) => ({ by: event.type.length }) }],
            },
            "xstate.error.actor.*": { actions: "report" },
          },
        },
        open: {
          description: "Wide open",
          after: { 1000: "closed" },
          on: {
            SLAM: {
              target: "gone",
              actions: [
                "latchTheDoorFirmly",
                "ringTheBellTwice",
                "writeItInTheLog",
                "wakeTheNeighbours",
              ],
            },
          },
        },
        gone: { type: "final" },
        orphan: {},
      },
    });
    const text = statelyModule("door", machine);
    // The params computed from the event are code: `count` is left with its name alone.
    expect(text.slice(text.indexOf("export const"))).toBe(
      [
        "export const doorMachine = createMachine({",
        '  id: "door",',
        '  description: "A door",',
        "  context: {",
        "    opened: 0,",
        "  },",
        '  initial: "closed",',
        "  states: {",
        "    closed: {",
        '      tags: ["shut"],',
        "      on: {",
        "        OPEN: {",
        '          target: "open",',
        "          guard: {",
        '            type: "unlocked",',
        "            params: {",
        '              key: "front",',
        "            },",
        "          },",
        '          actions: ["count"],',
        "        },",
        '        "xstate.error.actor.*": {',
        '          actions: "report",',
        "        },",
        "      },",
        "    },",
        "    open: {",
        '      description: "Wide open",',
        "      after: {",
        '        "1000": "closed",',
        "      },",
        "      on: {",
        "        SLAM: {",
        '          target: "gone",',
        "          actions: [",
        '            "latchTheDoorFirmly",',
        '            "ringTheBellTwice",',
        '            "writeItInTheLog",',
        '            "wakeTheNeighbours",',
        "          ],",
        "        },",
        "      },",
        "    },",
        "    gone: {",
        '      type: "final",',
        "    },",
        "    orphan: {},",
        "  },",
        "});",
        "",
      ].join("\n"),
    );
    expect(text).not.toContain("// Named in its setup");
    const dir = moduleDir();
    writeFileSync(join(dir, "door.ts"), text);
    const loaded = await load(join(dir, "door.ts"), "door");
    expect(loaded.config).toEqual(machineJson(machine));
    // The walk finds the state nothing leads to.
    expect(unreached(withStubs(loaded))).toEqual(["door.orphan"]);
  });

  it("writes modules as the repository's formatter prints them", async () => {
    const dir = await exportModules();
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), "utf8");
      const formatted = spawnSync(
        join(root, "node_modules", ".bin", "biome"),
        ["format", `--stdin-file-path=${file}`],
        { cwd: root, input: text, encoding: "utf8" },
      );
      expect(formatted.status, formatted.stderr).toBe(0);
      expect(formatted.stdout, file).toBe(text);
    }
  });

  it("takes --format=stately, refuses another format with exit 2, and stays JSON by default", async () => {
    const cwd = moduleDir();
    const out: string[] = [];
    expect(await exportMachinesCommand(["--format=stately", "m"], quietIo(cwd, out))).toBe(0);
    expect(out.join("")).toContain(join("m", "conversation.ts"));
    expect(readdirSync(join(cwd, "m"))).toHaveLength(6);
    expect(await exportMachinesCommand([], quietIo(cwd))).toBe(0);
    expect(readdirSync(join(cwd, "machines")).sort()[0]).toBe("coalescer.json");
    for (const args of [
      ["--format", "yaml"],
      ["--format"],
      ["--format="],
      ["a", "--format", "json", "b"],
    ]) {
      const err: string[] = [];
      expect(await exportMachinesCommand(args, quietIo(cwd, err)), args.join(" ")).toBe(2);
      expect(err.join(""), args.join(" ")).toContain("[--format json|stately]");
    }
  });
});
