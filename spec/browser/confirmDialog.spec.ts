/**
 * The CRM's confirmations in Chromium, by keyboard only: a delete says whom
 * it deletes and with how many invoices, its Delete button is styled as
 * destructive and never focused first; a new invoice's amount is changed on
 * the question, a refused amount is told by its field, and what runs is the
 * amount approved; once answered (and after a reload) the question shows
 * what ran, each change beside what was asked.
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
    expect(await panel(page).locator(".item.confirm ul.changes li").allTextContents()).toEqual([
      "Amount: €950 (was €1,200)",
    ]);
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

  it("an invoice changed on the question shows what ran once answered, and again after a reload", async () => {
    const model = fakeModel();
    const { page, errors, db } = await crm(model);
    const customer = db().prepare("SELECT id, name FROM customers ORDER BY id LIMIT 1").get() as {
      id: number;
      name: string;
    };
    model.toolCall("invoices_store", { customer_id: customer.id, amount: 500 }).says("Issued.");
    await ask(page, "Bill her 500");
    const waiting = panel(page).locator(".item.confirm.waiting");
    await waiting.waitFor();
    const asked = `Issue an invoice of €500 to ${customer.name}, due in 30 days?`;
    expect(await waiting.locator("h3").textContent()).toBe(asked);
    await waiting.locator("input[name=amount]").fill("750");
    await waiting.locator("[name=project]").fill("Website");
    await waiting.locator("[name=due_on]").fill("2031-07-01");
    await waiting.locator("button.accept").click();
    await expect
      .poll(() => panel(page).locator(".item.answer").last().locator(".text").textContent())
      .toBe("Issued.");
    expect(
      db()
        .prepare(
          "SELECT amount_cents, project, due_on FROM invoices WHERE customer_id = ? AND amount_cents IN (50000, 75000)",
        )
        .all(customer.id),
    ).toEqual([{ amount_cents: 75_000, project: "Website", due_on: "2031-07-01" }]);

    /** What the answered question reads: its title, each change, the arguments it shows. */
    const answered = async () => {
      const dialog = panel(page).locator(".item.confirm").last();
      return {
        title: await dialog.locator("h3").textContent(),
        changes: await dialog.locator("ul.changes li").allTextContents(),
        args: JSON.parse((await dialog.locator("pre.args").textContent()) ?? "null") as unknown,
        answer: await dialog.locator(".answer").textContent(),
      };
    };
    const ran = {
      title: `Claude asked: ${asked}`,
      changes: [
        "Amount: €750 (was €500)",
        "Project: Website (was not set)",
        "Due date: 2031-07-01 (was not set)",
      ],
      args: { customer_id: customer.id, amount: 750, project: "Website", due_on: "2031-07-01" },
      answer: "Accepted with your changes.",
    };
    expect(await answered()).toEqual(ran);

    // A reload reads the log again: the answered question still shows what ran.
    await page.reload();
    await expect.poll(() => panel(page).locator(".item.confirm .answer").count()).toBe(1);
    expect(await answered()).toEqual(ran);
    expect(errors).toEqual([]);
  });
});
