/**
 * The app's MCP server over Streamable HTTP, as a fetch handler: one
 * transport and one `Server` per session, found by the `Mcp-Session-Id`
 * header. A session ends on DELETE, or after it has been idle too long.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { canonicalJson } from "../../runtime/calls/canonicalJson.ts";
import type { App } from "../../runtime/commands/app.ts";
import type { User } from "../../runtime/commands/origin.ts";
import { type Clock, systemClock } from "../../runtime/ports/clock.ts";
import { refusalResponse, UNAUTHENTICATED } from "../web/errorAnswer.ts";
import { streamableHttpSdk } from "./sdk.ts";
import { type McpServerOptions, mcpServer, notifyToolsChanged } from "./server.ts";

/** How long a session may go without a request before it ends: 30 minutes. */
export const MCP_SESSION_IDLE_MS = 30 * 60 * 1000;

/** Options of {@link mcpHttp}: those of `mcpServer` but `user`, and the session's. */
export interface McpHttpOptions extends Omit<McpServerOptions, "user"> {
  /**
   * Who the user is (from the app's session); `undefined` or `null` answers
   * 401. The user a session starts with is its `user` for `mcpServer`, and
   * its requests must keep coming from that user. Without it, no user.
   */
  readonly authenticate?: (
    request: Request,
  ) => User | undefined | null | Promise<User | undefined | null>;
  /** A session idle this long ends: {@link MCP_SESSION_IDLE_MS}. */
  readonly idleTimeoutMs?: number;
  /** Time, for idle sessions: the wall clock unless given. */
  readonly clock?: Clock;
  /** Session ids: random UUIDs unless given. They must be unguessable; inject others only in tests. */
  readonly sessionIds?: () => string;
  /** Whether two users are the same one: equal as canonical JSON unless given. */
  readonly sameUser?: (a: User, b: User) => boolean;
}

/** A fetch handler serving MCP sessions, with what a host needs to run it. */
export interface McpHttpHandler {
  (request: Request): Promise<Response>;
  /** How many sessions are open. */
  readonly sessions: () => number;
  /** Tells every session's client that the tool list changed. */
  readonly notifyToolsChanged: () => Promise<void>;
  /** Ends every session; later requests start new ones. */
  readonly close: () => Promise<void>;
}

interface Session {
  readonly server: Server;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly user: User | undefined;
  lastSeen: number;
}

/** A JSON-RPC error answer with no id, as the SDK's transport writes its own. */
const rpcError = (status: number, code: number, message: string): Response =>
  Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });

/**
 * Serves the app's MCP grant over Streamable HTTP. Mount it at one path
 * (`/mcp`) with any fetch host, or on `node:http` with `toNodeListener`.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { toNodeListener } from "elyra-assistant/http";
 *
 * const handle = mcpHttp(app, { authenticate: (request) => sessions.userOf(request) });
 * createServer(toNodeListener(handle)).listen(3001, "127.0.0.1");
 * ```
 */
export const mcpHttp = (app: App, options: McpHttpOptions = {}): McpHttpHandler => {
  const {
    authenticate,
    idleTimeoutMs = MCP_SESSION_IDLE_MS,
    clock = systemClock,
    sessionIds = () => crypto.randomUUID(),
    sameUser = (a, b) => canonicalJson(a) === canonicalJson(b),
    ...serverOptions
  } = options;
  const sessions = new Map<string, Session>();
  let sweeper: unknown;

  const end = async (session: Session) => {
    const id = session.transport.sessionId;
    if (id !== undefined) sessions.delete(id);
    await session.server.close();
  };

  const sweep = () => {
    const now = clock.now();
    for (const session of [...sessions.values()]) {
      if (now - session.lastSeen >= idleTimeoutMs) void end(session);
    }
  };

  // Between requests a timer ends idle sessions, so an abandoned one doesn't stay in memory.
  const arm = () => {
    if (sweeper !== undefined || sessions.size === 0) return;
    sweeper = clock.setTimeout(() => {
      sweeper = undefined;
      sweep();
      arm();
    }, idleTimeoutMs);
    (sweeper as { unref?: () => void } | undefined)?.unref?.();
  };

  const open = async (request: Request, user: User | undefined): Promise<Response> => {
    const transport = new streamableHttpSdk.WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: sessionIds,
      onsessioninitialized: (id) => {
        sessions.set(id, session);
        arm();
      },
    });
    const server = mcpServer(app, {
      ...serverOptions,
      // A function, so a user that is itself a function isn't taken for one of the client's name.
      ...(user === undefined ? {} : { user: () => user }),
    });
    const session: Session = { server, transport, user, lastSeen: clock.now() };
    // DELETE, close() and expiry all end here.
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    // Anything but an initialize request leaves no session: nothing to keep.
    if (!sessions.has(transport.sessionId ?? "")) await server.close();
    return response;
  };

  const handle = async (request: Request): Promise<Response> => {
    sweep();
    let user: User | undefined;
    if (authenticate !== undefined) {
      const found = await authenticate(request);
      if (found === undefined || found === null)
        return refusalResponse(401, "unauthenticated", UNAUTHENTICATED);
      user = found;
    }
    const id = request.headers.get("mcp-session-id");
    if (id === null) {
      if (request.method !== "POST") {
        return rpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
      }
      return open(request, user);
    }
    const session = sessions.get(id);
    // Another user's session is answered as though it didn't exist.
    if (
      session === undefined ||
      (authenticate !== undefined && !sameUser(session.user as User, user as User))
    ) {
      return rpcError(404, -32001, "Session not found");
    }
    session.lastSeen = clock.now();
    try {
      return await session.transport.handleRequest(request);
    } finally {
      session.lastSeen = clock.now();
    }
  };

  return Object.assign(handle, {
    sessions: () => sessions.size,
    notifyToolsChanged: async () => {
      await Promise.all([...sessions.values()].map((s) => notifyToolsChanged(s.server)));
    },
    close: async () => {
      if (sweeper !== undefined) clock.clearTimeout(sweeper);
      sweeper = undefined;
      await Promise.all([...sessions.values()].map(end));
    },
  });
};
