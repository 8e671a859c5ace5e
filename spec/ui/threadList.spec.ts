/**
 * Issue 33, item 6: the panel's list of conversations in Debian's Chromium,
 * against a real host over HTTP (docs/deploying.md's server, under its strict
 * Content-Security-Policy, serving the prebuilt module built from these
 * sources). From the keyboard alone: ask in two threads, open the list, see
 * both, search, open the first and see its log, rename it, archive it and
 * bring it back, delete the other after its question, start a new
 * conversation; axe-core finds no violation (of any impact) on the open list
 * and on the question. Then a page past the first: _Show more_.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createHost, type Host } from "elyra-assistant";
import { fakeModel, memoryStore } from "elyra-assistant/testing";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBrowserBundle } from "../../scripts/browserBundle.mjs";
import { injectAxe } from "../browser/axe.ts";
import { browserSuite, haveChromium } from "../browser/chromium.ts";
import { chromiumSession } from "../browser/session.ts";
import { app, type Member } from "../deploying/examples/app.ts";
import { serve } from "../deploying/examples/server.ts";

const { cleanup, newPage } = chromiumSession();
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ada: Member = { id: "u-1", name: "Ada", abilities: ["notes.view", "notes.delete"] };
const FIRST = "What is Ada Lovelace's credit limit?";
const SECOND = "Which invoices are overdue?";

let dir = "";
let panelModule = "";
beforeAll(async () => {
  if (!haveChromium) return;
  dir = mkdtempSync(join(tmpdir(), "elyra-threads-"));
  panelModule = join(dir, "bundle.js");
  await buildBrowserBundle(ROOT, { outfile: panelModule });
});
afterAll(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

/** A host on a memory store with `answers` scripted, served with the page; a page on it, the panel open. */
const open = async (
  answers: ReadonlyArray<string>,
  viewport: { readonly width: number; readonly height: number } = { width: 1000, height: 900 },
) => {
  let model = fakeModel();
  for (const answer of answers) model = model.says(answer);
  const store = memoryStore();
  const host = createHost(app, { model, store });
  const server = serve(host, {
    token: "page-token-0123456789",
    authenticate: (request) =>
      request.headers.get("cookie")?.includes("session=ada") ? ada : undefined,
    panelModule,
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const page = await newPage({ viewport });
  cleanup.push(async () => {
    await page.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await host.close();
  });
  await page.context().addCookies([{ name: "session", value: "ada", url: origin }]);
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource"))
      problems.push(message.text());
  });
  await page.goto(`${origin}/`);
  await panel(page).locator("button.launcher").waitFor();
  return { page, host, problems };
};

const panel = (page: Page) => page.locator("elyra-assistant-panel");

/**
 * axe-core's violations in the panel and its shadow root, of any impact
 * (minor and moderate too, not only the serious and critical ones the other
 * specs fail on), one a line: the rule, its impact and where.
 */
const violations = async (page: Page): Promise<string[]> => {
  await injectAxe(page);
  const found = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run: (c: unknown, o: unknown) => Promise<unknown> } }
    ).axe;
    const results = (await axe.run(
      { include: [["elyra-assistant-panel"]] },
      { resultTypes: ["violations"] },
    )) as { violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }> };
    return results.violations.map(
      (v) => `${v.id} (${v.impact}) at ${v.nodes.map((n) => JSON.stringify(n.target)).join(", ")}`,
    );
  });
  return found;
};

/** What has the focus, through the shadow root: its tag, class, text, label, and the name of its thread's item. */
const focused = (page: Page) =>
  page.evaluate(() => {
    let at = document.activeElement;
    while (at?.shadowRoot?.activeElement) at = at.shadowRoot.activeElement;
    return at === null
      ? null
      : {
          tag: at.tagName.toLowerCase(),
          cls: at.getAttribute("class") ?? "",
          text: (at.textContent ?? "").trim(),
          label: at.getAttribute("aria-label") ?? "",
          item: at.closest("li.thread")?.querySelector("button.open")?.textContent ?? "",
        };
  });
type Focused = NonNullable<Awaited<ReturnType<typeof focused>>>;

/** Presses Tab (or Shift+Tab) until what has the focus matches: the keyboard alone. */
const tabTo = async (page: Page, match: (f: Focused) => boolean, back = false) => {
  for (let i = 0; i < 60; i++) {
    const now = await focused(page);
    if (now !== null && match(now)) return;
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
  }
  throw new Error(
    `no element of the panel took the focus as asked; last: ${JSON.stringify(await focused(page))}`,
  );
};
const named = (cls: string, text?: string) => (f: Focused) =>
  f.cls.split(" ").includes(cls) && (text === undefined || f.text === text);
/** A button of the item of the thread named `item`. */
const inItem = (item: string, cls: string) => (f: Focused) =>
  f.tag === "button" && f.cls === cls && f.item === item;

const titles = (page: Page) => panel(page).locator("li.thread button.open").allTextContents();
const texts = (page: Page) =>
  panel(page).locator(".log .item.user, .log .item.answer .text").allTextContents();

/** The host has both threads in its list (its index is written after each turn). */
const indexed = async (host: Host, count: number) =>
  expect
    .poll(async () => (await host.threads.list({ user: ada })).threads.length, { timeout: 10_000 })
    .toBe(count);

/** Types `text` and Enter, then waits for the answer. */
const ask = async (page: Page, text: string, answer: string) => {
  await page.keyboard.type(text);
  await page.keyboard.press("Enter");
  await expect.poll(() => texts(page)).toContain(answer);
  await panel(page).locator("button.stop").waitFor({ state: "hidden" });
};

describe.skipIf(!haveChromium)(
  browserSuite("the panel's list of conversations in Chromium"),
  () => {
    it("from the keyboard alone: two threads, search, open, rename, archive, delete, a new one; axe finds nothing", async () => {
      const { page, host, problems } = await open([
        "Her credit limit is 20 000.",
        "Three invoices are overdue.",
      ]);
      // The launcher, then the text box.
      await tabTo(page, named("launcher"));
      await page.keyboard.press("Enter");
      await expect.poll(() => focused(page)).toMatchObject({ tag: "textarea" });
      await ask(page, FIRST, "Her credit limit is 20 000.");
      await tabTo(page, named("reset"), true);
      await page.keyboard.press("Enter");
      await expect.poll(() => focused(page)).toMatchObject({ tag: "textarea" });
      await expect.poll(() => texts(page)).toEqual([]);
      await ask(page, SECOND, "Three invoices are overdue.");
      await indexed(host, 2);

      // The list: both, the one shown marked, the search box focused.
      await tabTo(page, named("threads-button"), true);
      expect((await focused(page))?.label).toBe("Conversations");
      await page.keyboard.press("Enter");
      await expect.poll(() => focused(page)).toMatchObject({ cls: "thread-search" });
      await expect.poll(() => titles(page)).toEqual([SECOND, FIRST]);
      expect(
        await panel(page).locator("li.thread.current button.open").getAttribute("aria-current"),
      ).toBe("true");
      await expect
        .poll(() => panel(page).locator("li.thread time").first().textContent())
        .toBe("now");
      expect(await panel(page).locator("section.threads").textContent()).not.toMatch(
        /[0-9a-f]{32}/,
      );
      // The conversation and the text box give way to it.
      expect(await panel(page).locator("textarea").isVisible()).toBe(false);
      expect(await violations(page)).toEqual([]);

      // Search: the words around what matched.
      await page.keyboard.type("lovelace");
      await expect.poll(() => titles(page)).toEqual([FIRST]);
      expect(await panel(page).locator("li.thread .preview").textContent()).toContain("Lovelace");
      await expect
        .poll(() => panel(page).locator("p.threads-status").textContent())
        .toBe("1 conversation found.");
      await page.keyboard.press("Control+A");
      await page.keyboard.press("Backspace");
      await expect.poll(() => titles(page)).toEqual([SECOND, FIRST]);

      // Open the first: its log, from its start; the text box takes the focus.
      await tabTo(page, named("open", FIRST));
      // The focused one is seen: the outline of :focus-visible.
      const outline = await panel(page)
        .locator("li.thread button.open", { hasText: FIRST })
        .evaluate((b) => getComputedStyle(b).outlineStyle);
      expect(outline).toBe("solid");
      await page.keyboard.press("Enter");
      await expect.poll(() => focused(page)).toMatchObject({ tag: "textarea" });
      await expect.poll(() => texts(page)).toEqual([FIRST, "Her credit limit is 20 000."]);

      // Rename it: Escape cancels, Enter saves.
      await tabTo(page, named("threads-button"), true);
      await page.keyboard.press("Enter");
      await expect.poll(() => titles(page)).toHaveLength(2);
      await tabTo(page, inItem(FIRST, "rename"));
      await page.keyboard.press("Enter");
      await expect.poll(() => focused(page)).toMatchObject({ cls: "rename-field" });
      await page.keyboard.type(" (draft)");
      await page.keyboard.press("Escape");
      await expect.poll(() => focused(page)).toMatchObject({ cls: "rename", tag: "button" });
      await page.keyboard.press("Enter");
      await page.keyboard.press("Control+A");
      await page.keyboard.type("Ada's limit");
      await page.keyboard.press("Enter");
      await expect.poll(() => focused(page)).toMatchObject({ cls: "open", text: "Ada's limit" });
      expect(await titles(page)).toContain("Ada's limit");
      expect((await host.threads.list({ user: ada })).threads.map((t) => t.title)).toContain(
        "Ada's limit",
      );

      // Archive it; the Archived toggle lists it; bring it back.
      await tabTo(page, inItem("Ada's limit", "archive"));
      await page.keyboard.press("Enter");
      await expect.poll(() => titles(page)).toEqual([SECOND]);
      await tabTo(page, named("archived-toggle"), true);
      await page.keyboard.press("Space");
      await expect.poll(() => titles(page)).toEqual(["Ada's limit"]);
      expect(await panel(page).locator("section.threads h3").textContent()).toBe(
        "Archived conversations",
      );
      await tabTo(page, named("archive", "Bring back"));
      await page.keyboard.press("Enter");
      await expect.poll(() => titles(page)).toEqual([]);
      await tabTo(page, named("archived-toggle"), true);
      await page.keyboard.press("Space");
      await expect.poll(() => titles(page)).toHaveLength(2);

      // Delete the other, after its question: Escape cancels; Delete erases it.
      const other = panel(page).locator("li.thread", { hasText: SECOND });
      await tabTo(page, inItem(SECOND, "delete"));
      await page.keyboard.press("Enter");
      await expect.poll(() => focused(page)).toMatchObject({ cls: "confirm destructive" });
      expect(await other.locator("[role=dialog]").textContent()).toContain(
        "Delete this conversation for good?This cannot be undone.",
      );
      expect(await violations(page)).toEqual([]);
      await page.keyboard.press("Escape");
      await expect.poll(() => focused(page)).toMatchObject({ cls: "delete", text: "Delete" });
      expect(await other.locator("[role=dialog]").count()).toBe(0);
      await page.keyboard.press("Enter");
      await page.keyboard.press("Tab");
      expect(await focused(page)).toMatchObject({ cls: "decline", text: "Cancel" });
      await page.keyboard.press("Tab");
      expect(await focused(page)).toMatchObject({ cls: "accept destructive", text: "Delete" });
      await page.keyboard.press("Enter");
      await expect.poll(() => titles(page)).toEqual(["Ada's limit"]);
      await expect
        .poll(() => panel(page).locator("p.threads-status").textContent())
        .toBe("Deleted for good.");
      expect((await host.threads.list({ user: ada })).threads.map((t) => t.title)).toEqual([
        "Ada's limit",
      ]);

      // Escape closes the list and gives the focus back to its button; the panel stays open.
      await page.keyboard.press("Escape");
      await expect.poll(() => focused(page)).toMatchObject({ cls: "threads-button" });
      expect(await panel(page).locator("section.threads").isHidden()).toBe(true);
      expect(await panel(page).locator("textarea").isVisible()).toBe(true);

      // A new conversation from the list: empty, the text box focused.
      await page.keyboard.press("Enter");
      await tabTo(page, named("new-thread"), true);
      await page.keyboard.press("Enter");
      await expect.poll(() => focused(page)).toMatchObject({ tag: "textarea" });
      await expect.poll(() => texts(page)).toEqual([]);
      expect(await panel(page).locator(".welcome").isVisible()).toBe(true);
      expect(problems).toEqual([]);
    });

    it("pages past the first twenty with Show more", async () => {
      const answers = Array.from({ length: 22 }, (_, i) => `Answer ${i + 1}.`);
      const { page, host, problems } = await open(answers);
      for (let i = 1; i <= 22; i++) {
        const w = host.window(`seeded-${i}`, { user: ada });
        await w.prompt(`Question ${i}`);
        await w.settled();
      }
      await indexed(host, 20);
      await expect
        .poll(async () => (await host.threads.list({ user: ada, limit: 100 })).threads.length)
        .toBe(22);
      await panel(page).locator("button.launcher").click();
      await panel(page).locator("button.threads-button").click();
      await expect.poll(async () => (await titles(page)).length).toBe(20);
      expect((await titles(page))[0]).toBe("Question 22");
      const more = panel(page).locator("button.more");
      await more.click();
      await expect.poll(async () => (await titles(page)).length).toBe(22);
      expect((await titles(page)).slice(-2)).toEqual(["Question 2", "Question 1"]);
      expect(await focused(page)).toMatchObject({ cls: "open", text: "Question 2" });
      expect(await more.isHidden()).toBe(true);
      expect(problems).toEqual([]);
    });

    it("on a phone: the list fills the sheet, its buttons big enough for a finger, nothing sideways; axe finds nothing", async () => {
      const { page, host, problems } = await open(["Her credit limit is 20 000."], {
        width: 375,
        height: 700,
      });
      await panel(page).locator("button.launcher").click();
      await ask(page, FIRST, "Her credit limit is 20 000.");
      await indexed(host, 1);
      // The header still fits: New conversation is a glyph there, named in words.
      const reset = panel(page).locator("header button.reset");
      expect(await reset.getAttribute("aria-label")).toBe("New conversation");
      const close = await panel(page).locator("header button.close").boundingBox();
      expect((close?.x ?? 999) + (close?.width ?? 0)).toBeLessThanOrEqual(375);
      await panel(page).locator("button.threads-button").click();
      await expect.poll(() => titles(page)).toEqual([FIRST]);
      const view = panel(page).locator("section.threads");
      const box = await view.boundingBox();
      expect(box?.width ?? 0).toBeGreaterThan(370);
      expect(await view.evaluate((v) => v.scrollWidth <= v.clientWidth)).toBe(true);
      const heights = await view
        .locator("button")
        .evaluateAll((buttons) =>
          buttons
            .filter((b) => b.getClientRects().length > 0)
            .map((b) => b.getBoundingClientRect().height),
        );
      expect(heights.length).toBeGreaterThan(4);
      expect(Math.min(...heights)).toBeGreaterThanOrEqual(44);
      expect(await violations(page)).toEqual([]);
      await panel(page).locator("li.thread button.delete").click();
      expect(await violations(page)).toEqual([]);
      expect(problems).toEqual([]);
    });
  },
);
