/**
 * The example CRM's command palette in real Chromium, from the keyboard
 * alone: Control+K opens it, typing filters the CRM's pages and commands,
 * the arrow keys choose, Enter runs, Escape closes and puts the focus back.
 * When nothing matches, "Ask the assistant: …" (assistantPaletteEntry) opens
 * the panel and sends the query to the offline demo model.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { demoModel } from "../../examples/crm/demoModel.ts";
import { startCrm } from "../../examples/crm/server.ts";
import { browserSuite, haveChromium } from "./chromium.ts";
import { chromiumSession } from "./session.ts";

const { cleanup, newPage } = chromiumSession();

/** The CRM on a fresh database, on a free port, with the offline demo model; a page on it. */
const crm = async (route = "#/customers") => {
  const dir = mkdtempSync(join(tmpdir(), "elyra-palette-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const running = await startCrm({
    port: 0,
    dataDir: dir,
    model: demoModel({ paceMs: 0 }),
    notice: null,
  });
  cleanup.push(running.close);
  const page = await newPage();
  cleanup.push(() => page.close());
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`${running.url}/${route}`);
  await page.locator("elyra-assistant-panel textarea").waitFor();
  await page.locator('main a[href^="#/customers/"]').first().waitFor();
  return { page, errors };
};

const palette = (page: Page) => page.getByRole("dialog", { name: "Command palette" });
const combobox = (page: Page) => palette(page).getByRole("combobox");

/** The focused element, inside shadow roots too: `tag#id.class` or `tag[aria-label]`. */
const focusedElement = (page: Page) =>
  page.evaluate(() => {
    let active = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    if (active === null) return null;
    const label = active.getAttribute("aria-label");
    return `${active.tagName.toLowerCase()}${active.id ? `#${active.id}` : ""}${label ? `[${label}]` : ""}`;
  });

/** The text of the option `aria-activedescendant` points at. */
const activeOption = (page: Page) =>
  page.evaluate(() => {
    const box = document.querySelector('dialog[open] [role="combobox"]');
    const id = box?.getAttribute("aria-activedescendant");
    if (!id) return null;
    const option = document.getElementById(id);
    return option?.getAttribute("aria-selected") === "true"
      ? (option.querySelector(".label")?.textContent ?? null)
      : `not selected: ${option?.textContent}`;
  });

const panel = (page: Page) => page.locator("elyra-assistant-panel");

describe.skipIf(!haveChromium)(browserSuite("the CRM's command palette in Chromium"), () => {
  it("Control+K opens it on the query box; a page typed and Enter navigates there", async () => {
    const { page, errors } = await crm("#/customers");
    await page.keyboard.press("Control+K");
    await palette(page).waitFor();
    expect(await focusedElement(page)).toBe(
      "input[Go to a page, run a command, or ask the assistant]",
    );
    expect(await combobox(page).getAttribute("aria-controls")).toBe("crm-palette-list");
    await page.keyboard.type("inv");
    await expect.poll(() => activeOption(page)).toBe("Invoices");
    expect(await palette(page).getByRole("option").allTextContents()).toEqual(["Invoices, Page"]);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.evaluate(() => location.hash)).toBe("#/invoices");
    expect(await palette(page).isVisible()).toBe(false);
    await expect.poll(() => page.locator("main h1").textContent()).toBe("Invoices");
    expect(await focusedElement(page)).toBe("main#page");

    // A record by its number: INV-0003 is invoice 3's page.
    await page.keyboard.press("Control+K");
    await page.keyboard.type("INV-0003");
    await expect.poll(() => activeOption(page)).toBe("Invoice INV-0003");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.evaluate(() => location.hash)).toBe("#/invoices/3");
    expect(errors).toEqual([]);
  });

  it("the arrow keys choose, wrapping; Escape closes and puts the focus back", async () => {
    const { page } = await crm("#/invoices");
    const search = page.getByRole("searchbox");
    await search.focus();
    await page.keyboard.press("Control+K");
    await palette(page).waitFor();
    await expect.poll(() => activeOption(page)).toBe("Customers");
    await page.keyboard.press("ArrowDown");
    expect(await activeOption(page)).toBe("Invoices");
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowUp");
    // Up from the first is the last: the assistant's commands.
    expect(await activeOption(page)).toBe("New conversation");
    await page.keyboard.press("Escape");
    await expect.poll(() => palette(page).isVisible()).toBe(false);
    expect(await focusedElement(page)).toBe("input[Search customer, project or INV-0042]");
    expect(await page.evaluate(() => location.hash)).toBe("#/invoices");

    // Control+K again toggles it shut, the same way.
    await page.keyboard.press("Control+K");
    await palette(page).waitFor();
    await page.keyboard.press("Control+K");
    await expect.poll(() => palette(page).isVisible()).toBe(false);
    expect(await focusedElement(page)).toBe("input[Search customer, project or INV-0042]");
  });

  it("the assistant's commands: close it, open it again with the cursor in its text box", async () => {
    const { page } = await crm();
    await page.keyboard.press("Control+K");
    await page.keyboard.type("close");
    await expect.poll(() => activeOption(page)).toBe("Close the assistant");
    await page.keyboard.press("Enter");
    await panel(page).locator("button.launcher").waitFor();
    expect(await panel(page).locator("section.panel").isHidden()).toBe(true);
    await page.keyboard.press("Control+K");
    await page.keyboard.type("open ass");
    await expect.poll(() => activeOption(page)).toBe("Open the assistant");
    await page.keyboard.press("Enter");
    await panel(page).locator("section.panel").waitFor();
    await expect.poll(() => focusedElement(page)).toBe("textarea[Message]");
  });

  it("a query that matches nothing offers to ask the assistant; Enter opens the panel and sends it", async () => {
    const { page, errors } = await crm("#/customers");
    // From the panel's own text box: the shortcut works wherever the focus is.
    await panel(page).locator("textarea").focus();
    await page.keyboard.press("Control+K");
    await palette(page).waitFor();
    await page.keyboard.type("Find Hopper");
    await expect.poll(() => activeOption(page)).toBe("Ask the assistant: Find Hopper");
    expect(await palette(page).getByRole("option").allTextContents()).toEqual([
      "Ask the assistant: Find Hopper, Assistant",
    ]);
    expect(await palette(page).getByRole("status").textContent()).toBe(
      "No page or command matches. Enter asks the assistant.",
    );
    await page.keyboard.press("Enter");
    await expect.poll(() => palette(page).isVisible()).toBe(false);

    // The panel shows the prompt as sent, the tool the demo model called, and its answer.
    await expect
      .poll(() => panel(page).locator(".item.user").last().textContent())
      .toBe("Find Hopper");
    await expect
      .poll(() => panel(page).locator(".item.answer").last().locator(".text").textContent(), {
        timeout: 10_000,
      })
      .toMatch(/^\d+ customers? match(es)?: .*Hopper/);
    expect(await panel(page).locator(".step").allTextContents()).toEqual([
      expect.stringContaining("customers_index"),
    ]);
    await expect.poll(() => focusedElement(page)).toBe("textarea[Message]");
    expect(await panel(page).locator("textarea").inputValue()).toBe("");
    expect(errors).toEqual([]);
  });

  it("a long query: the option's label is clipped, the whole query is sent", async () => {
    const { page } = await crm("#/customers");
    const query = `Find ${"very ".repeat(20)}Hopper`;
    await page.keyboard.press("Control+K");
    await page.keyboard.type(query);
    const label = await palette(page).getByRole("option").locator(".label").textContent();
    expect(label).toBe(`Ask the assistant: ${query.slice(0, 59)}…`);
    await page.keyboard.press("Enter");
    await expect.poll(() => panel(page).locator(".item.user").last().textContent()).toBe(query);
  });
});
