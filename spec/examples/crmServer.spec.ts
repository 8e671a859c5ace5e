/**
 * startCrm in the test's own process: a given model and an in-memory
 * database, the routes it serves and what it refuses, and a clean close.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fakeModel } from "elyra-assistant/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningCrm, startCrm } from "../../examples/crm/server.ts";

let crm: RunningCrm;

beforeAll(async () => {
  crm = await startCrm({ dbPath: ":memory:", model: fakeModel().says("Hello.") });
}, 30_000);

afterAll(() => crm.close());

describe("startCrm", () => {
  it("makes a data folder that does not exist yet, as on a fresh clone", async () => {
    const parent = mkdtempSync(join(tmpdir(), "elyra-crm-fresh-"));
    const dataDir = join(parent, "not", "there", "yet");
    try {
      const fresh = await startCrm({ dataDir, model: fakeModel().says("Hello.") });
      await fresh.close();
      expect(existsSync(join(dataDir, "assistant.db"))).toBe(true);
      expect(existsSync(join(dataDir, "crm.db"))).toBe(true);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it("takes a free port and serves the page, without a notice for a model it is given", async () => {
    expect(crm.port).toBeGreaterThan(0);
    expect(crm.url).toBe(`http://localhost:${crm.port}`);
    const page = await fetch(`${crm.url}/`);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain("<elyra-assistant-panel></elyra-assistant-panel>");
  });

  it("serves the page at the app's own paths too, and nothing else", async () => {
    expect((await fetch(`${crm.url}/customers/42`)).status).toBe(200);
    expect((await fetch(`${crm.url}/invoices`)).status).toBe(200);
    expect((await fetch(`${crm.url}/etc/passwd`)).status).toBe(404);
    expect((await fetch(`${crm.url}/`, { method: "POST" })).status).toBe(405);
    expect((await fetch(`${crm.url}/favicon.ico`)).status).toBe(204);
  });

  it("answers through the assistant's routes with the given model", async () => {
    const html = await (await fetch(`${crm.url}/`)).text();
    const token = /name="elyra-token" content="([^"]+)"/.exec(html)?.[1] as string;
    const response = await fetch(`${crm.url}/__assistant/tools`, {
      method: "POST",
      headers: { "x-elyra-token": token, "x-elyra-client": "server-spec" },
    });
    expect(response.status).toBe(200);
    const { tools } = (await response.json()) as {
      tools: ReadonlyArray<{ name: string; asksFirst: boolean }>;
    };
    expect(tools.map((t) => t.name).sort()).toEqual([
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
    expect(
      tools
        .filter((t) => t.asksFirst)
        .map((t) => t.name)
        .sort(),
    ).toEqual(["customers_destroy", "invoices_destroy", "invoices_store"]);
  });
});
