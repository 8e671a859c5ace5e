/**
 * Every optional peer installed: each entry point imports and works on
 * Node 20 and on Node 22 (better-sqlite3 rebuilt for 22 from the headers
 * its package ships), a `.ts` app loads through tsx on Node 20, and the
 * CLI's `mcp` serves an app over stdio to the SDK's own client.
 */
import { cpSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { beforeAll, describe, expect, inject, it } from "vitest";
import pkg from "../../package.json" with { type: "json" };
import {
  cleanEnv,
  figure,
  installed,
  makeProject,
  megabytes,
  NODE22_DIR,
  NODE22_HEADERS,
  npmInstall,
  OPTIONAL_PEERS,
  run,
  spawned,
} from "./project.ts";

const tarball = inject("tarball");
const work = inject("work");
/** The peers the entry points load (OPTIONAL_PEERS) and tsx, each at the range package.json names. */
const PEERS = [...Object.values(OPTIONAL_PEERS), "tsx"].map(
  (name) => `${name}@${(pkg.peerDependencies as Readonly<Record<string, string>>)[name]}`,
);
const FIXTURES = ["crm.mjs", "sdkTurn.mjs", "subpaths.mjs", "app.ts"];

let full: string;
let full22: string;

beforeAll(async () => {
  full = makeProject(work, "full", FIXTURES);
  const ran = await npmInstall(full, [tarball, "effect@3", ...PEERS]);
  const { packages, bytes } = installed(full);
  figure(
    "all peers: installed",
    `${packages} packages, ${megabytes(bytes)}, ${(ran.ms / 1000).toFixed(1)} s (better-sqlite3 built from source)`,
  );
  // The same project for Node 22: its native addon built against Node 22's ABI.
  full22 = join(work, "full-node22");
  cpSync(full, full22, { recursive: true });
  await run("npm", ["rebuild", "better-sqlite3"], {
    cwd: full22,
    env: cleanEnv({ npm_config_nodedir: NODE22_HEADERS }, [NODE22_DIR]),
  });
});

describe.each([
  ["Node 20", () => full, cleanEnv()],
  ["Node 22", () => full22, cleanEnv({}, [NODE22_DIR])],
])("every peer installed, on %s", (_, dir, env) => {
  it("imports every entry point", async () => {
    const ran = await spawned("node", ["subpaths.mjs"], { cwd: dir(), env });
    expect(ran.code).toBe(0);
    const results = JSON.parse(ran.stdout) as Record<string, { exports?: number; error?: string }>;
    expect(Object.keys(results)).toHaveLength(Object.keys(pkg.exports).length - 1);
    for (const [entry, result] of Object.entries(results)) {
      expect(result, entry).toEqual({ exports: expect.any(Number) });
    }
  });

  it("runs a turn through the real SDK against the stand-in, logged in SQLite", async () => {
    const ran = await spawned("node", ["sdkTurn.mjs", "sqlite"], { cwd: dir(), env });
    expect(ran.stderr).toBe("");
    expect(JSON.parse(ran.stdout)).toMatchObject({ store: "sqlite", end: "Answered", requests: 2 });
  });
});

describe("the CLI with its peers", () => {
  const bin = () => join(full, "node_modules", "elyra-assistant", "bin", "elyra-assistant.mjs");

  it("loads a .ts app through tsx on Node 20", async () => {
    const ran = await spawned("node", [bin(), "inspect", "app.ts"], { cwd: full, env: cleanEnv() });
    expect(ran.stderr).toBe("");
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/MCP grant \(allow: customers\.view; confirm: none\)/);
  });

  it("mcp serves an app over stdio to the SDK's client", async () => {
    const transport = new StdioClientTransport({
      command: "node",
      args: [bin(), "mcp", "crm.mjs"],
      cwd: full,
      env: cleanEnv(),
      stderr: "pipe",
    });
    const client = new Client({ name: "package-check", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["customers_show"]);
      const result = await client.callTool({ name: "customers_show", arguments: { id: 42 } });
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.content)).toMatch(/Ada Lovelace/);
    } finally {
      await client.close();
    }
  });
});
