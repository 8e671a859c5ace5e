/**
 * `npm run cluster`: three instances of the example CRM (examples/crm/main.ts,
 * each its own process) behind a round-robin balancer on PORT (3000 unless
 * set). They share the assistant's log in PostgreSQL (DATABASE_URL, or a
 * throwaway cluster this starts when Debian's PostgreSQL 15 is installed), the
 * CRM's data in SQLite (CRM_DATA_DIR/crm.db, WAL mode) and one page token
 * (ASSISTANT_TOKEN, made at random unless set). Ctrl-C stops them all.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningBalancer, startBalancer } from "./balancer.ts";
import {
  POSTGRES_INSTALL,
  type PostgresServer,
  postgresMissing,
  startPostgres,
} from "./localPostgres.ts";
import { whenParentGoes } from "./stopping.ts";

const here = dirname(fileURLToPath(import.meta.url));
/** The repository: the children run from it, so tsx finds tsconfig.json's paths. */
const ROOT = join(here, "..", "..");
const MAIN = join(here, "main.ts");
const INSTANCES = 3;
/** How long an instance may take to print its URL. */
const START_MS = 60_000;
/** How long a failed request waits to be told: the signal that stops the cluster may come in later. */
const SIGNAL_RACE_MS = 250;
/** How long an instance may take to stop before it is killed. */
const STOP_MS = 10_000;

const set = (name: string): string | undefined => {
  const value = process.env[name];
  return value === undefined || value.trim() === "" ? undefined : value;
};

const port = set("PORT") === undefined ? 3000 : Number(process.env.PORT);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`PORT must be a port number, not ${JSON.stringify(process.env.PORT)}`);
  process.exit(1);
}

let databaseUrl = set("DATABASE_URL");
if (databaseUrl === undefined && postgresMissing !== null) {
  console.error(
    `npm run cluster needs PostgreSQL for the assistant's log, and there is none here (${postgresMissing}).\n` +
      `Install it (Debian, Ubuntu) with: ${POSTGRES_INSTALL}\n` +
      "or set DATABASE_URL to a database of yours (postgres://user:password@host:5432/database).",
  );
  process.exit(1);
}
const dataDir = set("CRM_DATA_DIR") ?? join(here, ".data");
const token = set("ASSISTANT_TOKEN") ?? randomBytes(24).toString("base64url");

interface Instance {
  readonly n: number;
  readonly child: ChildProcess;
  /** Resolves with its URL once it has printed it; rejects if it exits first or takes too long. */
  readonly url: Promise<string>;
}

/** Prints what a child writes, each line led by its number. */
const relay = (n: number, stream: NodeJS.ReadableStream | null, to: NodeJS.WriteStream) => {
  let rest = "";
  stream?.on("data", (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split("\n");
    rest = lines.pop() ?? "";
    for (const line of lines) to.write(`[${n}] ${line}\n`);
  });
};

let stopping = false;

const startInstance = (n: number, url: string): Instance => {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: "0",
      INSTANCE: String(n),
      DATABASE_URL: url,
      CRM_DATA_DIR: dataDir,
      ASSISTANT_TOKEN: token,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  relay(n, child.stdout, process.stdout);
  relay(n, child.stderr, process.stderr);
  const started = new Promise<string>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(
      () => reject(new Error(`instance ${n} did not start in ${START_MS / 1000} s`)),
      START_MS,
    );
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      // main.ts prints its URL, its model, then where its log is: all three, and it is up.
      const found = /Elyra CRM: (http:\/\/\S+)[\s\S]*Assistant log: .*\n/.exec(output);
      if (found?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`instance ${n} exited (${signal ?? code}) before it started`));
      if (!stopping) console.error(`[${n}] exited (${signal ?? code})`);
    });
  });
  return { n, child, url: started };
};

/** SIGTERM, then SIGKILL after STOP_MS; resolves once it has exited. */
const stopChild = (child: ChildProcess): Promise<void> => {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), STOP_MS);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
};

let postgres: PostgresServer | undefined;
let balancer: RunningBalancer | undefined;
const instances: Instance[] = [];

const stopAll = async (code: number) => {
  if (stopping) return;
  stopping = true;
  await balancer?.close();
  await Promise.all(instances.map((instance) => stopChild(instance.child)));
  // Only once the instances have closed their connections to it.
  await postgres?.stop();
  if (code === 0) console.log("Elyra CRM cluster stopped.");
  process.exit(code);
};
// A Ctrl-C reaches the instances too (one process group); PostgreSQL runs in
// a session of its own and is stopped here, after them. Every signal is
// heard, not only the first: tsx passes one on and the group gets it too, and
// a second one unheard would end this process before PostgreSQL is stopped.
process.on("SIGINT", () => void stopAll(0));
process.on("SIGTERM", () => void stopAll(0));
// `kill` of `npm run cluster` ends npm's shell, not this process: its end is heard too.
whenParentGoes(() => void stopAll(0));

try {
  if (databaseUrl === undefined) {
    console.log("Starting a throwaway PostgreSQL (removed when the cluster stops)…");
    postgres = await startPostgres();
    // Ctrl-C while it started: stopAll ran before there was a server to stop.
    if (stopping) {
      await postgres.stop();
      process.exit(0);
    }
    databaseUrl = postgres.url;
    console.log(`PostgreSQL: ${postgres.url}`);
  }
  for (let n = 1; n <= INSTANCES; n++) instances.push(startInstance(n, databaseUrl));
  const urls = await Promise.all(instances.map((instance) => instance.url));
  balancer = await startBalancer({
    port,
    targets: urls,
    // On Ctrl-C the instances hear it too and close their open event streams, and
    // this process may read those ends before its own signal: not a failure. So an
    // error is told a moment later, unless the cluster is stopping by then.
    onTargetError: (target, error) => {
      setTimeout(() => {
        if (!stopping) console.error(`balancer: ${target} failed a request: ${error.message}`);
      }, SIGNAL_RACE_MS).unref();
    },
  });
  console.log("");
  console.log(`Elyra CRM cluster: ${balancer.url} (round robin over ${INSTANCES} instances)`);
  urls.forEach((url, i) => {
    console.log(`  instance ${i + 1}: ${url}`);
  });
  console.log(`CRM data: ${join(dataDir, "crm.db")} (SQLite, shared)`);
  console.log("Ctrl-C stops them all.");
} catch (error) {
  console.error(`npm run cluster: ${error instanceof Error ? error.message : String(error)}`);
  await stopAll(1);
}
