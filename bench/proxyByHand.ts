/**
 * The proxy bench's second floor: the minimal pass-through (bench/proxyChild.ts)
 * with the checks a proxy exists to make, written by hand the short way, each
 * as cheap as its plain Node primitive makes it: the user's token compared,
 * the body parsed and held to the fields and settings the library's proxy
 * holds it to (an allowlist of members, the model, `max_tokens`, `stream`,
 * client tools only, no URL source), a counter a user a minute, the opaque
 * user id by HMAC, the body sent as parsed with that id, and each streamed
 * answer's usage read from its `message_start` and `message_delta` events.
 * What it leaves out is what the library adds beyond its duty (its refusals'
 * words, its errors, its bounds and timeouts, its report of usage).
 */
import { createHmac } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Agent, request } from "undici";

const FIELDS = new Set([
  "model",
  "max_tokens",
  "messages",
  "system",
  "stream",
  "tools",
  "tool_choice",
  "mcp_servers",
  "temperature",
  "top_p",
  "top_k",
  "stop_sequences",
  "thinking",
  "metadata",
  "container",
]);

/** Whether any content block, at any depth of `value`, is a URL source. */
const hasUrlSource = (value: unknown): boolean => {
  if (Array.isArray(value)) return value.some(hasUrlSource);
  if (typeof value !== "object" || value === null) return false;
  const source = (value as { source?: { type?: unknown } }).source;
  if (source?.type === "url") return true;
  return Object.values(value).some(hasUrlSource);
};

/** Why the body is refused, if it is. */
const refusal = (body: Record<string, unknown>, model: string, maxTokens: number) => {
  for (const name of Object.keys(body)) if (!FIELDS.has(name)) return `unknown field ${name}`;
  if (body.model !== model) return "model";
  const tokens = body.max_tokens;
  if (typeof tokens !== "number" || !Number.isInteger(tokens) || tokens < 1 || tokens > maxTokens)
    return "max_tokens";
  if (!Array.isArray(body.messages)) return "messages";
  if (body.stream !== undefined && typeof body.stream !== "boolean") return "stream";
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return "tools";
    for (const tool of body.tools as Array<{ type?: unknown }>)
      if (tool.type !== undefined && tool.type !== "custom") return "server tool";
  }
  if (body.mcp_servers !== undefined) return "mcp_servers";
  if (hasUrlSource(body.messages) || hasUrlSource(body.system)) return "url source";
  return undefined;
};

/** The usage a streamed answer's events carry, added up as they pass. */
const usageReader = () => {
  let rest = "";
  const usage = { input: 0, output: 0 };
  return {
    usage,
    chunk: (chunk: Buffer) => {
      const lines = (rest + chunk.toString("utf8")).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) {
        if (!line.startsWith("data: ") || !line.includes('"usage"')) continue;
        const event = JSON.parse(line.slice(6)) as {
          type: string;
          message?: { usage?: { input_tokens?: number } };
          usage?: { output_tokens?: number };
        };
        if (event.type === "message_start") usage.input += event.message?.usage?.input_tokens ?? 0;
        else if (event.type === "message_delta") usage.output = event.usage?.output_tokens ?? 0;
      }
    },
  };
};

/** Both floors' request upstream: `body` sent to `target` with the server's key. */
export const upstreamRequest = (
  agent: Agent,
  target: string,
  serverKey: string,
  body: string | Buffer,
) =>
  request(target, {
    method: "POST",
    dispatcher: agent,
    headers: {
      "content-type": "application/json",
      "anthropic-version": "2023-06-01",
      "x-api-key": serverKey,
    },
    body,
  });

/** The pass-through with a proxy's checks by hand, for `token`'s user, forwarding to `upstream`. */
export const byHandListener = (
  upstream: string,
  settings: {
    readonly token: string;
    readonly serverKey: string;
    readonly model: string;
    readonly maxTokens: number;
    readonly callsPerMinute: number;
  },
) => {
  const agent = new Agent();
  const target = `${upstream}/v1/messages`;
  const calls = new Map<string, { minute: number; count: number }>();
  const refuse = (res: ServerResponse, status: number, why: string) =>
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ why }));
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers.authorization !== `Bearer ${settings.token}`) {
      req.resume();
      refuse(res, 401, "token");
      return;
    }
    const user = "bench";
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      } catch {
        refuse(res, 400, "json");
        return;
      }
      const why = refusal(body, settings.model, settings.maxTokens);
      if (why !== undefined) return refuse(res, 422, why);
      const minute = Math.floor(Date.now() / 60_000);
      const count = calls.get(user);
      if (count === undefined || count.minute !== minute) calls.set(user, { minute, count: 1 });
      else if (++count.count > settings.callsPerMinute) return refuse(res, 429, "limit");
      const userId = createHmac("sha256", settings.serverKey).update(user).digest("hex");
      upstreamRequest(
        agent,
        target,
        settings.serverKey,
        JSON.stringify({ ...body, metadata: { user_id: userId } }),
      ).then(
        (answer) => {
          const type = answer.headers["content-type"];
          res.writeHead(answer.statusCode, type === undefined ? {} : { "content-type": type });
          if (body.stream === true) {
            const reader = usageReader();
            answer.body.on("data", reader.chunk);
          }
          answer.body.pipe(res);
        },
        () => res.writeHead(502).end(),
      );
    });
  };
};
