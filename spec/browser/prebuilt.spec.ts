/**
 * The prebuilt panel module (`elyra-assistant/ui/bundle.js`) in a page with
 * no bundler, in Chromium: docs/deploying.md's server (spec/deploying/examples)
 * serves it as it is, with the page's own module importing it by URL, under
 * a Content-Security-Policy that allows no inline style or script. The panel
 * renders styled, talks to its assistantHttp host, and the page reports no
 * CSP violation and loads nothing but its own origin's files.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createHost } from "elyra-assistant";
import { fakeModel } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import { buildBrowserBundle } from "../../scripts/browserBundle.mjs";
import { app, type Member } from "../deploying/examples/app.ts";
import { CSP, serve } from "../deploying/examples/server.ts";
import { storeFrom } from "../deploying/examples/store.ts";
import { browserSuite, haveChromium } from "./chromium.ts";
import { chromiumSession } from "./session.ts";

const { cleanup, newPage } = chromiumSession();
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ada: Member = { id: "u-1", name: "Ada", abilities: ["notes.view", "notes.delete"] };

describe.skipIf(!haveChromium)(browserSuite("the prebuilt panel module in Chromium"), () => {
  it("loads with no bundler under a strict CSP, renders styled and runs a turn", async () => {
    const dir = mkdtempSync(join(tmpdir(), "elyra-prebuilt-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const panelModule = join(dir, "bundle.js");
    await buildBrowserBundle(ROOT, { outfile: panelModule });
    const store = await storeFrom({ ASSISTANT_DB: join(dir, "assistant.db") });
    const model = fakeModel().toolCall("notes_index", {}).says("You have one note: call Ada.");
    const host = createHost(app, { model, store });
    const server = serve(host, {
      token: "page-token-0123456789",
      // The session: a cookie, in this spec.
      authenticate: (request) =>
        request.headers.get("cookie")?.includes("session=ada") ? ada : undefined,
      panelModule,
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanup.push(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await host.close();
      await store.close?.();
    });
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const page = await newPage();
    cleanup.push(() => page.close());
    await page.context().addCookies([{ name: "session", value: "ada", url: origin }]);
    const problems: string[] = [];
    page.on("console", (message) => {
      // A refused request is told below, by its response.
      if (message.text().startsWith("Failed to load resource")) return;
      if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
    });
    page.on("response", (answer) => {
      // This host keeps no user's key: `POST /source` answers 404 and the panel shows no settings.
      if (answer.status() >= 400 && !answer.url().endsWith("/__assistant/source"))
        problems.push(`${answer.status()}: ${answer.url()}`);
    });
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("requestfailed", (request) => problems.push(`failed: ${request.url()}`));
    const requested: string[] = [];
    page.on("request", (request) => requested.push(request.url()));
    // Installed through the DevTools protocol, which the page's CSP does not govern.
    await page.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (event) => {
        const seen = window as { violations?: string[] };
        seen.violations = [
          ...(seen.violations ?? []),
          `${event.violatedDirective} ${event.blockedURI}`,
        ];
      });
    });

    const response = await page.goto(`${origin}/`);
    expect(response?.headers()["content-security-policy"]).toBe(CSP);
    expect(CSP).not.toContain("unsafe-inline");
    const launcher = page.locator("elyra-assistant-panel button.launcher");
    await launcher.waitFor();

    // Styled: the adopted sheet applies (an inline <style> would be refused by this CSP).
    const look = await launcher.evaluate((button) => {
      const style = getComputedStyle(button);
      return { background: style.backgroundColor, color: style.color };
    });
    expect(look).toEqual({ background: "rgb(79, 70, 229)", color: "rgb(255, 255, 255)" });

    await launcher.click();
    const box = page.locator("elyra-assistant-panel textarea");
    await box.fill("What notes do I have?");
    await box.press("Enter");
    await expect
      .poll(() => page.locator("elyra-assistant-panel .item.answer").textContent())
      .toBe("You have one note: call Ada.");
    await expect
      .poll(() => page.locator("elyra-assistant-panel .step.ok .tool").textContent())
      .toBe("notes_index");
    const panelLook = await page
      .locator("elyra-assistant-panel .panel")
      .evaluate((panel) => getComputedStyle(panel).borderTopLeftRadius);
    expect(panelLook).toBe("10px");

    expect(
      await page.evaluate(() => (window as { violations?: string[] }).violations ?? []),
    ).toEqual([]);
    expect(problems).toEqual([]);
    // Nothing but this origin's own files: the module imported nothing by a bare name.
    const paths = requested.map((url) => {
      expect(url.startsWith(`${origin}/`)).toBe(true);
      return new URL(url).pathname;
    });
    expect([...new Set(paths.filter((path) => !path.startsWith("/__assistant/")))].sort()).toEqual([
      "/",
      "/assets/assistant.js",
      "/assets/elyra-assistant.js",
    ]);
    expect(paths).toContain("/__assistant/prompt");
  });
});
