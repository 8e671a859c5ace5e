/**
 * The `elyra-assistant` command line: a table of subcommands, each with its
 * usage line and a `run` that returns the exit code. 0 is success, 1 a
 * failure (a module that can't be loaded or isn't an app), 2 a command line
 * that can't be understood. A subcommand's module is imported only when it
 * runs, so `--help` loads no adapter (not the MCP SDK, not XState's machines).
 */
import { readFile } from "node:fs/promises";
import { type CliCommand, type CliIo, EXIT } from "./cliCommand.ts";

export type { CliCommand, CliIo } from "./cliCommand.ts";
export { EXIT } from "./cliCommand.ts";

type Run = CliCommand["run"];

/** A row of the table whose `run` imports its module when first called. */
const lazy = (
  name: string,
  usage: string,
  summary: string,
  load: () => Promise<Run>,
): CliCommand => ({ name, usage, summary, run: async (args, io) => (await load())(args, io) });

/** The subcommands, in the order `--help` lists them. */
export const COMMANDS: ReadonlyArray<CliCommand> = [
  lazy(
    "inspect",
    "<app module> [--json]",
    "List each grant's tools: asks first, read-only, runs without asking",
    async () => (await import("./inspect.ts")).inspectCommand,
  ),
  lazy(
    "scan-keys",
    "<dir|file…>",
    "Find API keys and the SDK's browser opt-in in a bundle (start and length only)",
    async () => (await import("./scanKeys.ts")).scanKeysCommand,
  ),
  lazy(
    "export-machines",
    "[dir] [--format json|stately]",
    "Write each state machine as JSON, or as a module for Stately's editor (default ./machines)",
    async () => (await import("./exportMachines.ts")).exportMachinesCommand,
  ),
  lazy(
    "mcp",
    "<app module>",
    "Serve the app's MCP grant over stdio (the module's default or `app` export)",
    async () => (await import("./mcp.ts")).mcpCommand,
  ),
];

/** What `--help` prints. */
export const helpText = (commands: ReadonlyArray<CliCommand> = COMMANDS): string => {
  const width = Math.max(...commands.map((c) => `${c.name} ${c.usage}`.length));
  const lines = commands.map((c) => `  ${`${c.name} ${c.usage}`.padEnd(width)}  ${c.summary}`);
  return [
    "Usage: elyra-assistant <command> [arguments]",
    "",
    "Commands:",
    ...lines,
    "",
    "Options:",
    "  -h, --help     Show this help",
    "  -v, --version  Show the version",
    "",
  ].join("\n");
};

/** The package's version, from its package.json (two levels up from src/cli and from dist/cli). */
export const version = async (): Promise<string> => {
  const text = await readFile(new URL("../../package.json", import.meta.url), "utf8");
  return (JSON.parse(text) as { version: string }).version;
};

const defaultIo = (): CliIo => ({
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  cwd: process.cwd(),
});

/**
 * Runs the command line (without `node` and the script): resolves with the
 * exit code, having written only what the command writes.
 *
 * @example
 * ```ts
 * process.exitCode = await main(process.argv.slice(2));
 * ```
 */
export const main = async (
  argv: string[],
  io: CliIo = defaultIo(),
  commands: ReadonlyArray<CliCommand> = COMMANDS,
): Promise<number> => {
  const [first, ...rest] = argv;
  if (first === undefined || first === "-h" || first === "--help" || first === "help") {
    (first === undefined ? io.stderr : io.stdout)(helpText(commands));
    return first === undefined ? EXIT.usage : EXIT.ok;
  }
  if (first === "-v" || first === "--version") {
    io.stdout(`${await version()}\n`);
    return EXIT.ok;
  }
  const command = commands.find((c) => c.name === first);
  if (command === undefined) {
    io.stderr(`elyra-assistant: unknown command ${JSON.stringify(first)}\n\n${helpText(commands)}`);
    return EXIT.usage;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout(`Usage: elyra-assistant ${command.name} ${command.usage}\n\n${command.summary}\n`);
    return EXIT.ok;
  }
  return command.run(rest, io);
};
