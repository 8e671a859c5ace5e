/**
 * The servers of bench/proxy.bench.ts, each in a child process of its own
 * so that its CPU is its own: the library's proxy (from dist/), the floor it
 * is measured against, a minimal pass-through (a node:http server forwarding
 * each request to the stand-in with undici's `request()` over a kept-alive
 * agent, no checks, the answer's body piped through as it comes), and that
 * pass-through with a proxy's checks by hand (bench/proxyByHand.ts).
 *
 *   node --import tsx bench/proxyChild.ts --bench-server proxy|pass|byHand <upstream>
 *
 * prints its URL; answers each line `cpu` on stdin with this process's CPU
 * so far (`{"cpuUs": …}`); exits when stdin ends.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface, type Interface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Agent } from "undici";
import { SOURCE_NODE_ARGS } from "../spec/fixtures/sourceNode.ts";
import { byHandListener, upstreamRequest } from "./proxyByHand.ts";

/** Which server a child serves. */
export type ServerKind = "proxy" | "pass" | "byHand";

/** The model the proxy allows and the user token it accepts. */
export const MODEL = "claude-bench";
export const TOKEN = "bench-user";
const SERVER_KEY = "bench-server-key";
const MAX_TOKENS = 1024;
/** The proxy's rate limit, high enough never to refuse a bench request. */
const CALLS_PER_MINUTE = 1_000_000;

/**
 * The library's proxy, with checks as an app would set them: the compiled
 * package (dist/, built by the bench), what users install, not the sources
 * under tsx, whose esbuild keepNames names every closure as it is made.
 */
const proxyListener = async (upstream: string) => {
  const { toNodeListener } = (await import(
    "../dist/http.js" as string
  )) as typeof import("elyra-assistant/http");
  const { createProxy } = (await import(
    "../dist/proxy.js" as string
  )) as typeof import("elyra-assistant/proxy");
  return toNodeListener(
    createProxy({
      apiKey: SERVER_KEY,
      authenticate: (req) =>
        req.headers.get("authorization") === `Bearer ${TOKEN}` ? "bench" : undefined,
      models: [MODEL],
      maxTokens: MAX_TOKENS,
      upstream,
      rateLimit: { calls: CALLS_PER_MINUTE, perSeconds: 60 },
    }),
  );
};

/** The floor: the body read, sent upstream with the server's key, the answer piped back. No checks. */
const passListener = (upstream: string) => {
  const agent = new Agent();
  const target = `${upstream}/v1/messages`;
  return (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      upstreamRequest(agent, target, SERVER_KEY, Buffer.concat(chunks)).then(
        (answer) => {
          const type = answer.headers["content-type"];
          res.writeHead(answer.statusCode, type === undefined ? {} : { "content-type": type });
          answer.body.pipe(res);
        },
        () => res.writeHead(502).end(),
      );
    });
  };
};

/** In the child: when this file is the entry point with `--bench-server`, serves and answers `cpu`. */
const serveIfChild = async (): Promise<void> => {
  const entry = process.argv[1];
  const at = process.argv.indexOf("--bench-server");
  if (entry === undefined || pathToFileURL(entry).href !== import.meta.url || at < 0) return;
  const kind = process.argv[at + 1] as ServerKind;
  const upstream = process.argv[at + 2] ?? "";
  const server = createServer(
    kind === "proxy"
      ? await proxyListener(upstream)
      : kind === "byHand"
        ? byHandListener(upstream, {
            token: TOKEN,
            serverKey: SERVER_KEY,
            model: MODEL,
            maxTokens: MAX_TOKENS,
            callsPerMinute: CALLS_PER_MINUTE,
          })
        : passListener(upstream),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
  const lines = createInterface({ input: process.stdin });
  lines.on("line", () => {
    const { user, system } = process.cpuUsage();
    process.stdout.write(`${JSON.stringify({ cpuUs: user + system })}\n`);
  });
  lines.on("close", () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
};
await serveIfChild();

/** A server child, from the bench: its URL, its CPU so far (µs), and how to stop it. */
export interface ServerChild {
  readonly url: string;
  readonly cpuUs: () => Promise<number>;
  readonly stop: () => void;
}

/** Starts a server child of `kind` in front of `upstream`. */
export const startServer = async (kind: ServerKind, upstream: string): Promise<ServerChild> => {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...SOURCE_NODE_ARGS,
      ...(process.env.BENCH_CPU_PROF === undefined
        ? []
        : ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}/${kind}`]),
      fileURLToPath(import.meta.url),
      "--bench-server",
      kind,
      upstream,
    ],
    { cwd: fileURLToPath(new URL("..", import.meta.url)), stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines: Interface = createInterface({
    input: child.stdout as NonNullable<typeof child.stdout>,
  });
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(`the ${kind} server exited (${String(code)})`);
  });
  exited.catch(() => {});
  const line = async () => (await Promise.race([once(lines, "line"), exited]))[0] as string;
  const url = await line();
  return {
    url,
    cpuUs: async () => {
      child.stdin?.write("cpu\n");
      return (JSON.parse(await line()) as { cpuUs: number }).cpuUs;
    },
    stop: () => child.stdin?.end(),
  };
};
