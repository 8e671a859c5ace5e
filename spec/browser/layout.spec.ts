/**
 * The example CRM on every screen, in Debian's Chromium with the offline demo
 * model. At 375×700 the panel opens from the header as a sheet over the whole
 * window, with a close button easy to hit, and closing it gives the page all
 * its width back. At 1024×768 and 1366×768 the lists show their key columns
 * (a customer's Unpaid and Overdue, an invoice's Amount, Due and Status)
 * inside the window with nothing scrolling sideways, and closing the docked
 * panel gives its column back to the page.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { DEMO_NOTICE, demoModel } from "../../examples/crm/demoModel.ts";
import { startCrm } from "../../examples/crm/server.ts";
import { browserSuite, haveChromium } from "./chromium.ts";
import { chromiumSession } from "./session.ts";

const { cleanup, newPage } = chromiumSession();

/** The CRM on a fresh database with the demo model, and a page of that size on a list. */
const crm = async (viewport: { width: number; height: number }, route: string) => {
  const dir = mkdtempSync(join(tmpdir(), "elyra-layout-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const running = await startCrm({
    port: 0,
    dataDir: dir,
    model: demoModel(),
    notice: DEMO_NOTICE,
  });
  cleanup.push(running.close);
  const page = await newPage({ viewport });
  cleanup.push(() => page.close());
  await go(page, `${running.url}/${route}`);
  await panel(page).locator("textarea").waitFor({ state: "attached" });
  return page;
};

/** Goes to a list and waits for its rows. */
const go = async (page: Page, url: string) => {
  await page.goto(url);
  await page.locator("main table tbody tr").first().waitFor();
};

const panel = (page: Page) => page.locator("elyra-assistant-panel");
const sheet = (page: Page) => panel(page).locator("section.panel");

/** The one button that opens the assistant: the header's, or on a phone the panel's floating one. */
const opener = async (page: Page) =>
  (await page.locator("#ask").isVisible())
    ? page.locator("#ask")
    : panel(page).locator("button.launcher");

const setOpen = async (page: Page, open: boolean) => {
  if ((await sheet(page).isVisible()) === open) return;
  if (open) await (await opener(page)).click();
  else await panel(page).locator("button.close").click();
  await sheet(page).waitFor({ state: open ? "visible" : "hidden" });
};

interface Widths {
  /** The window's width, and how wide the page is laid out. */
  readonly inner: number;
  readonly page: number;
  /** main's box, and how wide its content is laid out. */
  readonly mainLeft: number;
  readonly mainRight: number;
  readonly mainClient: number;
  readonly mainScroll: number;
}

const widths = (page: Page): Promise<Widths> =>
  page.evaluate(() => {
    const main = document.querySelector("main") as HTMLElement;
    const box = main.getBoundingClientRect();
    return {
      inner: window.innerWidth,
      page: document.documentElement.scrollWidth,
      mainLeft: box.left,
      mainRight: box.right,
      mainClient: main.clientWidth,
      mainScroll: main.scrollWidth,
    };
  });

/** Nothing scrolls sideways: not the page, not its main. */
const expectNoSidewaysScroll = (w: Widths) => {
  expect(w.page).toBeLessThanOrEqual(w.inner);
  expect(w.mainScroll).toBeLessThanOrEqual(w.mainClient);
};

/** Each column headed so is shown whole, inside the window and inside main's box. */
const expectColumnsInView = async (page: Page, headings: ReadonlyArray<string>) => {
  const w = await widths(page);
  for (const heading of headings) {
    const th = page.locator("main thead th", { hasText: new RegExp(`^${heading}$`) });
    expect(await th.count(), heading).toBe(1);
    expect(await th.isVisible(), `${heading} is shown`).toBe(true);
    const box = await th.boundingBox();
    if (box === null) throw new Error(`${heading} has no box`);
    expect(box.x, `${heading} starts inside`).toBeGreaterThanOrEqual(Math.max(0, w.mainLeft) - 0.5);
    expect(box.x + box.width, `${heading} ends inside`).toBeLessThanOrEqual(
      Math.min(w.inner, w.mainRight) + 0.5,
    );
  }
};

const CUSTOMER_KEYS = ["Name", "Unpaid", "Overdue"];
const INVOICE_KEYS = ["Invoice", "Amount", "Due", "Status"];

/** Where the keyboard's focus is: `#id` of an element of the page, or `panel tag.class` of one of the panel's. */
const focused = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const active = document.activeElement;
    const inner = active?.shadowRoot?.activeElement;
    if (inner) return `panel ${[inner.tagName.toLowerCase(), ...inner.classList].join(".")}`;
    return active?.id ? `#${active.id}` : (active?.tagName.toLowerCase() ?? "nothing");
  });

describe.skipIf(!haveChromium)(browserSuite("the example CRM's layout in Chromium"), () => {
  it("at 375×700 the panel opens from its button as a sheet over the window, and closing it gives the page its whole width", async () => {
    const page = await crm({ width: 375, height: 700 }, "#/customers");
    await setOpen(page, false);
    const closed = await widths(page);
    expect(Math.abs(closed.mainRight - closed.mainLeft - closed.inner)).toBeLessThanOrEqual(1);
    expectNoSidewaysScroll(closed);
    await expectColumnsInView(page, CUSTOMER_KEYS);

    await panel(page).locator("button.launcher").click();
    await sheet(page).waitFor();
    const box = await sheet(page).boundingBox();
    expect(box).not.toBeNull();
    expect(Math.abs((box?.x ?? -1) - 0)).toBeLessThanOrEqual(1);
    expect(Math.abs((box?.y ?? -1) - 0)).toBeLessThanOrEqual(1);
    expect(Math.abs((box?.width ?? 0) - 375)).toBeLessThanOrEqual(1);
    expect(Math.abs((box?.height ?? 0) - 700)).toBeLessThanOrEqual(1);
    expect(await focused(page)).toBe("panel textarea");
    // Its close button is on screen and big enough for a finger.
    const close = panel(page).locator("button.close");
    const closeBox = await close.boundingBox();
    expect(closeBox).not.toBeNull();
    expect(closeBox?.width ?? 0).toBeGreaterThanOrEqual(44);
    expect(closeBox?.height ?? 0).toBeGreaterThanOrEqual(44);
    expect((closeBox?.x ?? 999) + (closeBox?.width ?? 0)).toBeLessThanOrEqual(375);

    await close.click();
    await sheet(page).waitFor({ state: "hidden" });
    const after = await widths(page);
    expect(Math.abs(after.mainRight - after.mainLeft - after.inner)).toBeLessThanOrEqual(1);
    expectNoSidewaysScroll(after);
    // The keyboard is not left on a hidden element: it is on something that opens the panel again.
    expect(await focused(page)).toBe("panel button.launcher");

    await go(page, page.url().replace("#/customers", "#/invoices"));
    expectNoSidewaysScroll(await widths(page));
    await expectColumnsInView(page, ["Invoice", "Amount", "Status"]);
  });

  for (const viewport of [
    { width: 1024, height: 768 },
    { width: 1366, height: 768 },
  ])
    it(`at ${viewport.width}×${viewport.height} the lists show their key columns without scrolling sideways, and closing the panel gives its column back`, async () => {
      const page = await crm(viewport, "#/invoices");
      await setOpen(page, true);
      const open = await widths(page);
      expectNoSidewaysScroll(open);
      await expectColumnsInView(page, INVOICE_KEYS);
      // The panel is docked beside main, not over it.
      const docked = await sheet(page).boundingBox();
      expect(docked?.x ?? 0).toBeGreaterThanOrEqual(open.mainRight - 1);

      await go(page, page.url().replace("#/invoices", "#/customers"));
      expectNoSidewaysScroll(await widths(page));
      await expectColumnsInView(page, CUSTOMER_KEYS);

      await setOpen(page, false);
      const closed = await widths(page);
      expect(closed.mainRight - closed.mainLeft).toBeGreaterThan(
        open.mainRight - open.mainLeft + 250,
      );
      expect(Math.abs(closed.mainRight - closed.mainLeft - closed.inner)).toBeLessThanOrEqual(1);
      expectNoSidewaysScroll(closed);
      await expectColumnsInView(page, CUSTOMER_KEYS);

      await go(page, page.url().replace("#/customers", "#/invoices"));
      expectNoSidewaysScroll(await widths(page));
      await expectColumnsInView(page, INVOICE_KEYS);

      await setOpen(page, true);
      const again = await widths(page);
      expect(Math.abs(again.mainRight - open.mainRight)).toBeLessThanOrEqual(1);
    });

  it("at 375×700 there is one assistant button, no keyboard shortcut's hint, and the floating button covers nothing at the end of a page", async () => {
    const page = await crm({ width: 375, height: 700 }, "#/customers");
    await setOpen(page, false);
    const launcher = panel(page).locator("button.launcher");
    expect(await launcher.isVisible()).toBe(true);
    expect(await page.locator("#ask").isVisible(), "the header's Ask the assistant").toBe(false);
    const palette = page.locator("header button.palette-open");
    expect(await palette.isVisible()).toBe(true);
    expect(await palette.locator("kbd").isVisible(), "the Ctrl K hint").toBe(false);

    for (const route of ["#/customers", "#/invoices", "#/customers/42"]) {
      await page.goto(page.url().replace(/#.*$/, route));
      await page.locator("main table tbody tr").first().waitFor();
      await page.locator("main .pager").first().waitFor();
      // Scrolled to the end, a finger's width (16 px) lies between the page's last row or button and it.
      const clear = await page.evaluate(() => {
        const main = document.querySelector("main") as HTMLElement;
        main.scrollTop = main.scrollHeight;
        const shadow = document.querySelector("elyra-assistant-panel")?.shadowRoot;
        const button = shadow?.querySelector(".launcher")?.getBoundingClientRect();
        if (button === undefined) return [];
        const near = [];
        for (const node of main.querySelectorAll("tr, button, a, input, .pager, p, dl")) {
          const box = node.getBoundingClientRect();
          if (box.height === 0) continue;
          const apart =
            box.right <= button.left - 16 ||
            box.left >= button.right + 16 ||
            box.bottom <= button.top - 16 ||
            box.top >= button.bottom + 16;
          if (!apart) near.push(`${node.tagName.toLowerCase()} ${node.textContent?.slice(0, 30)}`);
        }
        return near;
      });
      expect(clear, route).toEqual([]);
    }
  });

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 375, height: 700 },
  ])
    it(`at ${viewport.width}×${viewport.height} every button of the page is styled as the page's, none as the browser's default`, async () => {
      const page = await crm(viewport, "#/customers");
      // The browser's own button, in a page with no styles of its own.
      const plain = await page.evaluate(async () => {
        const frame = document.createElement("iframe");
        frame.srcdoc = "<button>x</button>";
        const loaded = new Promise((resolve) => frame.addEventListener("load", resolve));
        document.body.append(frame);
        await loaded;
        const button = frame.contentDocument?.querySelector("button") as HTMLButtonElement;
        const style = getComputedStyle(button);
        const seen = {
          background: style.backgroundColor,
          border: style.borderTopStyle,
          font: style.fontSize,
        };
        frame.remove();
        return seen;
      });
      const styles = async () =>
        page.evaluate(() => {
          const font = getComputedStyle(document.body).fontFamily;
          return [...document.querySelectorAll("button")]
            .filter((button) => button.getClientRects().length > 0)
            .map((button) => {
              const style = getComputedStyle(button);
              return {
                text: button.textContent?.trim() ?? "",
                background: style.backgroundColor,
                border: style.borderTopStyle,
                font: style.fontSize,
                radius: style.borderTopLeftRadius,
                sameFont: style.fontFamily === font,
                cursor: button.disabled ? "pointer" : style.cursor,
              };
            });
        });
      // The header, the chips, the pager; a row ticked for the selection's buttons; a customer's page.
      await page.locator("main tbody input[type=checkbox]").first().check();
      await page.locator("main .selection button").first().waitFor();
      const seen = await styles();
      await page.goto(page.url().replace(/#.*$/, "#/customers/42"));
      await page.locator("main .asks button").first().waitFor();
      seen.push(...(await styles()));
      const texts = seen.map((b) => b.text);
      for (const text of ["Go to…", "Ask about them", "Clear", "Next ›", "Delete this customer"])
        expect(
          texts.some((t) => t.startsWith(text)),
          text,
        ).toBe(true);
      if (viewport.width > 600) expect(texts).toContain("Ask the assistant");
      for (const button of seen) {
        expect(button.background, button.text).not.toBe(plain.background);
        expect(button.border, button.text).not.toBe(plain.border);
        expect(button.font, button.text).not.toBe(plain.font);
        expect(button.radius, button.text).not.toBe("0px");
        expect(button.sameFont, button.text).toBe(true);
        expect(button.cursor, button.text).toBe("pointer");
      }
    });
});
