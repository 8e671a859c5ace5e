/**
 * `export-machines [dir]`: each machine of `src/machines` as a JSON machine
 * config, to open in the Stately visualizer or re-create with
 * `createMachine(json)`.
 *
 * XState 5 offers `machine.toJSON()` (= `machine.definition`), but that is
 * the resolved definition, not a config: `initial` becomes an object that
 * `createMachine` rejects, and eventless (`always`) transitions are left out.
 * So the config the machine was made from is written instead, with every
 * function (context, inputs, params, inline actions and guards) replaced by
 * a name or left out, since JSON holds no code.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import type { AnyStateMachine } from "xstate";
import { coalescerMachine } from "../machines/coalescerMachine.ts";
import { codeRunMachine } from "../machines/codeRunMachine.ts";
import { confirmationMachine } from "../machines/confirmationMachine.ts";
import { conversationMachine } from "../machines/conversationMachine.ts";
import { supervisorMachine } from "../machines/supervisorMachine.ts";
import type { CliIo } from "./cliCommand.ts";

/** The machines exported, by the file name (without `.json`) each is written to. */
export const MACHINES: Readonly<Record<string, AnyStateMachine>> = {
  supervisor: supervisorMachine,
  conversation: conversationMachine,
  confirmation: confirmationMachine,
  coalescer: coalescerMachine,
  codeRun: codeRunMachine,
};

/** The name an inline guard, action or actor gets in the JSON. */
export const INLINE = "inline";

const ACTION_KEYS = new Set(["actions", "entry", "exit"]);

const toJson = (value: unknown, key: string): unknown => {
  if (typeof value === "function") {
    // Built-in actions (assign, emit, enqueueActions…) carry their type, e.g. `xstate.assign`.
    if (ACTION_KEYS.has(key)) {
      const type = (value as { type?: unknown }).type;
      return typeof type === "string" ? type : INLINE;
    }
    if (key === "guard" || key === "src") return INLINE;
    return undefined; // context, input, output, params, a delay's function
  }
  if (Array.isArray(value)) {
    return value.map((item) => toJson(item, key)).filter((item) => item !== undefined);
  }
  if (typeof value === "object" && value !== null) {
    // An actor's logic given inline (not by name) has no JSON form.
    if (key === "src") return INLINE;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const converted = toJson(v, ACTION_KEYS.has(key) && k !== "params" ? key : k);
      if (converted !== undefined) out[k] = converted;
    }
    // `{ type: "log", params: fn }` with its params gone is just `"log"`; a guard's the same.
    if (
      (ACTION_KEYS.has(key) || key === "guard") &&
      Object.keys(out).length === 1 &&
      typeof out.type === "string"
    )
      return out.type;
    return out;
  }
  return value;
};

/**
 * A machine's config as JSON: what `createMachine` takes and the Stately
 * visualizer imports. Named guards, actions, actors and delays keep their
 * names; inline ones are named {@link INLINE}.
 *
 * @example
 * ```ts
 * const json = machineJson(confirmationMachine);
 * createMachine(json as Parameters<typeof createMachine>[0]).id; // "confirmation"
 * ```
 */
export const machineJson = (machine: AnyStateMachine): Record<string, unknown> =>
  toJson(machine.config, "") as Record<string, unknown>;

/** Each machine's file name and its JSON text. */
export const machineFiles = (
  machines: Readonly<Record<string, AnyStateMachine>> = MACHINES,
): ReadonlyArray<{ readonly file: string; readonly json: string }> =>
  Object.entries(machines).map(([name, machine]) => ({
    file: `${name}.json`,
    json: `${JSON.stringify(machineJson(machine), null, 2)}\n`,
  }));

const USAGE = "usage: elyra-assistant export-machines [dir]  (default: ./machines)\n";

/**
 * The `export-machines` subcommand: writes one JSON file per machine into
 * `dir` (created if missing) and lists them; 0 when written, 1 when a file
 * cannot be written, 2 on a usage error.
 */
export const exportMachinesCommand = async (args: string[], io: CliIo): Promise<number> => {
  const unknown = args.find((arg) => arg.startsWith("-"));
  if (unknown !== undefined || args.length > 1) {
    io.stderr(unknown !== undefined ? `unknown option ${unknown}\n${USAGE}` : USAGE);
    return 2;
  }
  const dir = resolve(io.cwd, args[0] ?? "machines");
  try {
    await mkdir(dir, { recursive: true });
    for (const { file, json } of machineFiles()) {
      await writeFile(join(dir, file), json);
      io.stdout(`${relative(io.cwd, join(dir, file))}\n`);
    }
  } catch (error) {
    io.stderr(`cannot write to ${args[0] ?? "machines"}: ${(error as Error).message}\n`);
    return 1;
  }
  return 0;
};
