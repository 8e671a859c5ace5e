/**
 * The app's MCP server on this process's stdin and stdout, as a client such
 * as Claude Desktop starts it: one connection, for the life of the process.
 */
import type { Readable, Writable } from "node:stream";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { App } from "../../runtime/commands/app.ts";
import { MCP_MAX_MESSAGE_BYTES, MCP_MAX_MESSAGE_VALUES, messageLimits } from "./limits.ts";
import { stdioSdk } from "./sdk.ts";
import { type McpServerOptions, mcpServer } from "./server.ts";
import { boundedLines } from "./stdioBounds.ts";

/** Options of {@link serveMcpStdio}: those of `mcpServer`, the message bounds, and the streams (tests). */
export interface McpStdioOptions extends McpServerOptions {
  /** Read from: `process.stdin` unless given. */
  readonly stdin?: Readable;
  /** Written to, by the protocol alone: `process.stdout` unless given. */
  readonly stdout?: Writable;
  /**
   * Bytes one message (one line) may be ({@link MCP_MAX_MESSAGE_BYTES}); a
   * longer line is skipped to its end unkept and answered with an error.
   */
  readonly maxMessageBytes?: number;
  /**
   * Values one message may hold, every list item and field counted
   * ({@link MCP_MAX_MESSAGE_VALUES}); more are answered with an error before the line is parsed.
   */
  readonly maxMessageValues?: number;
}

/** A server being served over stdio. */
export interface McpStdio {
  /** The connection's server (for `notifyToolsChanged`). */
  readonly server: Server;
  /** Ends the connection; resolves once it has. */
  readonly close: () => Promise<void>;
  /** Resolves when the connection ends: the client closed stdin, or `close` was called. */
  readonly closed: Promise<void>;
}

const QUIET = ["log", "info", "debug"] as const;

/**
 * Serves the app's MCP grant over stdio. Stdout is the protocol's alone: while
 * serving, `console.log`, `console.info` and `console.debug` write to stderr,
 * so a stray log line in the app can't corrupt a message.
 *
 * @example
 * ```ts
 * const served = await serveMcpStdio(app);
 * await served.closed; // the client went away
 * ```
 */
export const serveMcpStdio = async (app: App, options: McpStdioOptions = {}): Promise<McpStdio> => {
  const {
    stdin = process.stdin,
    stdout = process.stdout,
    maxMessageBytes,
    maxMessageValues,
    ...serverOptions
  } = options;
  const limits = messageLimits({ maxMessageBytes, maxMessageValues }, "serveMcpStdio");
  const server = mcpServer(app, serverOptions);
  // Each line is checked against the bounds before the SDK's transport parses it.
  const lines = boundedLines(limits, (answer) => stdout.write(answer));
  stdin.pipe(lines);
  const transport = new stdioSdk.StdioServerTransport(lines, stdout);

  const saved = QUIET.map((name) => [name, console[name]] as const);
  if (stdout === process.stdout) {
    for (const name of QUIET) console[name] = console.error;
  }

  let ended!: () => void;
  const closed = new Promise<void>((resolve) => {
    ended = resolve;
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      stdin.off("end", onEnd);
      await server.close();
      stdin.unpipe(lines);
      // As the SDK's transport does for its input: nothing else reads it, so it stops.
      if (stdin.listenerCount("data") === 0) stdin.pause();
      for (const [name, log] of saved) console[name] = log;
      ended();
    })();
    return closing;
  };
  // The transport doesn't watch for the end of its input: a client that exits closes stdin.
  const onEnd = () => void close();
  stdin.on("end", onEnd);
  const prior = server.onclose;
  server.onclose = () => {
    prior?.();
    void close();
  };

  await server.connect(transport);
  return { server, close, closed };
};
