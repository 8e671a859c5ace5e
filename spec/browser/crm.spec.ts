/**
 * The example CRM in real Chromium: the panel talking to the host over HTTP
 * and SSE. A prompt streams into a growing bubble; a tool step's link
 * navigates the page; a confirmation accepted runs the command and the open
 * list updates through its live query, declined runs nothing; Stop keeps the
 * partial bubble; a reload replays the conversation; model text full of HTML
 * renders as text (U1).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { fakeModel } from "elyra-assistant/testing";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { type RunningCrm, startCrm } from "../../examples/crm/server.ts";
import { browserSuite, haveChromium } from "./chromium.ts";
import { chromiumSession } from "./session.ts";

const { cleanup, newPage } = chromiumSession();

/** The CRM on a fresh database with a scripted model, and a page on it. */
const crm = async (model: ReturnType<typeof fakeModel>, route = "#/customers") => {
  const dir = mkdtempSync(join(tmpdir(), "elyra-crm-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const running: RunningCrm = await startCrm({ port: 0, dataDir: dir, model, notice: null });
  cleanup.push(running.close);
  const page = await newPage();
  cleanup.push(() => page.close());
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("dialog", (d) => {
    errors.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  await page.goto(`${running.url}/${route}`);
  await page.locator("elyra-assistant-panel textarea").waitFor();
  return { running, page, errors, dir };
};

const ask = async (page: Page, text: string) => {
  const box = page.locator("elyra-assistant-panel textarea");
  await box.fill(text);
  await box.press("Enter");
};

const panel = (page: Page) => page.locator("elyra-assistant-panel");
const lastAnswer = (page: Page) => panel(page).locator(".item.answer").last();

describe.skipIf(!haveChromium)(browserSuite("the example CRM in Chromium"), () => {
  it("streams a prompt into a growing bubble, aria-busy while it is written", async () => {
    const text = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
    const { page, errors } = await crm(fakeModel([], { paceMs: 25 }).says(text));
    await ask(page, "Tell me a story");
    const bubble = lastAnswer(page);
    await expect.poll(() => bubble.getAttribute("aria-busy")).toBe("true");
    const early = (await bubble.locator(".text").textContent()) ?? "";
    await expect
      .poll(async () => ((await bubble.locator(".text").textContent()) ?? "").length)
      .toBeGreaterThan(early.length);
    await expect.poll(() => bubble.getAttribute("aria-busy"), { timeout: 15_000 }).toBe(null);
    expect(await bubble.locator(".text").textContent()).toBe(text);
    expect(await panel(page).locator(".caret").count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it("a tool step's link navigates the page to the record", async () => {
    const { page } = await crm(
      fakeModel().toolCall("customers_update", { id: 42, credit_limit: 50_000 }).says("Done."),
    );
    await ask(page, "Set customer 42's credit limit to 50 000");
    const link = panel(page).locator("a.tool").first();
    await link.waitFor();
    expect(await link.getAttribute("href")).toBe("#/customers/42");
    await link.click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe("#/customers/42");
    await expect.poll(() => page.locator("main").textContent()).toContain("50");
  });

  it("a confirmation accepted runs the command and the open list updates; declined runs nothing", async () => {
    // The first two customers the list shows, whatever the seed named them.
    const model = fakeModel();
    const { page } = await crm(model, "#/customers");
    const rows = page.locator('main a[href^="#/customers/"]');
    await expect.poll(() => rows.count()).toBeGreaterThan(1);
    const idOf = async (n: number) =>
      Number(((await rows.nth(n).getAttribute("href")) ?? "").replace("#/customers/", ""));
    const [first, second] = [await idOf(0), await idOf(1)];
    model
      .toolCall("customers_destroy", { id: first })
      .says("Deleted.")
      .toolCall("customers_destroy", { id: second })
      .says("Kept.");
    const rowsWith = (id: number) => page.locator(`main a[href="#/customers/${id}"]`);

    await ask(page, `Delete customer ${first}`);
    const dialog = panel(page).locator(".item.confirm.waiting");
    await dialog.waitFor();
    // Worded for people: the command's title, never its tool name.
    expect(await dialog.textContent()).toContain("Delete");
    expect(await dialog.textContent()).not.toContain("customers_destroy");
    expect(await dialog.locator("pre.args").textContent()).toContain(`"id": ${first}`);
    await dialog.locator("button.accept").click();
    await expect.poll(() => rowsWith(first).count(), { timeout: 10_000 }).toBe(0);

    await expect.poll(() => rowsWith(second).count()).toBeGreaterThan(0);
    await ask(page, `Delete customer ${second}`);
    const again = panel(page).locator(".item.confirm.waiting");
    await again.waitFor();
    await again.locator("button.decline").click();
    await expect.poll(() => lastAnswer(page).locator(".text").textContent()).toBe("Kept.");
    expect(await rowsWith(second).count()).toBeGreaterThan(0);
    // The step says how it ended in words, not by the audit's tag.
    const declined = panel(page).locator(".step.failed").last();
    expect(await declined.locator(".status").textContent()).toBe(" · declined");
    expect(await panel(page).locator(".step").allTextContents()).not.toContain(
      expect.stringContaining("notConfirmed"),
    );
  });

  it("a question waiting while the panel is closed shows on the launcher, and the bubble before it is no longer busy", async () => {
    const model = fakeModel();
    const { page } = await crm(model, "#/customers");
    const rows = page.locator('main a[href^="#/customers/"]');
    await expect.poll(() => rows.count()).toBeGreaterThan(0);
    const id = Number(
      ((await rows.first().getAttribute("href")) ?? "").replace("#/customers/", ""),
    );
    model.toolCall("customers_destroy", { id }, { text: "Let me delete it." }).says("Kept.");
    await ask(page, `Delete customer ${id}`);
    const dialog = panel(page).locator(".item.confirm.waiting");
    await dialog.waitFor();
    // The words said before the tool step are written: a screen reader reads them before the dialog.
    expect(await lastAnswer(page).getAttribute("aria-busy")).toBeNull();
    await panel(page).locator("button.close").click();
    const launcher = panel(page).locator("button.launcher");
    await launcher.waitFor();
    expect(await launcher.getAttribute("aria-label")).toBe("Assistant — 1 question waiting");
    expect(await launcher.locator(".badge").textContent()).toBe("1");
    await launcher.click();
    await dialog.locator("button.decline").click();
    await expect.poll(() => lastAnswer(page).locator(".text").textContent()).toBe("Kept.");
    await panel(page).locator("button.close").click();
    expect(await launcher.getAttribute("aria-label")).toBeNull();
    expect(await launcher.locator(".badge").isHidden()).toBe(true);
  });

  it("the header's Ask the assistant puts the cursor in the panel's text box", async () => {
    const { page } = await crm(fakeModel(), "#/customers");
    await page.locator("main").click();
    await page.locator("#ask").click();
    await expect
      .poll(() =>
        page.evaluate(
          () =>
            document.activeElement?.tagName.toLowerCase() === "elyra-assistant-panel" &&
            document.activeElement.shadowRoot?.activeElement?.tagName.toLowerCase(),
        ),
      )
      .toBe("textarea");
  });

  it("the action chips match the record: no Mark paid on a paid invoice, none on a deleted customer", async () => {
    const { page, dir } = await crm(fakeModel(), "#/invoices");
    const db = new Database(join(dir, "crm.db"), { readonly: true });
    const idOf = (paid: boolean) =>
      (
        db
          .prepare(`SELECT id FROM invoices WHERE paid_on IS ${paid ? "NOT " : ""}NULL LIMIT 1`)
          .get() as { id: number }
      ).id;
    const [paid, unpaid] = [idOf(true), idOf(false)];
    db.close();
    const chip = (text: string) => page.locator(".asks button", { hasText: text });
    await page.goto(`${page.url().split("#")[0]}#/invoices/${unpaid}`);
    await expect.poll(() => chip("Mark this invoice paid").isVisible()).toBe(true);
    await page.goto(`${page.url().split("#")[0]}#/invoices/${paid}`);
    await expect.poll(() => page.locator("main").textContent()).toContain("paid");
    await expect.poll(() => chip("Mark this invoice paid").isVisible()).toBe(false);
    expect(await chip("Delete this invoice").isVisible()).toBe(true);
    await page.goto(`${page.url().split("#")[0]}#/customers/999999`);
    // Said plainly, with nothing of the query's error.
    await expect
      .poll(() => page.locator("main .missing").textContent())
      .toBe("There is no customer 999999. It may have been deleted.");
    expect(await chip("Delete this customer").isVisible()).toBe(false);
  });

  it("the empty panel greets and offers the page's suggestions; one clicked is sent, and the welcome goes", async () => {
    const { page, errors } = await crm(fakeModel().says("One is overdue."), "#/customers/42");
    const welcome = panel(page).locator(".welcome");
    await welcome.waitFor();
    expect(await welcome.locator(".greeting").textContent()).toMatch(/^Hello, Ada\./);
    const suggestions = welcome.getByRole("list", { name: "Suggestions" }).getByRole("button");
    // On a customer's page, about that customer.
    expect(await suggestions.allTextContents()).toEqual([
      "Which of their invoices are overdue?",
      "Set their credit limit to 20 000",
      "Bill them…",
    ]);
    // The list's own suggestions follow the page.
    await page.goto(page.url().replace("#/customers/42", "#/invoices"));
    await expect
      .poll(() => suggestions.allTextContents())
      .toEqual(["Which invoices are overdue?", "Which invoices have no project?"]);
    await suggestions.first().click();
    await expect
      .poll(() => panel(page).locator(".item.user").first().textContent())
      .toBe("Which invoices are overdue?");
    await expect
      .poll(() => lastAnswer(page).locator(".text").textContent())
      .toBe("One is overdue.");
    expect(await welcome.isHidden()).toBe(true);
    expect(errors).toEqual([]);
  });

  it("Stop keeps the partial bubble and marks the turn stopped", async () => {
    const text = Array.from({ length: 200 }, (_, i) => `w${i}`).join(" ");
    const { page } = await crm(fakeModel([], { paceMs: 30 }).says(text));
    await ask(page, "Go on and on");
    const bubble = lastAnswer(page);
    await expect
      .poll(async () => ((await bubble.locator(".text").textContent()) ?? "").length)
      .toBeGreaterThan(20);
    await panel(page).locator("button.stop").click();
    await panel(page).locator(".item.stopped").waitFor();
    const kept = (await bubble.locator(".text").textContent()) ?? "";
    expect(kept.length).toBeGreaterThan(0);
    expect(text.startsWith(kept.trim())).toBe(true);
    expect(kept.length).toBeLessThan(text.length);
    expect(await bubble.getAttribute("aria-busy")).toBe(null);
  });

  it("a reload replays the conversation from the event stream", async () => {
    const { page } = await crm(fakeModel().says("Here is your answer."));
    await ask(page, "First question");
    await expect
      .poll(() => lastAnswer(page).locator(".text").textContent())
      .toBe("Here is your answer.");
    await page.reload();
    await page.locator("elyra-assistant-panel textarea").waitFor();
    await expect
      .poll(() => panel(page).locator(".item.user").first().textContent())
      .toBe("First question");
    await expect
      .poll(() => lastAnswer(page).locator(".text").textContent())
      .toBe("Here is your answer.");
  });

  it("U1: model text full of HTML renders as text and creates no element", async () => {
    const hostile =
      '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script><b>bold</b><a href="javascript:alert(1)">x</a><svg onload="window.__pwned=3"></svg>';
    const { page, errors } = await crm(fakeModel().says(hostile));
    await ask(page, "Say something nasty");
    const text = lastAnswer(page).locator(".text");
    await expect.poll(() => text.textContent()).toBe(hostile);
    expect(await text.evaluate((el) => el.children.length)).toBe(0);
    expect(await panel(page).locator(".log img, .log script, .log b, .log svg").count()).toBe(0);
    expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(errors).toEqual([]);
  });
});
