/**
 * The panel passes axe-core in each state it can be in: no serious or
 * critical violation, idle, as a sheet on a small screen, streaming an
 * answer, asking to confirm, closed with a question waiting, editing a
 * question's arguments, in its settings, after an answer, after the model
 * failed, and with the host gone. On the example CRM with its offline demo model, in
 * Debian's Chromium; axe runs on the panel's element and its shadow root.
 *
 * A state is one entry of STATES: how to bring the panel into it, and the
 * selector that shows it is there (checked again after axe ran, so the check
 * saw that state and not the next).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Model, ModelError } from "elyra-assistant";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { DEMO_NOTICE, demoModel } from "../../examples/crm/demoModel.ts";
import { type RunningCrm, startCrm } from "../../examples/crm/server.ts";
import { formatViolations, severeViolations } from "./axe.ts";
import { browserSuite, haveChromium } from "./chromium.ts";
import { chromiumSession } from "./session.ts";

const { cleanup, newPage } = chromiumSession();

/** The demo model, slow enough to be caught mid-answer; a prompt with "overloaded" in it fails as Claude does when it is. */
const model = (): Model => {
  const demo = demoModel({ paceMs: 60 });
  return {
    step: (request, options) => {
      const last = request.messages.at(-1);
      const text = typeof last?.content === "string" ? last.content : JSON.stringify(last?.content);
      if (last?.role === "user" && /overloaded/i.test(text))
        return Promise.reject(
          new ModelError({ kind: "overloaded", status: 529, message: "Overloaded" }),
        );
      return demo.step(request, options);
    },
  };
};

interface Opened {
  readonly page: Page;
  readonly running: RunningCrm;
}

/** The CRM on a fresh database with the demo model, and a page on it with the panel open. */
const open = async (viewport: { width: number; height: number }): Promise<Opened> => {
  const dir = mkdtempSync(join(tmpdir(), "elyra-a11y-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const running = await startCrm({ port: 0, dataDir: dir, model: model(), notice: DEMO_NOTICE });
  cleanup.push(running.close);
  const page = await newPage({ viewport });
  cleanup.push(() => page.close());
  await page.goto(`${running.url}/#/customers`);
  await page.locator("main table tbody tr").first().waitFor();
  const textarea = panel(page).locator("textarea");
  // On a phone the header's button is hidden: the panel's own floating one opens it.
  if (!(await textarea.isVisible()))
    await ((await page.locator("#ask").isVisible())
      ? page.locator("#ask")
      : page.locator("elyra-assistant-panel button.launcher")
    ).click();
  await textarea.waitFor();
  return { page, running };
};

const panel = (page: Page) => page.locator("elyra-assistant-panel");

const ask = async (page: Page, text: string) => {
  const box = panel(page).locator("textarea");
  await box.fill(text);
  await box.press("Enter");
};

/** A turn that has ended: its answer written, Stop gone. */
const answered = async (page: Page) => {
  await panel(page).locator(".item.answer:not([aria-busy])").last().waitFor();
  await panel(page).locator("button.stop").waitFor({ state: "hidden" });
};

interface PanelState {
  readonly name: string;
  readonly viewport?: { readonly width: number; readonly height: number };
  /** Brings the open panel into the state. */
  readonly reach: (opened: Opened) => Promise<void>;
  /** Inside the panel: shows the state is still there once axe has run. */
  readonly shown: string;
}

const STATES: ReadonlyArray<PanelState> = [
  { name: "idle", reach: async () => {}, shown: "section.panel:not([hidden])" },
  {
    name: "idle, as a sheet on a small screen",
    viewport: { width: 375, height: 700 },
    reach: async () => {},
    shown: "section.panel:not([hidden])",
  },
  {
    name: "streaming an answer",
    reach: async ({ page }) => {
      await ask(page, "Hello");
      await panel(page).locator(".item.answer[aria-busy=true]").waitFor();
    },
    shown: ".item.answer[aria-busy=true]",
  },
  {
    name: "asking to confirm a deletion",
    reach: async ({ page }) => {
      const first = await page.locator('main a[href^="#/customers/"]').first().getAttribute("href");
      await ask(page, `Delete customer ${(first ?? "").replace("#/customers/", "")}`);
      await panel(page).locator(".item.confirm.waiting").waitFor();
    },
    shown: ".item.confirm.waiting",
  },
  {
    name: "after an answer, with a step's link and a declined confirmation",
    reach: async ({ page }) => {
      const first = await page.locator('main a[href^="#/customers/"]').first().getAttribute("href");
      const id = (first ?? "").replace("#/customers/", "");
      await ask(page, `Set the credit limit of customer ${id} to 20 000`);
      await answered(page);
      await ask(page, `Delete customer ${id}`);
      await panel(page).locator("button.decline").click();
      await expect
        .poll(() => panel(page).locator(".item.answer .text").last().textContent())
        .toBe("All right, I left it as it was.");
      await answered(page);
    },
    shown: ".step.ok a.tool",
  },
  {
    name: "closed, a question waiting on the launcher",
    reach: async ({ page }) => {
      const first = await page.locator('main a[href^="#/customers/"]').first().getAttribute("href");
      await ask(page, `Delete customer ${(first ?? "").replace("#/customers/", "")}`);
      await panel(page).locator(".item.confirm.waiting").waitFor();
      await panel(page).locator("button.close").click();
    },
    shown: "button.launcher .badge:not([hidden])",
  },
  {
    name: "editing a new invoice's arguments, one refused",
    reach: async ({ page }) => {
      const first = await page.locator('main a[href^="#/customers/"]').first().getAttribute("href");
      await ask(page, `Bill customer ${(first ?? "").replace("#/customers/", "")} for 1 200`);
      const dialog = panel(page).locator(".item.confirm.waiting");
      await dialog.locator("fieldset.edit input[name=amount]").fill("0");
      await dialog.locator("button.accept").click();
      await dialog.locator("[role=alert]:not([hidden])").waitFor();
    },
    shown: ".item.confirm.waiting [aria-invalid=true]",
  },
  {
    name: "settings, with a key refused",
    reach: async ({ page }) => {
      await panel(page).locator("button.settings-button:not([hidden])").click();
      const field = panel(page).locator(".settings input[type=password]");
      await field.fill("not-a-key");
      await field.press("Enter");
      await panel(page).locator(".settings-problem:not([hidden])").waitFor();
    },
    shown: ".settings-problem:not([hidden])",
  },
  {
    name: "after the model failed",
    reach: async ({ page }) => {
      await ask(page, "Are you overloaded?");
      await panel(page).locator(".item.error").waitFor();
    },
    shown: ".item.error",
  },
  {
    name: "with the host gone",
    reach: async ({ page, running }) => {
      await running.close();
      await panel(page).locator(".connection:not([hidden])").waitFor({ timeout: 15_000 });
      await ask(page, "Anyone there?");
      await panel(page).locator(".problem:not([hidden])").waitFor({ timeout: 15_000 });
    },
    shown: ".problem:not([hidden])",
  },
];

describe.skipIf(!haveChromium)(
  browserSuite("the panel's accessibility, by axe-core in Chromium"),
  () => {
    for (const state of STATES)
      it(`${state.name}: no serious or critical violation`, async () => {
        const opened = await open(state.viewport ?? { width: 1280, height: 800 });
        await state.reach(opened);
        const violations = await severeViolations(opened.page);
        expect(await panel(opened.page).locator(state.shown).count()).toBeGreaterThan(0);
        expect(formatViolations(violations)).toBe("");
      });
  },
);
