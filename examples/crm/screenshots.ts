/**
 * Takes the README's screenshots of the panel, in Debian's Chromium: the
 * empty panel's greeting and suggestions, an answer mid-stream, the confirm
 * dialog with its sentence, a new invoice's arguments edited on the
 * question, a phone's list with its one assistant button, and the panel as
 * a phone's sheet, on the example CRM with a scripted model. `npm run screenshots` writes
 * docs/images/*.png.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fakeModel } from "elyra-assistant/testing";
import type { Page } from "playwright-core";
import { launch } from "../../spec/browser/chromium.ts";
import { startCrm } from "./server.ts";

const out = fileURLToPath(new URL("../../docs/images/", import.meta.url));
mkdirSync(out, { recursive: true });
const dir = mkdtempSync(join(tmpdir(), "elyra-shots-"));

const answer =
  "One of her three invoices is overdue: INV-0303 for the Intranet project, €1,267.00, due on 16 September. The other two are paid. Shall I draft a reminder for it?";
const model = fakeModel([], { paceMs: 60 })
  .toolCall(
    "invoices_index",
    { customer_id: 42, overdue: true },
    { text: "Let me look at her invoices." },
  )
  .says(answer)
  .toolCall("customers_destroy", { id: 42 }, { text: "I'll delete that customer." })
  .says("All right, I left her as she was.")
  .toolCall(
    "invoices_store",
    { customer_id: 42, amount: 1267, project: "Intranet" },
    { text: "I'll issue a new invoice for the Intranet work." },
  )
  .says("Issued.")
  .says("Her invoices: one overdue, two paid.");

/** The turn has ended: its answer written, Stop gone. */
const turnEnded = async (page: Page) => {
  await page.locator("elyra-assistant-panel .item.answer:not([aria-busy])").last().waitFor();
  await page.waitForFunction(() => {
    const panel = document.querySelector("elyra-assistant-panel");
    return panel?.shadowRoot?.querySelector("button.stop")?.hasAttribute("hidden") ?? false;
  });
};

const crm = await startCrm({ port: 0, dataDir: dir, model, notice: null });
const browser = await launch();
try {
  const page = await browser.newPage({
    viewport: { width: 1280, height: 760 },
    deviceScaleFactor: 1,
  });
  await page.goto(`${crm.url}/#/customers/42`);
  const box = page.locator("elyra-assistant-panel textarea");
  await box.waitFor();
  await page.locator("elyra-assistant-panel .welcome button").first().waitFor();
  await page.locator("main table").first().waitFor();
  await page.screenshot({ path: join(out, "panel-empty.png") });
  await box.fill("Which of her invoices are overdue?");
  await box.press("Enter");
  const bubble = page.locator("elyra-assistant-panel .item.answer[aria-busy=true]").last();
  await bubble.waitFor();
  await page.waitForFunction(
    () => {
      const panel = document.querySelector("elyra-assistant-panel");
      const texts = panel?.shadowRoot?.querySelectorAll(".item.answer .text") ?? [];
      return (texts[texts.length - 1]?.textContent ?? "").length > 90;
    },
    undefined,
    { timeout: 20_000 },
  );
  await page.screenshot({ path: join(out, "panel-streaming.png") });
  await turnEnded(page);
  await box.fill("Delete this customer");
  await box.press("Enter");
  await page.locator("elyra-assistant-panel .item.confirm.waiting").waitFor();
  await page.screenshot({ path: join(out, "panel-confirm.png") });
  await page.locator("elyra-assistant-panel button.decline").click();
  await page.locator("elyra-assistant-panel .item.confirm .answer").waitFor();
  await turnEnded(page);
  await box.fill("Bill her again for the Intranet work");
  await box.press("Enter");
  const edit = page.locator("elyra-assistant-panel .item.confirm.waiting");
  await edit.locator("input[name=amount]").fill("0");
  await edit.locator("button.accept").click();
  await edit.locator("[role=alert]:not([hidden])").waitFor();
  await edit.locator("input[name=amount]").fill("1150");
  await page.screenshot({ path: join(out, "panel-edit.png") });
  await edit.locator("button.accept").click();
  await page.locator("elyra-assistant-panel .item.confirm .answer").last().waitFor();
  await turnEnded(page);
  // The answered question, after approval: what ran, and what the user changed.
  await page
    .locator("elyra-assistant-panel .item.confirm")
    .last()
    .evaluate((item) => item.scrollIntoView({ block: "center" }));
  await page.screenshot({ path: join(out, "panel-edited.png") });

  const phone = await browser.newPage({
    viewport: { width: 375, height: 700 },
    deviceScaleFactor: 1,
  });
  await phone.goto(`${crm.url}/#/customers`);
  await phone.locator("main table tbody tr").first().waitFor();
  await phone.screenshot({ path: join(out, "phone-list.png") });
  await phone.goto(`${crm.url}/#/customers/42`);
  await phone.locator("main dl, main table").first().waitFor();
  // On a phone the panel's floating button is the one that opens it.
  await phone.locator("elyra-assistant-panel button.launcher").click();
  const phoneBox = phone.locator("elyra-assistant-panel textarea");
  await phoneBox.fill("Her invoices?");
  await phoneBox.press("Enter");
  await turnEnded(phone);
  await phone.screenshot({ path: join(out, "panel-phone.png") });
  console.log(
    `wrote panel-empty.png, panel-streaming.png, panel-confirm.png, panel-edit.png, panel-edited.png, phone-list.png and panel-phone.png in ${out}`,
  );
} finally {
  await browser.close();
  await crm.close();
  rmSync(dir, { recursive: true, force: true });
}
