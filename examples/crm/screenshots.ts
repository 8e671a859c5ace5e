/**
 * Takes the README's screenshots of the panel, in Debian's Chromium: an
 * answer mid-stream and the confirm dialog, on the example CRM with a
 * scripted model. `npm run screenshots` writes docs/images/*.png.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fakeModel } from "elyra-assistant/testing";
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
  .toolCall("customers_destroy", { id: 42 }, { text: "I'll delete that customer." });

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
  await page.locator("elyra-assistant-panel .item.answer:not([aria-busy])").last().waitFor();
  await page.waitForFunction(() => {
    const panel = document.querySelector("elyra-assistant-panel");
    return panel?.shadowRoot?.querySelector("button.stop")?.hasAttribute("hidden") ?? false;
  });
  await box.fill("Delete this customer");
  await box.press("Enter");
  await page.locator("elyra-assistant-panel .item.confirm.waiting").waitFor();
  await page.screenshot({ path: join(out, "panel-confirm.png") });
  await page.locator("elyra-assistant-panel button.decline").click();
  console.log(`wrote ${join(out, "panel-streaming.png")} and panel-confirm.png`);
} finally {
  await browser.close();
  await crm.close();
  rmSync(dir, { recursive: true, force: true });
}
