/**
 * `export-machines [dir] [--format json|stately]`: each machine of
 * `src/machines` as a JSON machine config (to open in the Stately visualizer
 * or re-create with `createMachine(json)`), or as a module whose
 * `createMachine({...})` pastes into Stately's editor. Both are drawn from
 * the machine's own config (`machineJson.ts`).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import type { AnyStateMachine } from "xstate";
import { coalescerMachine } from "../machines/coalescerMachine.ts";
import { codeRunMachine } from "../machines/codeRunMachine.ts";
import { confirmationMachine } from "../machines/confirmationMachine.ts";
import { conversationMachine } from "../machines/conversationMachine.ts";
import { supervisorMachine } from "../machines/supervisorMachine.ts";
import { windowMachine } from "../machines/windowMachine.ts";
import type { CliIo } from "./cliCommand.ts";
import { machineJson } from "./machineJson.ts";
import { statelyModule } from "./statelyModule.ts";

export { INLINE, machineJson } from "./machineJson.ts";

/** The machines exported, by the file name (without its extension) each is written to. */
export const MACHINES: Readonly<Record<string, AnyStateMachine>> = {
  supervisor: supervisorMachine,
  window: windowMachine,
  conversation: conversationMachine,
  confirmation: confirmationMachine,
  coalescer: coalescerMachine,
  codeRun: codeRunMachine,
};

/** Each machine's file name and its JSON text. */
export const machineFiles = (
  machines: Readonly<Record<string, AnyStateMachine>> = MACHINES,
): ReadonlyArray<{ readonly file: string; readonly json: string }> =>
  Object.entries(machines).map(([name, machine]) => ({
    file: `${name}.json`,
    json: `${JSON.stringify(machineJson(machine), null, 2)}\n`,
  }));

/**
 * Each machine's module for Stately's editor (`<name>.ts`, exporting
 * `<name>Machine`) and its text; see {@link statelyModule}.
 *
 * @example
 * ```ts
 * for (const { file, text } of statelyFiles()) await writeFile(join("machines", file), text);
 * ```
 */
export const statelyFiles = (
  machines: Readonly<Record<string, AnyStateMachine>> = MACHINES,
): ReadonlyArray<{ readonly file: string; readonly text: string }> =>
  Object.entries(machines).map(([name, machine]) => ({
    file: `${name}.ts`,
    text: statelyModule(name, machine),
  }));

type Files = () => ReadonlyArray<{ readonly file: string; readonly text: string }>;

const jsonFiles: Files = () => machineFiles().map(({ file, json }) => ({ file, text: json }));

/** What `--format` takes: each format's files. */
const FORMATS: Readonly<Record<string, Files>> = { json: jsonFiles, stately: () => statelyFiles() };

const USAGE =
  "usage: elyra-assistant export-machines [dir] [--format json|stately]  (default: ./machines, json)\n";

type Parsed = { readonly dir: string; readonly files: Files } | { readonly error: string };

/** `[dir] [--format json|stately]`, the format also as `--format=stately`. */
const parse = (args: ReadonlyArray<string>): Parsed => {
  const dirs: string[] = [];
  let files = jsonFiles;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--format" || arg.startsWith("--format=")) {
      const value = arg === "--format" ? args[++i] : arg.slice("--format=".length);
      const format =
        value === undefined || !Object.hasOwn(FORMATS, value) ? undefined : FORMATS[value];
      if (format === undefined)
        return { error: `--format takes json or stately, not ${JSON.stringify(value ?? "")}\n` };
      files = format;
    } else if (arg.startsWith("-")) return { error: `unknown option ${arg}\n` };
    else dirs.push(arg);
  }
  if (dirs.length > 1) return { error: "" };
  return { dir: dirs[0] ?? "machines", files };
};

/**
 * The `export-machines` subcommand: writes one file per machine into `dir`
 * (created if missing), JSON unless `--format stately`, and lists them; 0
 * when written, 1 when a file cannot be written, 2 on a usage error.
 */
export const exportMachinesCommand = async (args: string[], io: CliIo): Promise<number> => {
  const parsed = parse(args);
  if ("error" in parsed) {
    io.stderr(`${parsed.error}${USAGE}`);
    return 2;
  }
  const dir = resolve(io.cwd, parsed.dir);
  try {
    await mkdir(dir, { recursive: true });
    for (const { file, text } of parsed.files()) {
      await writeFile(join(dir, file), text);
      io.stdout(`${relative(io.cwd, join(dir, file))}\n`);
    }
  } catch (error) {
    io.stderr(`cannot write to ${parsed.dir}: ${(error as Error).message}\n`);
    return 1;
  }
  return 0;
};
