/**
 * A PostgreSQL 15 cluster for the specs: Debian's binaries, a fresh data
 * directory in a temp dir, on a free loopback port, trust authentication,
 * nothing synced to disk; stopped (`pg_ctl stop -m immediate`) and removed by
 * `stop`. PostgreSQL refuses to run as root, so as root the binaries run as
 * the `postgres` user (`runuser`), which owns the temp dir. Without the
 * binaries the Postgres specs are reported skipped, with the line that
 * installs them.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./redisServer.ts";

export const POSTGRES_BIN = process.env.ELYRA_POSTGRES_BIN ?? "/usr/lib/postgresql/15/bin";

const INSTALL = "apt-get update && apt-get install -y postgresql";
const BINARIES = ["initdb", "pg_ctl", "postgres"];

const asRoot = process.getuid?.() === 0;
/** As root: the uid and gid of the `postgres` user, or null when there is none. */
const postgresUser = ((): { readonly uid: number; readonly gid: number } | null => {
  if (!asRoot) return null;
  try {
    const id = (flag: string) =>
      Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }));
    return { uid: id("-u"), gid: id("-g") };
  } catch {
    return null;
  }
})();

const missing = BINARIES.filter((binary) => !existsSync(join(POSTGRES_BIN, binary)));
const why =
  missing.length > 0
    ? `no ${missing.join(", ")} in ${POSTGRES_BIN}`
    : asRoot && postgresUser === null
      ? "running as root and there is no postgres user to run PostgreSQL as"
      : null;

/** Whether the Postgres specs can run here. */
export const havePostgres = why === null;

/** The name a Postgres suite runs under, or why it is skipped and how to fix that. */
export const postgresSuite = (name: string): string =>
  why === null ? name : `${name} (skipped: ${why}; install it with: ${INSTALL})`;

if (why !== null)
  console.warn(`The Postgres specs are skipped: ${why}. Install it with: ${INSTALL}`);

/** A running cluster: its port, the URL of its `postgres` database as the `postgres` role, and `stop`. */
export interface PostgresServer {
  readonly port: number;
  readonly url: string;
  /** The URL of another database or role of this cluster. */
  readonly urlOf: (database: string, user?: string) => string;
  /** Stops the cluster at once (no shutdown checkpoint) and removes its directory. */
  readonly stop: () => Promise<void>;
}

/** Runs one of the binaries (as the postgres user when root) and resolves with what it wrote, or rejects with it. */
const run = (binary: string, args: string[], cwd: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const path = join(POSTGRES_BIN, binary);
    const [command, argv] = asRoot
      ? ["runuser", ["-u", "postgres", "--", path, ...args]]
      : [path, args];
    // The cwd is the temp dir: the postgres user may not enter the repository.
    const child = spawn(command, argv, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) =>
      code === 0
        ? resolve(output)
        : reject(new Error(`${binary} ${args.join(" ")} exited ${code}:\n${output}`)),
    );
  });

/** Settings for a cluster that only tests use: fast, and gone with its directory. */
const testSettings = (dir: string, port: number) => `
listen_addresses = '127.0.0.1'
port = ${port}
unix_socket_directories = '${dir}'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
shared_buffers = 32MB
log_min_messages = warning
`;

/**
 * initdb in a fresh temp dir, then `pg_ctl start -w` on a free loopback port
 * (tried again on another port if that one was taken meanwhile). About a
 * second on an idle machine.
 */
export const startPostgres = async (): Promise<PostgresServer> => {
  const dir = await mkdtemp(join(tmpdir(), "elyra-pg-"));
  if (postgresUser !== null) await chown(dir, postgresUser.uid, postgresUser.gid);
  const data = join(dir, "data");
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    await run(
      "initdb",
      ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"],
      dir,
    );
  } catch (error) {
    await remove();
    throw error;
  }
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    // The last setting wins: each attempt appends its own port.
    await appendFile(join(data, "postgresql.conf"), testSettings(dir, port));
    try {
      await run("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-w", "-t", "30", "start"], dir);
    } catch (error) {
      if (attempt < 3) continue;
      await remove();
      throw error;
    }
    const urlOf = (database: string, user = "postgres") =>
      `postgres://${user}@127.0.0.1:${port}/${database}`;
    return {
      port,
      url: urlOf("postgres"),
      urlOf,
      stop: async () => {
        await run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"], dir).catch(() => {});
        await remove();
      },
    };
  }
};
