/**
 * The `elyra-assistant` command as npx runs it: bin/elyra-assistant.mjs in a
 * child process (tsx loading the sources), its exit codes and what it writes.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { SOURCE_NODE_ARGS } from "../fixtures/sourceNode.ts";

const root = join(import.meta.dirname, "..", "..");
const bin = join(root, "bin", "elyra-assistant.mjs");

const run = (args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [...SOURCE_NODE_ARGS, bin, ...args],
      { cwd: root },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr });
      },
    );
  });

describe.concurrent("elyra-assistant", () => {
  it("--help lists the commands on stdout, exit 0", async () => {
    const { code, stdout, stderr } = await run(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: elyra-assistant <command> \[arguments\]\n/);
    expect(stdout).toMatch(/^ {2}mcp <app module> +Serve the app's MCP grant over stdio/m);
    expect(stderr).toBe("");
  });

  it("an unknown command: exit 2, named on stderr with the help", async () => {
    const { code, stdout, stderr } = await run(["frobnicate"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^elyra-assistant: unknown command "frobnicate"\n\nUsage:/);
  });

  it("no command: exit 2, the help on stderr", async () => {
    const { code, stderr } = await run([]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^Usage: elyra-assistant/);
  });

  it("mcp without a module: exit 2 with its usage", async () => {
    const { code, stderr } = await run(["mcp"]);
    expect(code).toBe(2);
    expect(stderr).toBe("Usage: elyra-assistant mcp <app module>\n");
  });

  it("mcp with a module that isn't an app: exit 1, saying so", async () => {
    const { code, stdout, stderr } = await run(["mcp", "spec/cli/fixtures/notAnApp.ts"]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      "elyra-assistant mcp: spec/cli/fixtures/notAnApp.ts: its default export is an object that isn't an app, not an App made by createApp\n",
    );
  });

  it("mcp with a module that doesn't exist, or an app with no MCP grant: exit 1", async () => {
    const missing = await run(["mcp", "spec/cli/fixtures/nowhere.ts"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      "elyra-assistant mcp: spec/cli/fixtures/nowhere.ts: no such file\n",
    );
    const ungranted = await run(["mcp", "spec/cli/fixtures/noMcpGrant.ts"]);
    expect(ungranted.code).toBe(1);
    expect(ungranted.stderr).toMatch(
      /has no MCP grant: give createApp an `mcp: \{ allow: \[\.\.\.\] \}`/,
    );
  });

  it("mcp serves an app module over stdio, stdout carrying the protocol alone", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...SOURCE_NODE_ARGS, bin, "mcp", "spec/cli/fixtures/mcpApp.ts"],
      cwd: root,
      env: getDefaultEnvironment(),
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: "cli-spec", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(["hello"]);
      const result = await client.callTool({ name: "hello", arguments: { name: "Ada" } });
      expect(result.content).toEqual([{ type: "text", text: '"Hello, Ada!"' }]);
    } finally {
      await client.close();
    }
    expect(stderr).toContain("loading the app module");
  });
});
