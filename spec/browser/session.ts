/**
 * One Chromium for a spec file: launched before its tests when this machine
 * has one, closed after them; what a test pushes on `cleanup` runs after it,
 * last first (pages, servers, temporary directories).
 */
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll } from "vitest";
import { haveChromium, launch } from "./chromium.ts";

export const chromiumSession = () => {
  let browser: Browser | undefined;
  const cleanup: Array<() => Promise<unknown> | unknown> = [];
  beforeAll(async () => {
    if (haveChromium) browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f();
  });
  /** A new page of this file's Chromium. */
  const newPage = (options?: BrowserContextOptions): Promise<Page> => {
    if (browser === undefined)
      throw new Error("Chromium is not running: no browser spec runs here");
    return browser.newPage(options);
  };
  return { cleanup, newPage };
};
