/** Misuse of `elyra-assistant/mcp`, thrown as a tagged error with a sentence. */
import { Data } from "effect";

/**
 * Options `mcpHttp` or `serveMcpStdio` cannot run with (a cap, a bound or a
 * timeout that would let sessions pile up, or open none): thrown when it is
 * called.
 *
 * @example
 * ```ts
 * try {
 *   mcpHttp(app, { maxSessionsPerUser: 0 });
 * } catch (error) {
 *   if (error instanceof McpConfigError) console.error(error.message);
 *   // mcpHttp: maxSessionsPerUser must be a whole number above 0, not 0
 * }
 * ```
 */
export class McpConfigError extends Data.TaggedError("McpConfigError")<{
  readonly reason: string;
  /** The function given them: `mcpHttp` unless said. */
  readonly entry?: string;
}> {
  override get message(): string {
    return `${this.entry ?? "mcpHttp"}: ${this.reason}`;
  }
}
