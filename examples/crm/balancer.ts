/**
 * A tiny round-robin HTTP balancer on `node:http`, for `npm run cluster`:
 * each request goes to the next target in turn, streamed both ways (the
 * request body piped up, the response piped down as it comes, so an event
 * stream flows event by event), with the hop-by-hop headers dropped. A target
 * that does not answer (refused, reset before its head) makes a 502 for that
 * request alone; the next request goes to the next target. No retries, no
 * health checks, no sticky sessions, no WebSocket upgrades: enough to watch
 * several instances share one assistant log, not a production balancer.
 */
import {
  Agent,
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  request,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";

export interface BalancerOptions {
  /** The port to listen on; 0 (the default) takes a free one. */
  readonly port?: number;
  /** The address to listen on: 127.0.0.1 unless given. */
  readonly hostname?: string;
  /** The instances' base URLs (`http://localhost:4101`), taken in turn. */
  readonly targets: ReadonlyArray<string>;
  /** Told when a target fails a request (answered 502, or cut mid-response): nothing unless given. */
  readonly onTargetError?: (target: string, error: Error) => void;
}

export interface RunningBalancer {
  /** `http://localhost:<port>`. */
  readonly url: string;
  readonly port: number;
  /** Stops listening and cuts every open connection, both sides. */
  readonly close: () => Promise<void>;
}

/** Headers about one connection, not the message (RFC 9110 §7.6.1), never forwarded. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** The end-to-end headers: without the hop-by-hop ones, nor those `Connection` names. */
export const endToEnd = (headers: IncomingHttpHeaders): OutgoingHttpHeaders => {
  const named = new Set(
    String(headers.connection ?? "")
      .split(",")
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== ""),
  );
  const kept: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name) && !named.has(name)) kept[name] = value;
  }
  return kept;
};

/**
 * Starts the balancer.
 *
 * @example
 * ```ts
 * const balancer = await startBalancer({
 *   port: 3000,
 *   targets: ["http://localhost:4101", "http://localhost:4102"],
 * });
 * console.log(balancer.url); // http://localhost:3000
 * await balancer.close();
 * ```
 */
export const startBalancer = async (options: BalancerOptions): Promise<RunningBalancer> => {
  if (options.targets.length === 0) throw new Error("startBalancer: give at least one target");
  const targets = options.targets.map((target) => new URL(target));
  // Connections to the instances are kept open between requests.
  const agent = new Agent({ keepAlive: true });
  let turn = 0;

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const target = targets[turn % targets.length] as URL;
    turn++;
    let clientGone = false;
    const failed = (error: Error) => {
      // An upstream request cut because its client went is no fault of the target.
      if (clientGone) return;
      options.onTargetError?.(target.origin, error);
      if (res.headersSent) {
        // Mid-response: the client sees the response cut, as the instance cut it.
        res.destroy();
        return;
      }
      const body = `Bad gateway: ${target.origin} did not answer (${error.message})\n`;
      res.writeHead(502, {
        "content-type": "text/plain; charset=utf-8",
        "content-length": Buffer.byteLength(body),
        "cache-control": "no-store",
      });
      res.end(req.method === "HEAD" ? undefined : body);
    };

    const forwardedFor = [req.headers["x-forwarded-for"], req.socket.remoteAddress]
      .filter((part) => part !== undefined)
      .join(", ");
    const upstream = request({
      agent,
      protocol: target.protocol,
      hostname: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: {
        ...endToEnd(req.headers),
        "x-forwarded-for": forwardedFor,
        "x-forwarded-proto": "http",
        ...(req.headers.host === undefined ? {} : { "x-forwarded-host": req.headers.host }),
      },
    });
    upstream.once("response", (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
      // The head goes at once: an event stream's client learns it is open before its first event.
      res.flushHeaders();
      answer.pipe(res);
      answer.on("error", failed);
      answer.once("close", () => {
        if (!answer.complete) res.destroy();
      });
    });
    // `on`, not `once`: a second error with no listener would crash the balancer.
    upstream.on("error", failed);
    // The client went (an event stream closed, a fetch aborted): so does the request upstream.
    const gone = () => {
      if (res.writableFinished) return;
      clientGone = true;
      upstream.destroy();
    };
    res.once("close", gone);
    req.on("error", gone);
    req.pipe(upstream);
  };

  const server = createServer(forward);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.hostname ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    url: `http://localhost:${port}`,
    port,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      });
      return closing;
    },
  };
};
