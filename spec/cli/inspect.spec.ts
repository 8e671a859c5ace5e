/**
 * `inspect`: the example CRM's grants as a reviewer reads them, the counts
 * for a grant mixing read, write and confirmed abilities, and the command's
 * exit codes on modules that are not apps.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp, defineCommand } from "elyra-assistant";
import { describe, expect, it } from "vitest";
import { crmApp } from "../../examples/crm/app.ts";
import { openCrmDb } from "../../examples/crm/db.ts";
import { formatInspect, inspectApp, inspectCommand } from "../../src/cli/inspect.ts";

const command = (name: string, can: string | undefined, live = false) =>
  defineCommand({
    name,
    description: `${name}.`,
    ...(can === undefined ? {} : { can }),
    live,
    args: {},
    run: () => null,
  });

const mixedApp = () =>
  createApp({
    commands: [
      command("notes_list", "notes.view", true),
      command("notes_show", "notes.view", true),
      command("notes_create", "notes.create"),
      command("notes_update", "notes.update"),
      command("notes_destroy", "notes.destroy"),
      // live, yet asked first: confirmation wins over live
      command("notes_export", "notes.export", true),
      command("tags_create", "tags.create"),
      command("billing_charge", "billing.charge"),
      command("no_ability", undefined),
    ],
    userAbilities: () => ["*"],
    assistant: { allow: ["notes.*", "tags.*"], confirm: ["notes.destroy", "notes.export"] },
    mcp: { allow: ["notes.view", "billing.*"], confirm: ["billing.*"] },
  });

const io = () => {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      stdout: (s: string) => out.push(s),
      stderr: (s: string) => err.push(s),
      cwd: process.cwd(),
    },
  };
};

describe("inspectApp", () => {
  it("prints the example CRM's grants", () => {
    const db = openCrmDb(":memory:", { seed: false });
    try {
      expect(formatInspect(inspectApp(crmApp(db)))).toMatchInlineSnapshot(`
        "Assistant grant (allow: customers.*, invoices.*; confirm: customers.destroy, invoices.destroy, invoices.create)
          asks first
            customers_destroy  customers.destroy
            invoices_destroy   invoices.destroy
            invoices_store     invoices.create
          read-only
            customers_index    customers.view
            customers_show     customers.view
            invoices_index     invoices.view
            invoices_show      invoices.view
          runs without asking
            customers_store    customers.create
            customers_update   customers.update
            invoices_update    invoices.update
          3 tools run without asking

        MCP grant (allow: customers.*, invoices.*; confirm: customers.destroy, invoices.destroy, invoices.create)
          asks first
            customers_destroy  customers.destroy
            invoices_destroy   invoices.destroy
            invoices_store     invoices.create
          read-only
            customers_index    customers.view
            customers_show     customers.view
            invoices_index     invoices.view
            invoices_show      invoices.view
          runs without asking
            customers_store    customers.create
            customers_update   customers.update
            invoices_update    invoices.update
          3 tools run without asking
        "
      `);
    } finally {
      db.close();
    }
  });

  it("counts read-only, asks-first and runs-without-asking tools per grant", () => {
    const report = inspectApp(mixedApp());
    expect(report.assistant?.counts).toEqual({ asksFirst: 2, readOnly: 2, runsWithoutAsking: 3 });
    expect(report.assistant?.tools.map((t) => [t.name, t.kind])).toEqual([
      ["notes_create", "runs-without-asking"],
      ["notes_destroy", "asks-first"],
      ["notes_export", "asks-first"],
      ["notes_list", "read-only"],
      ["notes_show", "read-only"],
      ["notes_update", "runs-without-asking"],
      ["tags_create", "runs-without-asking"],
    ]);
    expect(report.mcp?.counts).toEqual({ asksFirst: 1, readOnly: 2, runsWithoutAsking: 0 });
    const text = formatInspect(report);
    expect(text).toContain("  3 tools run without asking");
    expect(text).toContain("  0 tools run without asking");
    expect(text).not.toContain("no_ability");
  });

  it("says when an app has no grant, and uses the singular for one tool", () => {
    const app = createApp({
      commands: [command("a_write", "a.write")],
      userAbilities: () => [],
      assistant: { allow: ["a.*"] },
    });
    const text = formatInspect(inspectApp(app));
    expect(text).toContain("1 tool runs without asking");
    expect(text).toContain("MCP: no grant");
    expect(inspectApp(app).mcp).toBeNull();
  });
});

describe("inspectCommand", () => {
  const dir = mkdtempSync(join(tmpdir(), "inspect-"));
  const module = (name: string, source: string) => {
    const path = join(dir, name);
    writeFileSync(path, source);
    return path;
  };

  it("prints a stable JSON with --json", async () => {
    const path = module(
      "app.mjs",
      `export const app = { commands: new Map(), userAbilities: () => [], assistant: undefined, mcp: undefined };`,
    );
    const t = io();
    expect(await inspectCommand([path, "--json"], t.io)).toBe(0);
    expect(JSON.parse(t.out.join(""))).toEqual({ version: 1, assistant: null, mcp: null });
  });

  it("exits 1 with a sentence when the module exports no app", async () => {
    const t = io();
    const factory = module("factory.mjs", "export const app = () => ({});");
    expect(await inspectCommand([factory], t.io)).toBe(1);
    expect(t.err.join("")).toContain("is a function (call it to make the app, then export that)");
    const none = module("none.mjs", "export const other = 1;");
    expect(await inspectCommand([none], t.io)).toBe(1);
    expect(t.err.join("")).toContain("has no default or `app` export");
    expect(await inspectCommand([join(dir, "missing.mjs")], t.io)).toBe(1);
    expect(t.err.join("")).toContain("missing.mjs: no such file");
    const broken = module("broken.mjs", "throw new Error('boom');");
    expect(await inspectCommand([broken], t.io)).toBe(1);
    expect(t.err.join("")).toContain("could not be loaded: boom");
  });

  it("exits 2 on a usage error", async () => {
    const t = io();
    expect(await inspectCommand([], t.io)).toBe(2);
    expect(await inspectCommand(["a.ts", "b.ts"], t.io)).toBe(2);
    expect(await inspectCommand(["a.ts", "--yaml"], t.io)).toBe(2);
    expect(t.out).toEqual([]);
  });
});
