/**
 * The note counts what it left out, end to end in Chromium: the page tells
 * its host a selection of 240 invoices (through the same route and headers
 * its own client uses), and the CRM's demo model, reading the window note,
 * says how many of them the note shows and how many it left out.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { demoModel } from "../../examples/crm/demoModel.ts";
import { startCrm } from "../../examples/crm/server.ts";
import { browserSuite, haveChromium } from "./chromium.ts";
import { chromiumSession } from "./session.ts";

const { cleanup, newPage } = chromiumSession();

describe.skipIf(!haveChromium)(browserSuite("the window note's count in Chromium"), () => {
  it("240 invoices selected: the demo model says how many the note left out", async () => {
    const dir = mkdtempSync(join(tmpdir(), "elyra-note-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const running = await startCrm({ port: 0, dataDir: dir, model: demoModel(), notice: null });
    cleanup.push(running.close);
    const page = await newPage();
    cleanup.push(() => page.close());
    await page.goto(`${running.url}/#/invoices`);
    const box = page.locator("elyra-assistant-panel textarea");
    await box.waitFor();
    // The page's own window: its token and client id, as its client sends them.
    const status = await page.evaluate(async () => {
      const token = document.querySelector<HTMLMetaElement>('meta[name="elyra-token"]')?.content;
      const response = await fetch("/__assistant/selected", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-elyra-token": token ?? "",
          "x-elyra-client": sessionStorage.getItem("elyra-crm-client") ?? "",
        },
        body: JSON.stringify({
          kind: "invoices",
          ids: Array.from({ length: 240 }, (_, i) => i + 1),
          route: "/invoices",
        }),
      });
      return response.status;
    });
    expect(status).toBe(204);
    await box.fill("What is selected?");
    await box.press("Enter");
    const answer = page.locator("elyra-assistant-panel .item.answer:not([aria-busy]) .text").last();
    await expect
      .poll(() => answer.textContent(), { timeout: 15_000 })
      .toMatch(/^You have selected (\d+) invoices \(.*\), and (\d+) more not listed here\./);
    const [, shown, left] =
      /selected (\d+) invoices .*and (\d+) more/.exec((await answer.textContent()) ?? "") ?? [];
    expect(Number(shown) + Number(left)).toBe(240);
    expect(Number(left)).toBeGreaterThan(0);
  });
});
