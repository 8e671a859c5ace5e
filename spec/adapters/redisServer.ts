/**
 * Debian's redis-server, started by the specs on loopback on a free port, with
 * nothing written to disk. Without it the Redis specs are reported skipped,
 * with the line that installs it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { connect } from "node:net";
import { freePort } from "../../examples/crm/localPostgres.ts";

export const REDIS_SERVER = process.env.ELYRA_REDIS_SERVER ?? "/usr/bin/redis-server";

const INSTALL = "apt-get update && apt-get install -y redis-server";

/** Whether the Redis specs can run here. */
export const haveRedis = existsSync(REDIS_SERVER);

/** The name a Redis suite runs under, or why it is skipped and how to fix that. */
export const redisSuite = (name: string): string =>
  haveRedis
    ? name
    : `${name} (skipped: no redis-server at ${REDIS_SERVER}; install it with: ${INSTALL})`;

if (!haveRedis)
  console.warn(
    `The Redis specs are skipped: no redis-server at ${REDIS_SERVER}. Install it with: ${INSTALL}`,
  );

/** A running server: its port and URL, and `stop`, which resolves once the process has exited. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  readonly stop: () => Promise<void>;
}

/** A port nothing listens on right now (the OS picks it): one helper, the example's launcher's too. */
export { freePort } from "../../examples/crm/localPostgres.ts";

/** One PING over a bare socket: whether the server answers PONG. */
const pong = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let reply = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      reply += chunk.toString();
      if (reply.includes("\r\n")) done(reply.startsWith("+PONG"));
    });
  });

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()));

/** Starts redis-server on a free loopback port and waits until it answers PING. */
export const startRedis = async (): Promise<RedisServer> => {
  const port = await freePort();
  const child = spawn(
    REDIS_SERVER,
    ["--port", String(port), "--save", "", "--appendonly", "no", "--bind", "127.0.0.1"],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk.toString();
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited(child);
  };
  const deadline = Date.now() + 5_000;
  while (!(await pong(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`redis-server did not answer PING on port ${port}: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { port, url: `redis://127.0.0.1:${port}`, stop };
};
