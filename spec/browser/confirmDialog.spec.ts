/**
 * The CRM's confirmations in Chromium, by keyboard only: a delete says whom
 * it deletes and with how many invoices, its Delete button is styled as
 * destructive and never focused first; a new invoice's amount is changed on
 * the question, a refused amount is told by its field, and what runs is the
 * amount approved.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { fakeModel } from "elyra-assistant/testing";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { startCrm } from "../../examples/crm/server.ts";
import { browserSuite, haveChromium } from "./chromium.ts";
import { chromiumSession } from "./session.ts";

const { cleanup, newPage } = chromiumSession();

const crm = async (model: ReturnType<typeof fakeModel>) => {
  const dir = mkdtempSync(join(tmpdir(), "elyra-crm-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const running = await startCrm({ port: 0, dataDir: dir, model, notice: null });
  cleanup.push(running.close);
  const page = await newPage();
  cleanup.push(() => page.close());
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`${running.url}/#/customers`);
  await page.locator("elyra-assistant-panel textarea").waitFor();
  const db = () => {
    const sql = new Database(join(dir, "crm.db"), { readonly: true });
    cleanup.push(() => sql.close());
    return sql;
  };
  return { page, errors, db };
};

const panel = (page: Page) => page.locator("elyra-assistant-panel");

/** Types a prompt and sends it with Enter, from the keyboard. */
const ask = async (page: Page, text: string) => {
  const box = panel(page).locator("textarea");
  await box.focus();
  await page.keyboard.type(text);
  await page.keyboard.press("Enter");
};

/** What has the keyboard focus inside the panel's shadow root. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const active = document.querySelector("elyra-assistant-panel")?.shadowRoot?.activeElement;
    return active === null || active === undefined
      ? null
      : `${active.tagName.toLowerCase()}.${active.className}${active.getAttribute("name") ? `[${active.getAttribute("name")}]` : ""}`;
  });

describe.skipIf(!haveChromium)(browserSuite("the CRM's confirmations in Chromium"), () => {
  it("a delete says whom and how many invoices, and its Delete button is destructive and not focused", async () => {
    const model = fakeModel();
    const { page, errors, db } = await crm(model);
    const customer = db()
      .prepare(
        "SELECT c.id, c.name, count(i.id) AS n FROM customers c JOIN invoices i ON i.customer_id = c.id GROUP BY c.id ORDER BY c.id LIMIT 1",
      )
      .get() as { id: number; name: string; n: number };
    model.toolCall("customers_destroy", { id: customer.id }).says("Kept.");
    await ask(page, `Delete customer ${customer.id}`);
    const dialog = panel(page).locator(".item.confirm.waiting");
    await dialog.waitFor();
    expect(await dialog.locator("h3").textContent()).toBe(
      `Delete ${customer.name} (customer ${customer.id}) and ${customer.n} invoice${customer.n === 1 ? "" : "s"} of theirs?`,
    );
    const accept = dialog.locator("button.accept");
    expect(await accept.textContent()).toBe("Delete");
    expect(await accept.getAttribute("class")).toBe("accept destructive");
    expect(await accept.evaluate((b) => getComputedStyle(b).backgroundColor)).toBe(
      "rgb(180, 35, 24)",
    );
    // The question takes the focus, not its Delete button; Tab reaches Decline first.
    expect(await focused(page)).toMatch(/^section\.item confirm waiting destructive/);
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("button.decline");
    await page.keyboard.press("Enter");
    await expect
      .poll(() => panel(page).locator(".item.answer").last().locator(".text").textContent())
      .toBe("Kept.");
    expect(
      db().prepare("SELECT count(*) AS n FROM customers WHERE id = ?").get(customer.id),
    ).toEqual({ n: 1 });
    expect(errors).toEqual([]);
  });

  it("a new invoice's amount is changed on the question, by keyboard; a refused amount is told by its field", async () => {
    const model = fakeModel();
    const { page, errors, db } = await crm(model);
    const customer = db().prepare("SELECT id, name FROM customers ORDER BY id LIMIT 1").get() as {
      id: number;
      name: string;
    };
    model
      .toolCall("invoices_store", { customer_id: customer.id, amount: 1200, project: "Apollo" })
      .says("Issued.");
    await ask(page, `Bill customer ${customer.id} for 1 200`);
    const dialog = panel(page).locator(".item.confirm.waiting");
    await dialog.waitFor();
    expect(await dialog.locator("h3").textContent()).toBe(
      `Issue an invoice of €1,200 to ${customer.name}, due in 30 days?`,
    );
    expect(await dialog.locator("button.accept").textContent()).toBe("Issue invoice");
    expect(await dialog.locator("pre.args").textContent()).toBe(
      JSON.stringify({ customer_id: customer.id }, null, 2),
    );
    // Keyboard only: from the question, Tab to the amount, change it, Tab on to the accept button.
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("input.[amount]");
    await page.keyboard.press("Control+A");
    await page.keyboard.type("0");
    // On past the project and the due date's picker (a stop per part of the date) to accept.
    for (let i = 0; i < 8 && (await focused(page)) !== "button.accept"; i++)
      await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("button.accept");
    await page.keyboard.press("Enter");
    const alert = dialog.locator("[role=alert]");
    await expect.poll(() => alert.textContent()).toBe("Amount: must be more than 0");
    expect(await focused(page)).toBe("input.[amount]");
    expect(await dialog.locator("input[name=amount]").getAttribute("aria-invalid")).toBe("true");
    await page.keyboard.press("Control+A");
    await page.keyboard.type("950");
    for (let i = 0; i < 8 && (await focused(page)) !== "button.accept"; i++)
      await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await expect
      .poll(() => panel(page).locator(".item.confirm .answer").last().textContent())
      .toBe("Accepted with your changes.");
    await expect
      .poll(() => panel(page).locator(".item.answer").last().locator(".text").textContent())
      .toBe("Issued.");
    const rows = db()
      .prepare(
        "SELECT amount_cents, project FROM invoices WHERE customer_id = ? AND amount_cents IN (95000, 120000)",
      )
      .all(customer.id);
    expect(rows).toEqual([{ amount_cents: 95_000, project: "Apollo" }]);
    // The model was told what ran.
    expect(JSON.stringify(model.requests.at(-1)?.messages.at(-1))).toContain(
      "The user changed the arguments before approving; invoices_store ran with",
    );
    expect(errors).toEqual([]);
  });
});
