/**
 * `elyra-assistant mcp <app module>`: the app's MCP grant served over stdio,
 * until the client closes the connection. Stdout carries the protocol alone;
 * everything said to people goes to stderr.
 */
import { serveMcpStdio } from "../adapters/mcp/stdio.ts";
import { type CliIo, EXIT } from "./cliCommand.ts";
import { loadApp } from "./loadApp.ts";

/** Runs `mcp`: resolves with the exit code once the client has closed the connection. */
export const mcpCommand = async (args: string[], io: CliIo): Promise<number> => {
  const [specifier, ...extra] = args;
  if (specifier === undefined || extra.length > 0 || specifier.startsWith("-")) {
    io.stderr("Usage: elyra-assistant mcp <app module>\n");
    return EXIT.usage;
  }
  // Stdout is the protocol's from here on, the app module's own logging included.
  console.log = console.info = console.debug = console.error;
  const loaded = await loadApp(specifier, io.cwd);
  if (loaded._tag === "NotLoaded") {
    io.stderr(`elyra-assistant mcp: ${loaded.reason}\n`);
    return EXIT.failed;
  }
  if (loaded.app.mcp === undefined) {
    io.stderr(
      `elyra-assistant mcp: the app in ${specifier} has no MCP grant: give createApp an \`mcp: { allow: [...] }\`\n`,
    );
    return EXIT.failed;
  }
  const served = await serveMcpStdio(loaded.app);
  io.stderr(`elyra-assistant mcp: serving ${specifier} over stdio\n`);
  await served.closed;
  return EXIT.ok;
};
