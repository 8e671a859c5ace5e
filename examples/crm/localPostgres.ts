/**
 * A throwaway PostgreSQL 15 cluster, for `npm run cluster` and the specs:
 * Debian's binaries, a fresh data directory in a temp dir, on a free loopback
 * port, trust authentication, nothing synced to disk; stopped
 * (`pg_ctl stop -m immediate`) and removed by `stop`. PostgreSQL refuses to
 * run as root, so as root the binaries run as the `postgres` user
 * (`runuser`), which owns the temp dir. `postgresMissing` says why it cannot
 * run here, and {@link POSTGRES_INSTALL} is the line that installs it.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, chown, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Where the binaries are: Debian's PostgreSQL 15 unless `ELYRA_POSTGRES_BIN` says otherwise. */
export const POSTGRES_BIN = process.env.ELYRA_POSTGRES_BIN ?? "/usr/lib/postgresql/15/bin";

/** The line that installs them (as root, on Debian or Ubuntu). */
export const POSTGRES_INSTALL = "apt-get update && apt-get install -y postgresql";

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

/** Why {@link startPostgres} cannot run here, or null when it can. */
export const postgresMissing: string | null =
  missing.length > 0
    ? `no ${missing.join(", ")} in ${POSTGRES_BIN}`
    : asRoot && postgresUser === null
      ? "running as root and there is no postgres user to run PostgreSQL as"
      : null;

/** A running cluster: its port, the URL of its `postgres` database as the `postgres` role, and `stop`. */
export interface PostgresServer {
  readonly port: number;
  readonly url: string;
  /** The URL of another database or role of this cluster. */
  readonly urlOf: (database: string, user?: string) => string;
  /** Stops the cluster at once (no shutdown checkpoint) and removes its directory. */
  readonly stop: () => Promise<void>;
}

/** A loopback port nothing listens on right now (the OS picks it). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address !== null
          ? resolve(address.port)
          : reject(new Error("no port")),
      );
    });
  });

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

/** Settings for a cluster nobody keeps: fast, and gone with its directory. */
const throwawaySettings = (dir: string, port: number) => `
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
 * second on an idle machine. pg_ctl starts the server in a session of its
 * own, so a Ctrl-C at the terminal does not reach it: call `stop`.
 *
 * @example
 * ```ts
 * const server = await startPostgres();
 * const store = postgresStore(server.url);
 * // …
 * await store.close();
 * await server.stop();
 * ```
 */
export const startPostgres = async (): Promise<PostgresServer> => {
  if (postgresMissing !== null) {
    throw new Error(
      `cannot start PostgreSQL: ${postgresMissing}; install it with: ${POSTGRES_INSTALL}`,
    );
  }
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
    await appendFile(join(data, "postgresql.conf"), throwawaySettings(dir, port));
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
