/**
 * Debian's Chromium, driven by playwright-core: no browser is downloaded.
 * Without it the browser specs are reported skipped, with the line that
 * installs it.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

export const CHROMIUM = process.env.ELYRA_CHROMIUM ?? "/usr/bin/chromium";

/** Whether the browser specs can run here. */
export const haveChromium = existsSync(CHROMIUM);

/** The name a browser suite runs under, or why it is skipped and how to fix that. */
export const browserSuite = (name: string): string =>
  haveChromium
    ? name
    : `${name} (skipped: no Chromium at ${CHROMIUM}; install it with: apt-get update && apt-get install -y chromium)`;

/** Launches Chromium headless with the flags this machine needs. */
export const launch = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });

if (!haveChromium)
  console.warn(
    `The browser specs are skipped: no Chromium at ${CHROMIUM}. Install it with: apt-get update && apt-get install -y chromium`,
  );
