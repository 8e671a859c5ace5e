/**
 * `npm run -s mcp` as an MCP client starts it (the configuration docs/mcp.md
 * §7 gives): stdout carries the protocol and nothing else. npm writes each
 * script's `> elyra-assistant@… mcp` banner to stdout before the script
 * starts, unless `-s` (`--silent`) is given; §7 says why the repository sets
 * no npm configuration of its own for it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const dataDir = mkdtempSync(join(tmpdir(), "elyra-mcp-npm-"));
const elsewhere = mkdtempSync(join(tmpdir(), "elyra-mcp-npm-cwd-"));

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});

/**
 * This environment without npm's own variables: run under `npm test` or `npx`,
 * they carry the outer npm's settings (a `--silent` would hide the banner).
 */
const cleanEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { CRM_DATA_DIR: dataDir };
  for (const [name, value] of Object.entries(process.env))
    if (!/^npm_/i.test(name) && name !== "CRM_DATA_DIR") env[name] = value;
  return env;
};

interface Session {
  /** Everything written on stdout, as it came. */
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | null;
}

/**
 * Starts `npm <args>`, initializes, lists the tools, then closes stdin (the
 * client going away) and waits for npm to exit.
 */
const session = (args: ReadonlyArray<string>, cwd: string): Promise<Session> =>
  new Promise((resolve, reject) => {
    const child: ChildProcess = spawn("npm", [...args], {
      cwd,
      env: cleanEnv(),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`no answer in 45 s\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, 45_000);
    const send = (message: object) => child.stdin?.write(`${JSON.stringify(message)}\n`);
    const answered = (id: number) =>
      stdout.split("\n").some((line) => line.includes(`"id":${id}`) && line.includes('"result"'));
    let step = 0;
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (step === 0 && answered(1)) {
        step = 1;
        send({ jsonrpc: "2.0", method: "notifications/initialized" });
        send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
      } else if (step === 1 && answered(2)) {
        step = 2;
        child.stdin?.end();
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code });
    });
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: "npm-script-spec", version: "1.0.0" },
      },
    });
  });

/** Every line of stdout, an empty one included, is one JSON-RPC message. */
const expectOnlyProtocol = (stdout: string) => {
  const lines = stdout.endsWith("\n") ? stdout.slice(0, -1).split("\n") : stdout.split("\n");
  expect(lines.length).toBeGreaterThanOrEqual(2);
  for (const line of lines) {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      throw new Error(
        `not JSON-RPC on stdout: ${JSON.stringify(line)}; stdout begins:\n${stdout.slice(0, 300)}`,
      );
    }
    expect(message, line).toMatchObject({ jsonrpc: "2.0" });
  }
};

const resultOf = (stdout: string, id: number): Record<string, unknown> => {
  const line = stdout
    .split("\n")
    .find((l) => l.trim() !== "" && (JSON.parse(l) as { id?: number }).id === id);
  return (JSON.parse(line ?? "{}") as { result?: Record<string, unknown> }).result ?? {};
};

describe("npm run mcp: stdout is the protocol", () => {
  it("from the project: every stdout line is JSON-RPC", async () => {
    const { stdout, stderr, code } = await session(["run", "-s", "mcp"], root);
    expectOnlyProtocol(stdout);
    expect(resultOf(stdout, 1)).toMatchObject({ serverInfo: { name: "elyra-crm" } });
    expect(resultOf(stdout, 2).tools).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "customers_index" })]),
    );
    // What the server says for a person goes to stderr.
    expect(stderr).toContain("Elyra CRM over MCP on stdio");
    expect(code).toBe(0);
  }, 60_000);

  it("started elsewhere with --prefix, as a client's config gives it", async () => {
    const { stdout, code } = await session(["--prefix", root, "run", "-s", "mcp"], elsewhere);
    expectOnlyProtocol(stdout);
    expect(resultOf(stdout, 1)).toMatchObject({ serverInfo: { name: "elyra-crm" } });
    expect(code).toBe(0);
  }, 60_000);
});
