/**
 * The app's MCP server over Streamable HTTP, as a fetch handler: one
 * transport and one `Server` per session, found by the `Mcp-Session-Id`
 * header. A session ends on DELETE, after it has been idle too long, or to
 * make way for a newer one of its user at the user's cap.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { canonicalJson } from "../../runtime/calls/canonicalJson.ts";
import type { App } from "../../runtime/commands/app.ts";
import type { User } from "../../runtime/commands/origin.ts";
import { type Clock, systemClock } from "../../runtime/ports/clock.ts";
import { refusalResponse, UNAUTHENTICATED } from "../web/errorAnswer.ts";
import { readMessageBody, rpcError } from "./httpBody.ts";
import {
  MCP_MAX_MESSAGE_BYTES,
  MCP_MAX_MESSAGE_VALUES,
  MCP_SESSION_IDLE_MS,
  MCP_SESSIONS_MAX,
  MCP_SESSIONS_PER_USER,
  messageLimits,
  sessionLimits,
} from "./limits.ts";
import { streamableHttpSdk } from "./sdk.ts";
import { type McpServerOptions, mcpServerRunning, notifyToolsChanged } from "./server.ts";
import { type Admission, type Slot, sessionTable } from "./sessions.ts";

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
  /**
   * Sessions one user may have open ({@link MCP_SESSIONS_PER_USER}); the
   * user's least recently used idle one ends to make way for a new one.
   * Without `authenticate`, every client is the same user.
   */
  readonly maxSessionsPerUser?: number;
  /** Sessions open in all ({@link MCP_SESSIONS_MAX}); past it a new one is refused (503). */
  readonly maxSessions?: number;
  /**
   * Bytes one request's body may be ({@link MCP_MAX_MESSAGE_BYTES}); a bigger
   * one is refused (413) without being read past the bound.
   */
  readonly maxMessageBytes?: number;
  /**
   * Values one request may hold, every list item and field counted
   * ({@link MCP_MAX_MESSAGE_VALUES}); more are refused (413) before the body is parsed.
   */
  readonly maxMessageValues?: number;
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

interface Held {
  readonly server: Server;
  readonly transport: WebStandardStreamableHTTPServerTransport;
}

type Session = Slot<User | undefined, Held>;

/** The answer to a session that can't be opened. */
const refusalOf = (admission: Exclude<Admission<unknown, unknown>, { _tag: "Admitted" }>) => {
  switch (admission._tag) {
    case "UserFull":
      return rpcError(
        429,
        -32000,
        `Too many MCP sessions for this user: each of its ${admission.limit} is in the middle of a call. End one (DELETE) or try again when a call has finished.`,
      );
    case "ServerFull":
      return rpcError(
        503,
        -32000,
        `Too many MCP sessions: all ${admission.limit} are open. Try again later.`,
      );
  }
};

/**
 * Serves the app's MCP grant over Streamable HTTP. Mount it at one path
 * (`/mcp`) with any fetch host, or on `node:http` with `toNodeListener`.
 * Sessions are capped per user and in all; options that aren't caps throw
 * `McpConfigError`.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { toNodeListener } from "elyra-assistant/http";
 *
 * const handle = mcpHttp(app, {
 *   authenticate: (request) => sessions.userOf(request),
 *   maxSessionsPerUser: 4, // 16 unless given
 * });
 * createServer(toNodeListener(handle)).listen(3001, "127.0.0.1");
 * ```
 */
export const mcpHttp = (app: App, options: McpHttpOptions = {}): McpHttpHandler => {
  const {
    authenticate,
    idleTimeoutMs,
    maxSessions,
    maxSessionsPerUser,
    maxMessageBytes,
    maxMessageValues,
    clock = systemClock,
    sessionIds = () => crypto.randomUUID(),
    sameUser = (a, b) => canonicalJson(a) === canonicalJson(b),
    ...serverOptions
  } = options;
  const limits = sessionLimits({ idleTimeoutMs, maxSessions, maxSessionsPerUser });
  const bounds = messageLimits({ maxMessageBytes, maxMessageValues }, "mcpHttp");
  // Without authenticate there are no users to tell apart: every session is the anonymous one's.
  const same = (a: User | undefined, b: User | undefined): boolean =>
    a === undefined || b === undefined ? a === b : sameUser(a, b);
  const sessions = sessionTable<User | undefined, Held>(limits, clock, same);
  let sweeper: unknown;

  const end = async (session: Session) => {
    sessions.remove(session);
    await session.value.server.close();
  };

  const sweep = () => {
    for (const session of sessions.expire()) void end(session);
  };

  // Between requests a timer ends idle sessions, so an abandoned one doesn't stay in memory.
  const arm = () => {
    if (sweeper !== undefined || sessions.size() === 0) return;
    sweeper = clock.setTimeout(() => {
      sweeper = undefined;
      sweep();
      arm();
    }, limits.idleTimeoutMs);
    (sweeper as { unref?: () => void } | undefined)?.unref?.();
  };

  const open = async (
    request: Request,
    user: User | undefined,
    parsedBody: unknown,
  ): Promise<Response> => {
    const admission = sessions.admit(user, (usage): Held => {
      const transport = new streamableHttpSdk.WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: sessionIds,
        onsessioninitialized: (id) => {
          sessions.opened(session, id);
          arm();
        },
      });
      const server = mcpServerRunning(
        app,
        {
          ...serverOptions,
          // A function, so a user that is itself a function isn't taken for one of the client's name.
          ...(user === undefined ? {} : { user: () => user }),
        },
        (call) => sessions.calling(usage, call),
      );
      return { server, transport };
    });
    if (admission._tag !== "Admitted") return refusalOf(admission);
    const { slot: session, evicted } = admission;
    if (evicted !== undefined) void end(evicted);
    const { server, transport } = session.value;
    // DELETE, close(), expiry and making way all end here.
    transport.onclose = () => sessions.remove(session);
    try {
      await server.connect(transport);
      return await transport.handleRequest(request, { parsedBody });
    } finally {
      // Anything but an initialize request leaves no session: nothing to keep.
      if (session.id === undefined) await end(session);
    }
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
    // A POST's body is read and parsed here, within the bounds, so the SDK never reads it.
    let parsedBody: unknown;
    if (request.method === "POST") {
      const read = await readMessageBody(request, bounds);
      if (read._tag === "Refused") return read.response;
      parsedBody = read.message;
    }
    const id = request.headers.get("mcp-session-id");
    if (id === null) {
      if (request.method !== "POST") {
        return rpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
      }
      return open(request, user, parsedBody);
    }
    const session = sessions.find(id);
    // Another user's session is answered as though it didn't exist.
    if (session === undefined || !same(session.user, user)) {
      return rpcError(404, -32001, "Session not found");
    }
    sessions.touch(session);
    try {
      return await session.value.transport.handleRequest(
        request,
        request.method === "POST" ? { parsedBody } : undefined,
      );
    } finally {
      sessions.touch(session);
    }
  };

  return Object.assign(handle, {
    sessions: () => sessions.size(),
    notifyToolsChanged: async () => {
      await Promise.all(sessions.all().map((s) => notifyToolsChanged(s.value.server)));
    },
    close: async () => {
      if (sweeper !== undefined) clock.clearTimeout(sweeper);
      sweeper = undefined;
      await Promise.all(sessions.all().map(end));
    },
  });
};
