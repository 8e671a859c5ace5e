/**
 * The caps on `mcpHttp`'s sessions and how long one may idle, and the bounds
 * on one message of either transport: the defaults, and the check of what is
 * given.
 */
import { McpConfigError } from "./errors.ts";
import type { MessageLimits } from "./messageBounds.ts";
import type { SessionLimits } from "./sessions.ts";

/**
 * The most bytes one MCP message may be (a POST body, a stdio line): 1 MiB.
 *
 * @example
 * ```ts
 * const handle = mcpHttp(app, { authenticate, maxMessageBytes: MCP_MAX_MESSAGE_BYTES / 4 }); // 256 KiB
 * ```
 */
export const MCP_MAX_MESSAGE_BYTES = 1024 * 1024;

/**
 * The most values one MCP message may hold (list items and fields): 4 096.
 *
 * @example
 * ```ts
 * const handle = mcpHttp(app, { authenticate, maxMessageValues: MCP_MAX_MESSAGE_VALUES * 2 }); // long lists of ids
 * ```
 */
export const MCP_MAX_MESSAGE_VALUES = 4096;

/**
 * How long a session may go without a request before it ends: 30 minutes.
 *
 * @example
 * ```ts
 * const handle = mcpHttp(app, { authenticate, idleTimeoutMs: MCP_SESSION_IDLE_MS * 2 }); // an hour
 * ```
 */
export const MCP_SESSION_IDLE_MS = 30 * 60 * 1000;

/**
 * How many sessions one user may have open: 16.
 *
 * @example
 * ```ts
 * const handle = mcpHttp(app, { authenticate, maxSessionsPerUser: MCP_SESSIONS_PER_USER / 4 }); // 4
 * ```
 */
export const MCP_SESSIONS_PER_USER = 16;

/**
 * How many sessions a handler keeps open in all: 1 000.
 *
 * @example
 * ```ts
 * const handle = mcpHttp(app, { authenticate, maxSessions: MCP_SESSIONS_MAX * 5 }); // a bigger server
 * ```
 */
export const MCP_SESSIONS_MAX = 1_000;

/**
 * The caps and idle time `mcpHttp` was given, defaults filled in and
 * checked: a cap that isn't one is misuse, thrown as `McpConfigError`.
 */
export const sessionLimits = (
  options: {
    readonly [K in keyof SessionLimits]?: SessionLimits[K] | undefined;
  },
): SessionLimits => {
  const limits = {
    maxSessions: options.maxSessions ?? MCP_SESSIONS_MAX,
    maxSessionsPerUser: options.maxSessionsPerUser ?? MCP_SESSIONS_PER_USER,
    idleTimeoutMs: options.idleTimeoutMs ?? MCP_SESSION_IDLE_MS,
  };
  for (const name of ["maxSessions", "maxSessionsPerUser"] as const) {
    const value = limits[name];
    if (!Number.isInteger(value) || value < 1)
      throw new McpConfigError({
        reason: `${name} must be a whole number above 0, not ${String(value)}`,
      });
  }
  if (!(Number.isFinite(limits.idleTimeoutMs) && limits.idleTimeoutMs > 0))
    throw new McpConfigError({
      reason: `idleTimeoutMs must be a positive, finite number of milliseconds, not ${String(limits.idleTimeoutMs)}`,
    });
  return limits;
};

/**
 * The message bounds a transport was given, defaults filled in and checked:
 * a bound that isn't a whole number above 0 is misuse, thrown as
 * `McpConfigError` naming `entry` (`mcpHttp`, `serveMcpStdio`).
 */
export const messageLimits = (
  options: { readonly [K in keyof MessageLimits]?: MessageLimits[K] | undefined },
  entry: string,
): MessageLimits => {
  const limits = {
    maxMessageBytes: options.maxMessageBytes ?? MCP_MAX_MESSAGE_BYTES,
    maxMessageValues: options.maxMessageValues ?? MCP_MAX_MESSAGE_VALUES,
  };
  for (const name of ["maxMessageBytes", "maxMessageValues"] as const) {
    const value = limits[name];
    if (!Number.isInteger(value) || value < 1)
      throw new McpConfigError({
        reason: `${name} must be a whole number above 0, not ${String(value)}`,
        entry,
      });
  }
  return limits;
};
