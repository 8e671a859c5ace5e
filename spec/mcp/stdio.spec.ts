/**
 * The example CRM's MCP server as a client starts it: a child process on
 * stdio (`examples/crm/mcpMain.ts`, a temporary data dir), driven by the
 * SDK's own Client.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOURCE_NODE_ARGS } from "../fixtures/sourceNode.ts";

const root = join(import.meta.dirname, "..", "..");
const dataDir = mkdtempSync(join(tmpdir(), "elyra-mcp-stdio-"));

const start = async (options: { elicit?: (message: string) => ElicitResult } = {}) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...SOURCE_NODE_ARGS, "examples/crm/mcpMain.ts"],
    cwd: root,
    env: { ...getDefaultEnvironment(), CRM_DATA_DIR: dataDir },
    stderr: "pipe",
  });
  const client = new Client(
    { name: "stdio-spec", version: "1.0.0" },
    options.elicit === undefined ? {} : { capabilities: { elicitation: { form: {} } } },
  );
  if (options.elicit !== undefined) {
    const elicit = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, (request) =>
      elicit("message" in request.params ? request.params.message : ""),
    );
  }
  await client.connect(transport);
  return client;
};

const textOf = (result: Awaited<ReturnType<Client["callTool"]>>): string =>
  (result.content as Array<{ type: string; text?: string }>)
    .map((part) => part.text ?? "")
    .join("");

let answer: ElicitResult = { action: "decline" };
const asked: string[] = [];
let client: Client;

beforeAll(async () => {
  client = await start({
    elicit: (message) => {
      asked.push(message);
      return answer;
    },
  });
});

afterAll(async () => {
  await client?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("npm run mcp over stdio, with the SDK's Client", () => {
  it("lists the CRM's mcp grant as tools, with input and output schemas", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      "customers_destroy",
      "customers_index",
      "customers_show",
      "customers_store",
      "customers_update",
      "invoices_destroy",
      "invoices_index",
      "invoices_show",
      "invoices_store",
      "invoices_update",
    ]);
    const show = tools.find((tool) => tool.name === "customers_show");
    expect(show?.description).toMatch(/^Show one customer by id/);
    expect(show?.inputSchema).toMatchObject({
      type: "object",
      properties: { id: { exclusiveMinimum: 0 } },
      required: ["id"],
      additionalProperties: false,
    });
    expect(show?.outputSchema).toMatchObject({
      type: "object",
      properties: { id: { type: "number" }, name: { type: "string" }, email: { type: "string" } },
    });
  });

  it("calls a read tool: the result as JSON text and as structured content", async () => {
    const result = await client.callTool({ name: "customers_show", arguments: { id: 1 } });
    expect(result.isError).toBeUndefined();
    const customer = JSON.parse(textOf(result));
    expect(customer).toMatchObject({ id: 1, name: expect.any(String) });
    expect(result.structuredContent).toEqual(customer);
  });

  it("answers bad arguments with one readable line per issue, nothing run", async () => {
    const result = await client.callTool({
      name: "customers_store",
      arguments: { name: "", email: "nope" },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("name: must not be empty\nemail: must be a valid email");
    const wrongType = await client.callTool({ name: "customers_show", arguments: { id: "x" } });
    expect(textOf(wrongType)).toBe('id: expected number, got "x"');
  });

  it("asks by elicitation before a destroy: declined, it doesn't run", async () => {
    answer = { action: "decline" };
    asked.length = 0;
    const result = await client.callTool({ name: "customers_destroy", arguments: { id: 2 } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("The user didn't confirm customers_destroy, so it did not run.");
    expect(asked).toHaveLength(1);
    // The command's confirmLabel leads: who, and how many invoices go with them.
    expect(asked[0]).toMatch(
      /^Delete \S.* \(customer 2\) and \d+ invoices? of theirs\?\nArguments:\n/,
    );
    expect(asked[0]).toContain('"id": 2');
    const still = await client.callTool({ name: "customers_show", arguments: { id: 2 } });
    expect(still.isError).toBeUndefined();
  });

  it("asks by elicitation before a destroy: accepted, it runs", async () => {
    answer = { action: "accept", content: { confirm: true } };
    asked.length = 0;
    const result = await client.callTool({ name: "customers_destroy", arguments: { id: 2 } });
    expect(result.isError).toBeUndefined();
    expect(asked).toHaveLength(1);
    const gone = await client.callTool({ name: "customers_show", arguments: { id: 2 } });
    expect(gone.isError).toBe(true);
  });

  it("refuses a confirm tool to a client that can't elicit, and runs nothing", async () => {
    const plain = await start();
    try {
      const result = await plain.callTool({ name: "customers_destroy", arguments: { id: 3 } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        "customers_destroy needs the user's confirmation, which this client can't ask for (it does not support elicitation), so it did not run.",
      );
      const still = await plain.callTool({ name: "customers_show", arguments: { id: 3 } });
      expect(still.isError).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});
