/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`,
 * pinned in spec/mcp/tools/package.json, run on the Node 22 it needs from the
 * `node` package there) against `npm run -s mcp -- --http 0`, the example
 * CRM over Streamable HTTP on loopback. Every scenario that applies to this
 * server passes; the others need the suite's reference test tools,
 * resources or prompts, or a capability the server does not declare
 * (docs/mcp.md §8 says which and why). The tools are installed from their
 * own lockfile when missing, as the package check installs its own; the
 * spec skips, saying why, only when they cannot be.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const TOOLS = join(import.meta.dirname, "tools");
const NODE22 = join(TOOLS, "node_modules", "node", "bin", "node");
const SUITE = join(
  TOOLS,
  "node_modules",
  "@modelcontextprotocol",
  "conformance",
  "dist",
  "index.js",
);

/** The server scenarios that apply to this server, each run on its own. */
const APPLY = [
  "server-initialize",
  "ping",
  "tools-list",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
] as const;

/** Every other scenario of the pinned suite (active and pending), with why it doesn't apply. */
const ELSEWHERE: Readonly<Record<string, string>> = {
  "logging-set-level": "the server declares no logging capability",
  "completion-complete": "no prompts or resource templates, so no completions capability",
  "tools-call-simple-text": "the suite's reference tool test_simple_text",
  "tools-call-image": "the suite's reference tool test_image_content",
  "tools-call-audio": "the suite's reference tool test_audio_content",
  "tools-call-embedded-resource": "the suite's reference tool test_embedded_resource",
  "tools-call-mixed-content": "the suite's reference tool test_multiple_content_types",
  "tools-call-with-logging": "the suite's reference tool test_tool_with_logging, and logging",
  "tools-call-error": "the suite's reference tool test_error_handling",
  "tools-call-with-progress": "the suite's reference tool test_tool_with_progress",
  "tools-call-sampling": "the suite's reference tool test_sampling",
  "tools-call-elicitation": "the suite's reference tool test_elicitation",
  "elicitation-sep1034-defaults": "the suite's reference tool test_elicitation_sep1034_defaults",
  "elicitation-sep1330-enums": "the suite's reference tool test_elicitation_sep1330_enums",
  "json-schema-2020-12": "the suite's reference tool json_schema_2020_12_tool",
  "server-sse-polling": "the suite's reference tool test_reconnection",
  "resources-list": "the server has no resources",
  "resources-read-text": "the server has no resources",
  "resources-read-binary": "the server has no resources",
  "resources-templates-read": "the server has no resources",
  "resources-subscribe": "the server has no resources",
  "resources-unsubscribe": "the server has no resources",
  "prompts-list": "the server has no prompts",
  "prompts-get-simple": "the server has no prompts",
  "prompts-get-with-args": "the server has no prompts",
  "prompts-get-embedded-resource": "the server has no prompts",
  "prompts-get-with-image": "the server has no prompts",
};

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end (killed after `timeoutMs`); never rejects for a failing one. */
const runTo = (
  command: string,
  args: ReadonlyArray<string>,
  cwd: string,
  timeoutMs: number,
): Promise<Ran> =>
  new Promise((resolve) => {
    const child = spawn(command, [...args], { cwd, env: withoutNpm(), stdio: "pipe" });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: `${stderr}${error.message}` });
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });

/** This environment without npm's own variables, which carry the outer npm's settings. */
const withoutNpm = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!/^npm_/i.test(name) && name !== "INIT_CWD") env[name] = value;
  return { ...env, ...extra };
};

/** Why the suite can't run here, or undefined once it can: installed now if missing. */
const install = async (): Promise<string | undefined> => {
  if (existsSync(NODE22) && existsSync(SUITE)) return undefined;
  const ran = await runTo(
    "npm",
    ["ci", "--no-audit", "--no-fund", "--loglevel=error"],
    TOOLS,
    240_000,
  );
  if (ran.code === 0 && existsSync(NODE22) && existsSync(SUITE)) return undefined;
  return `the conformance suite could not be installed in spec/mcp/tools (npm ci exited ${ran.code}): ${ran.stderr.trim().slice(0, 500)}`;
};

const dataDir = mkdtempSync(join(tmpdir(), "elyra-mcp-conformance-"));
const results = mkdtempSync(join(tmpdir(), "elyra-mcp-conformance-results-"));
let unavailable: string | undefined;
let server: ChildProcess | undefined;
let url = "";

/** Starts `npm run -s mcp -- --http 0` in a process group of its own; resolves with its URL. */
const start = (): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "-s", "mcp", "--", "--http", "0"], {
      cwd: root,
      env: withoutNpm({ CRM_DATA_DIR: dataDir }),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    server = child;
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(
      () => reject(new Error(`the server printed no URL in 30 s\n${stdout}\n${stderr}`)),
      30_000,
    );
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk;
      const found = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(stdout);
      if (found !== null) {
        clearTimeout(timer);
        resolve(found[0]);
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk;
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited ${code}\n${stdout}\n${stderr}`));
    });
  });

/** Runs the suite's command on Node 22. */
const suite = (args: ReadonlyArray<string>): Promise<Ran> =>
  runTo(NODE22, [SUITE, ...args], TOOLS, 60_000);

interface Check {
  readonly id: string;
  readonly status: string;
  readonly errorMessage?: string;
}

/** The checks one scenario's run wrote (results/server-<scenario>-<time>/checks.json). */
const checksOf = (scenario: string): ReadonlyArray<Check> => {
  const dir = readdirSync(results).find((name) => name.startsWith(`server-${scenario}-`));
  if (dir === undefined) return [];
  return JSON.parse(readFileSync(join(results, dir, "checks.json"), "utf8")) as Check[];
};

beforeAll(async () => {
  unavailable = await install();
  if (unavailable === undefined) url = await start();
}, 300_000);

afterAll(async () => {
  const child = server;
  if (child?.pid !== undefined && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    process.kill(-child.pid, "SIGTERM");
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(results, { recursive: true, force: true });
});

describe("the MCP conformance suite against npm run mcp -- --http", () => {
  it("lists exactly the scenarios docs/mcp.md accounts for", async (ctx) => {
    if (unavailable !== undefined) ctx.skip(unavailable);
    const listed = await suite(["list", "--server"]);
    expect(listed.code, listed.stderr).toBe(0);
    const names = [...listed.stdout.matchAll(/^\s+- ([a-z0-9-]+)/gm)].map((m) => m[1]);
    expect(names.sort()).toEqual([...APPLY, ...Object.keys(ELSEWHERE)].sort());
    const docs = readFileSync(join(root, "docs", "mcp.md"), "utf8");
    for (const name of names) expect(docs, name).toContain(`\`${name}\``);
  });

  it.for(APPLY)("%s passes", async (scenario, ctx) => {
    if (unavailable !== undefined) ctx.skip(unavailable);
    const ran = await suite(["server", "--url", url, "--scenario", scenario, "-o", results]);
    const checks = checksOf(scenario);
    const said = `${ran.stdout}\n${ran.stderr}`;
    expect(checks.length, said).toBeGreaterThan(0);
    expect(
      checks.filter((check) => check.status !== "SUCCESS"),
      said,
    ).toEqual([]);
    expect(ran.code, said).toBe(0);
  });
});
