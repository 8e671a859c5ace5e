/**
 * MCP tool annotations, as the SDK's own `Client` lists them: derived from
 * the command (live, destructive) and the MCP grant (confirm), overridden by
 * the command's `mcp`, with the title on the tool too.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { Schema } from "effect";
import { type AnyCommand, createApp, defineCommand } from "elyra-assistant";
import { afterEach, describe, expect, it } from "vitest";
import { crmApp } from "../../examples/crm/app.ts";
import { type CrmDb, openCrmDb } from "../../examples/crm/db.ts";
import { spyCommands } from "../fixtures/spyCommands.ts";
import { connect, type Session } from "./connect.ts";

const sessions: Session[] = [];
const dbs: CrmDb[] = [];

afterEach(async () => {
  for (const s of sessions.splice(0)) await s.close();
  for (const db of dbs.splice(0)) db.close();
});

const listed = async (app: Parameters<typeof connect>[0]): Promise<ReadonlyArray<Tool>> => {
  const s = await connect(app);
  sessions.push(s);
  return (await s.client.listTools()).tools;
};

const byName = (tools: ReadonlyArray<Tool>) =>
  Object.fromEntries(tools.map((tool) => [tool.name, { title: tool.title, ...tool.annotations }]));

describe("MCP annotations of the example CRM", () => {
  it("titles each tool in words, marks reads read-only and only deletes destructive, all closed-world", async () => {
    const db = openCrmDb(":memory:", { today: () => "2026-06-15" });
    dbs.push(db);
    const tools = await listed(crmApp(db));

    expect(byName(tools)).toEqual({
      // Its own title where the command declares one; else read from its name.
      customers_destroy: tool("Delete customer", { destructive: true }),
      customers_index: tool("List customers", { readOnly: true }),
      customers_show: tool("Show a customer", { readOnly: true }),
      customers_store: tool("Create a customer", {}),
      customers_update: tool("Update a customer", {}),
      invoices_destroy: tool("Delete invoice", { destructive: true }),
      invoices_index: tool("List invoices", { readOnly: true }),
      invoices_show: tool("Show an invoice", { readOnly: true }),
      // Issuing an invoice only adds: not destructive, though the grant asks a person first.
      invoices_store: tool("Issue invoice", {}),
      invoices_update: tool("Update an invoice", {}),
    });
  });
});

/** The annotations expected of a tool with no override. */
const tool = (title: string, { readOnly = false, destructive = false }) => ({
  title,
  readOnlyHint: readOnly,
  destructiveHint: destructive,
  openWorldHint: false,
});

describe("MCP annotations of the spy app", () => {
  const extra: AnyCommand[] = [
    defineCommand({
      name: "reports_build",
      title: "  Build a report  ",
      description: "Build the monthly report.",
      can: "reports.build",
      args: {},
      run: () => "built",
    }),
    defineCommand({
      name: "search_reindex",
      description: "Rebuild the search index from the database.",
      can: "search.reindex",
      args: {},
      mcp: {
        title: "Rebuild the search index",
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: true,
      },
      run: () => "rebuilt",
    }),
    defineCommand({
      name: "cache_purge",
      description: "Peek at what a purge would drop: changes nothing.",
      can: "cache.purge",
      live: true,
      args: {},
      run: () => [],
    }),
    defineCommand({
      name: "notes_archive",
      description: "Archive a note; it can be brought back.",
      can: "notes.archive",
      destructive: false,
      args: { id: Schema.Number },
      run: ({ id }) => id,
    }),
    defineCommand({
      name: "tags_merge",
      description: "Merge two tags into one.",
      can: "tags.merge",
      destructive: true,
      args: { from: Schema.String, into: Schema.String },
      run: ({ into }) => into,
    }),
    defineCommand({
      name: "exports_run",
      description: "Export everything; read-only, but slow.",
      can: "exports.run",
      mcp: { readOnlyHint: true },
      args: {},
      run: () => "exported",
    }),
  ];
  const spyApp = (confirm: string[]) =>
    createApp({
      commands: [...spyCommands().commands, ...extra],
      userAbilities: () => [],
      mcp: { allow: ["*"], confirm },
    });

  it("derives each hint from the command and the grant", async () => {
    const tools = byName(await listed(spyApp(["invoices.create", "notes.*", "search.*"])));
    expect(tools).toMatchObject({
      customers_show: tool("Show a customer", { readOnly: true }),
      invoices_index: tool("List invoices", { readOnly: true }),
      // A delete by its verb, with no confirmation in the grant.
      customers_delete: tool("Delete a customer", { destructive: true }),
      customers_update: tool("Update a customer", {}),
      // A name that is not a resource and a verb: its words.
      admin_reindex: tool("Admin reindex", {}),
      // Confirmed by the grant, but it only adds.
      invoices_create: tool("Create an invoice", {}),
      // Declared not destructive; the grant confirms it, which asks, and does not make it so.
      notes_archive: tool("Notes archive", {}),
      // Destructive by its declaration, not confirmed.
      tags_merge: tool("Tags merge", { destructive: true }),
      // Read-only wins over a destructive verb: it says nothing destructive.
      cache_purge: tool("Cache purge", { readOnly: true }),
      reports_build: tool("Build a report", {}),
      exports_run: tool("Exports run", { readOnly: true }),
    });
    expect(tools.customers_show).not.toHaveProperty("idempotentHint");
  });

  it("a command's mcp overrides win over what is derived", async () => {
    const tools = byName(await listed(spyApp(["search.*"])));
    expect(tools.search_reindex).toEqual({
      title: "Rebuild the search index",
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
  });

  it("a tool the grant confirms says what it is, and is asked all the same", async () => {
    const confirmed = byName(await listed(spyApp(["invoices.create"])));
    const unconfirmed = byName(await listed(spyApp([])));
    expect(confirmed.invoices_create?.destructiveHint).toBe(false);
    expect(unconfirmed.invoices_create?.destructiveHint).toBe(false);
    expect(confirmed.customers_delete?.destructiveHint).toBe(true);
    expect(unconfirmed.customers_delete?.destructiveHint).toBe(true);

    // Its hint is not the rule: the person at the client is asked before it runs.
    const s = await connect(spyApp(["invoices.create"]), {
      answer: () => ({ action: "decline" }),
    });
    sessions.push(s);
    const result = await s.call("invoices_create", {
      customerId: 1,
      amount: 10,
      address: { street: "1 Main St", zip: "12345" },
    });
    expect(s.asked).toHaveLength(1);
    expect(result.isError).toBe(true);
  });

  it("the grant's confirm wins: a tool it confirms is never announced read-only", async () => {
    const confirmed = byName(await listed(spyApp(["exports.run", "customers.view"])));
    expect(confirmed.exports_run?.readOnlyHint).toBe(false);
    expect(confirmed.customers_show?.readOnlyHint).toBe(false);
    const unconfirmed = byName(await listed(spyApp([])));
    expect(unconfirmed.exports_run?.readOnlyHint).toBe(true);
  });

  it("hints that contradict what the command is are refused when it is defined", () => {
    const base = { description: "Delete one.", args: {}, run: () => "gone" } as const;
    expect(() =>
      defineCommand({
        ...base,
        name: "things_destroy",
        can: "things.destroy",
        mcp: { destructiveHint: false },
      }),
    ).toThrow(/destructiveHint can't be false for a destructive command/);
    expect(() =>
      defineCommand({
        ...base,
        name: "things_wipe",
        can: "things.wipe",
        destructive: true,
        mcp: { readOnlyHint: true },
      }),
    ).toThrow(/readOnlyHint can't be true for a destructive command/);
    // Not destructive, the same hints are fine.
    expect(
      defineCommand({
        ...base,
        name: "things_note",
        can: "things.note",
        mcp: { destructiveHint: false },
      }).mcp,
    ).toEqual({ destructiveHint: false });
  });

  it("lists the title on the tool itself and in its annotations", async () => {
    const tools = await listed(spyApp([]));
    for (const listedTool of tools) {
      expect(listedTool.title).toEqual(expect.any(String));
      expect(listedTool.title).toBe(listedTool.annotations?.title);
    }
    expect(tools.find((t) => t.name === "reports_build")?.title).toBe("Build a report");
  });
});
