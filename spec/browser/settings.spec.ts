/**
 * The panel's settings (bring your own key) on the example CRM in real
 * Chromium, from the keyboard alone: Tab to _Settings_, open it, type a key,
 * Enter saves it, the source shown becomes the user's key; _Forget my key_
 * brings back the one before. The CRM runs as `npm start` does with no
 * variables set: the offline demo model, and users' keys kept in memory.
 *
 * Nothing reaches the internet: no prompt is sent after the key is saved (it
 * would go to Claude with the fake key), and while the spec runs this
 * process's `fetch` refuses any host but the CRM's, so a step that tried
 * would fail here rather than reach api.anthropic.com.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { DEMO_NOTICE } from "../../examples/crm/demoModel.ts";
import { startCrm } from "../../examples/crm/server.ts";
import { browserSuite, haveChromium, launch } from "./chromium.ts";

/**
 * A fake key, shaped as the host asks (`sk-ant-…`) but too short for a key
 * scanner to take for one: it never leaves this machine.
 */
const FAKE_KEY = "sk-ant-FAKE-not-a-real-key-0000";

let browser: Browser;
const cleanup: Array<() => Promise<unknown> | unknown> = [];

beforeAll(async () => {
  if (haveChromium) browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
  vi.restoreAllMocks();
});

/** This process's requests to any host but loopback: refused, and recorded. */
const guardNetwork = (): string[] => {
  const outside: string[] = [];
  const real = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.hostname === "localhost" || url.hostname === "127.0.0.1") return real(input, init);
    outside.push(url.href);
    throw new TypeError(`the settings spec reaches no host but the CRM's: ${url.host}`);
  });
  return outside;
};

/** Everything the server wrote to the console while the spec ran. */
const captureConsole = (): string[] => {
  const lines: string[] = [];
  for (const method of ["log", "info", "warn", "error", "debug"] as const)
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      lines.push(args.map(String).join(" "));
    });
  return lines;
};

/** The CRM as `npm start` runs it with no variables (the demo model, keys in memory), and a page on it. */
const crm = async () => {
  const dir = mkdtempSync(join(tmpdir(), "elyra-settings-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const running = await startCrm({ port: 0, dataDir: dir, env: {} });
  cleanup.push(running.close);
  const page = await browser.newPage();
  cleanup.push(() => page.close());
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const requests: string[] = [];
  page.on("request", (r) => requests.push(r.url()));
  await page.goto(`${running.url}/#/customers`);
  await page.locator("elyra-assistant-panel textarea").waitFor();
  await page.locator('main a[href^="#/customers/"]').first().waitFor();
  return { running, page, errors, requests };
};

/** The focused element, inside shadow roots too: `tag.class[aria-label]`, or its text. */
const focused = (page: Page) =>
  page.evaluate(() => {
    let active = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    if (active === null) return "nothing";
    const label = active.getAttribute("aria-label") ?? active.textContent?.trim() ?? "";
    return `${active.tagName.toLowerCase()}${active.id ? `#${active.id}` : ""}[${label}]`;
  });

/** Presses `key` until the focus is on `target`, at most `max` times. */
const pressUntil = async (page: Page, key: string, target: string, max = 40) => {
  for (let i = 0; i < max; i += 1) {
    if ((await focused(page)) === target) return;
    await page.keyboard.press(key);
  }
  throw new Error(`${key} never reached ${target}; the focus is on ${await focused(page)}`);
};

/** All the page's text, attribute values and field values, the panel's shadow root included. */
const everythingShown = (page: Page) =>
  page.evaluate(() => {
    const parts: string[] = [document.documentElement.outerHTML];
    const walk = (root: Document | ShadowRoot) => {
      for (const element of root.querySelectorAll("*")) {
        parts.push(element.textContent ?? "");
        for (const attribute of element.attributes) parts.push(attribute.value);
        if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement)
          parts.push(element.value);
        if (element.shadowRoot !== null) walk(element.shadowRoot);
      }
    };
    walk(document);
    return parts.join("\n");
  });

const panel = (page: Page) => page.locator("elyra-assistant-panel");

describe.skipIf(!haveChromium)(browserSuite("the panel's settings in Chromium"), () => {
  it("from the keyboard alone: Tab to Settings, type a key, Enter saves it, the source follows; Forget brings back the one before", async () => {
    const outside = guardNetwork();
    const logged = captureConsole();
    const { page, errors, requests, running } = await crm();
    const settings = panel(page).getByRole("button", { name: "Settings" });
    await settings.waitFor();
    const source = panel(page).locator(".settings .source");
    const status = panel(page).locator(".settings").getByRole("status");

    // Tab from the top of the page to the header's "Ask the assistant", which puts the focus in
    // the panel's text box; Shift+Tab goes back from there up to the panel's Settings button.
    await pressUntil(page, "Tab", "button#ask[Ask the assistant]");
    await page.keyboard.press("Enter");
    await expect.poll(() => focused(page)).toBe("textarea[Message]");
    await pressUntil(page, "Shift+Tab", "button[Settings]", 10);
    expect(await settings.getAttribute("aria-expanded")).toBe("false");
    await page.keyboard.press("Enter");
    expect(await settings.getAttribute("aria-expanded")).toBe("true");
    await expect.poll(() => focused(page)).toBe("input#settings-key[]");
    // One source of truth (issue 28): while the demo answers, settings says so, as the banner does.
    const banner = panel(page).locator(".notice");
    await expect.poll(() => source.textContent()).toBe("Answering now: the app's own model");
    expect(await banner.textContent()).toBe(DEMO_NOTICE);

    await page.keyboard.type(FAKE_KEY);
    await page.keyboard.press("Enter");
    await expect
      .poll(() => status.textContent())
      .toBe("Your key is saved. It is never shown again.");
    await expect
      .poll(() => source.textContent())
      .toBe("Answering now: Claude, with your own API key");
    // The user's key answers now, not the demo: the banner goes.
    await expect.poll(() => banner.isVisible()).toBe(false);
    expect(await panel(page).locator("#settings-key").inputValue()).toBe("");
    expect(await everythingShown(page)).not.toContain(FAKE_KEY);

    // Tab on to "Forget my key" (past Save key); Enter forgets, and the source is the one before.
    await pressUntil(page, "Tab", "button[Forget my key]", 4);
    await page.keyboard.press("Enter");
    await expect.poll(() => status.textContent()).toBe("Your key is forgotten.");
    await expect.poll(() => source.textContent()).toBe("Answering now: the app's own model");
    await expect.poll(() => banner.textContent()).toBe(DEMO_NOTICE);
    expect(await banner.isVisible()).toBe(true);

    // Escape closes the settings (not the panel) and the focus is back on Settings.
    await page.keyboard.press("Escape");
    await expect.poll(() => settings.getAttribute("aria-expanded")).toBe("false");
    expect(await focused(page)).toBe("button[Settings]");
    expect(await panel(page).locator("section.panel").isVisible()).toBe(true);

    expect(errors).toEqual([]);
    expect(requests.every((url) => url.startsWith(running.url))).toBe(true);
    expect(outside).toEqual([]);
    expect(logged.join("\n")).not.toContain(FAKE_KEY);
  });
});
