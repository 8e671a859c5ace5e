/**
 * This package's version, as package.json gives it (a spec keeps the two
 * equal): what the MCP server reports as its `serverInfo.version` unless the
 * app names its own.
 *
 * @example
 * ```ts
 * import { VERSION } from "elyra-assistant";
 * console.log(VERSION); // "0.2.0"
 * ```
 */
export const VERSION = "0.2.0";
