/**
 * The `elyra-assistant` command line: a table of subcommands, each with its
 * usage line and a `run` that returns the exit code. 0 is success, 1 a
 * failure (a module that can't be loaded or isn't an app), 2 a command line
 * that can't be understood.
 */
import { type CliCommand, type CliIo, EXIT } from "./command.ts";
import { exportMachinesCliCommand } from "./exportMachines.ts";
import { inspectCliCommand } from "./inspect.ts";
import { mcpCommand } from "./mcp.ts";
import { scanKeysCliCommand } from "./scanKeys.ts";

export type { CliCommand, CliIo } from "./command.ts";
export { EXIT } from "./command.ts";

/** The subcommands, in the order `--help` lists them. */
export const COMMANDS: ReadonlyArray<CliCommand> = [
  inspectCliCommand,
  scanKeysCliCommand,
  exportMachinesCliCommand,
  mcpCommand,
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
    "  -h, --help  Show this help",
    "",
  ].join("\n");
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
