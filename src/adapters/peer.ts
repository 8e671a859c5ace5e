/**
 * Loading an optional peer dependency: an entry point that needs one
 * (`elyra-assistant/sqlite` needs `better-sqlite3`, …) fails on import with
 * one sentence naming the package to install, instead of the runtime's raw
 * "cannot find package".
 */
import { Data } from "effect";

/**
 * An entry point was imported without the optional peer dependency it needs;
 * its message says what to install.
 *
 * @example
 * ```ts
 * try {
 *   const { sqliteStore } = await import("elyra-assistant/sqlite");
 * } catch (error) {
 *   if (error instanceof MissingPeerDependency) console.error(error.message);
 *   // elyra-assistant/sqlite needs the package better-sqlite3, which is not installed: …
 * }
 * ```
 */
export class MissingPeerDependency extends Data.TaggedError("MissingPeerDependency")<{
  /** The entry point imported, e.g. `elyra-assistant/sqlite`. */
  readonly entry: string;
  /** The package it needs, e.g. `better-sqlite3`. */
  readonly peer: string;
  readonly cause: unknown;
}> {
  override get message(): string {
    return `${this.entry} needs the package ${this.peer}, which is not installed: install it beside elyra-assistant (npm install ${this.peer}).`;
  }
}

const NOT_FOUND_CODES: ReadonlySet<unknown> = new Set(["ERR_MODULE_NOT_FOUND", "MODULE_NOT_FOUND"]);

/**
 * Whether `error` says that `peer` itself could not be found (Node, Bun and
 * Deno word it differently; each names the package). A package that is there
 * but fails to load, or a missing package of its own, is not this.
 */
export const isPeerMissing = (error: unknown, peer: string): boolean => {
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof message !== "string") return false;
  const named = message.includes(`'${peer}'`) || message.includes(`"${peer}"`);
  const notFound =
    NOT_FOUND_CODES.has(code) ||
    /cannot find (package|module)|could not (find|resolve)/i.test(message);
  return named && notFound;
};

/**
 * Runs `load` (an `import()` of `peer`, written out so bundlers see it), and
 * turns "not installed" into a {@link MissingPeerDependency}.
 *
 * @example
 * ```ts
 * const sdk = await importPeer("elyra-assistant/mcp", "@modelcontextprotocol/sdk", () =>
 *   import("@modelcontextprotocol/sdk/server/index.js"),
 * );
 * ```
 */
export const importPeer = async <T>(
  entry: string,
  peer: string,
  load: () => Promise<T>,
): Promise<T> => {
  try {
    return await load();
  } catch (cause) {
    if (isPeerMissing(cause, peer)) throw new MissingPeerDependency({ entry, peer, cause });
    throw cause;
  }
};
