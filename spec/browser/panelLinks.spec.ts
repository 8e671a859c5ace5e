/**
 * U2 in the browser: whatever links a host's events carry (`javascript:`,
 * `//evil`, `https://evil`, `/\evil`, encoded tricks), the panel follows none
 * off the app. The page is the UI bundle on a stand-in host that streams
 * crafted events over SSE, as a compromised or older host might.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserSuite, haveChromium, launch } from "./chromium.ts";

const HOSTILE = [
  "javascript:window.__pwned=1",
  "JaVaScRiPt:window.__pwned=2",
  "//evil.example/x",
  "https://evil.example/x",
  "/\\evil.example",
  "/%2F%2Fevil.example",
  "/%5Cevil.example",
  "data:text/html,<script>window.__pwned=3</script>",
  " /leading-space",
  "/ok/../../x",
  "\u0000/nul",
  "/customers/7",
];

/** The crafted log: a turn whose tool steps carry the hostile links, one failed step with a good link. */
const events = (): ReadonlyArray<Record<string, unknown>> => {
  const out: Array<Record<string, unknown>> = [
    { _tag: "TurnStarted", turn: 1, text: "links", route: null, note: null },
    { _tag: "StepStarted", turn: 1, step: 1 },
  ];
  HOSTILE.forEach((link, i) => {
    out.push({
      _tag: "ToolStarted",
      turn: 1,
      callId: `c${i}`,
      tool: `tool_${i}`,
      caller: { type: "direct" },
    });
    out.push({ _tag: "ToolFinished", turn: 1, callId: `c${i}`, ok: true, outcome: "ok", link });
  });
  out.push({
    _tag: "ToolStarted",
    turn: 1,
    callId: "failed",
    tool: "tool_failed",
    caller: { type: "direct" },
  });
  out.push({
    _tag: "ToolFinished",
    turn: 1,
    callId: "failed",
    ok: false,
    outcome: "failed",
    link: "/customers/8",
  });
  out.push({ _tag: "Answered", turn: 1, text: "Done." });
  return out.map((e, i) => ({ seq: i + 1, at: 0, ...e }));
};

let browser: Browser;
let server: Server;
let url: string;

beforeAll(async () => {
  if (!haveChromium) return;
  const entry = `
    import { assistantClient, createAssistantStore, defineAssistantPanel } from ${JSON.stringify(fileURLToPath(new URL("../../src/ui.ts", import.meta.url)))};
    defineAssistantPanel();
    const store = createAssistantStore(assistantClient({ token: "t", clientId: "c" }), { open: true });
    document.querySelector("elyra-assistant-panel").store = store;
  `;
  const bundle = await build({
    stdin: {
      contents: entry,
      resolveDir: fileURLToPath(new URL(".", import.meta.url)),
      loader: "ts",
    },
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    logLevel: "silent",
  });
  const js = bundle.outputFiles[0]?.text ?? "";
  server = createServer((req, res) => {
    if (req.url?.startsWith("/__assistant/events")) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      for (const e of events()) res.write(`id: ${e.seq}\ndata: ${JSON.stringify(e)}\n\n`);
      return;
    }
    if (req.url === "/ui.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(js);
      return;
    }
    res.writeHead(200, { "content-type": "text/html" });
    res.end(
      '<!doctype html><title>links</title><elyra-assistant-panel></elyra-assistant-panel><script type="module" src="/ui.js"></script>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

describe.skipIf(!haveChromium)(browserSuite("U2: the panel's links in Chromium"), () => {
  it("makes an in-app hash link only of a single-slash app path of a step that succeeded, and follows nothing off the app", async () => {
    const page = await browser.newPage();
    const popups: string[] = [];
    page.on("popup", (p) => popups.push(p.url()));
    const requests: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    await page.goto(url);
    const steps = page.locator("elyra-assistant-panel .step");
    await expect.poll(() => steps.count()).toBe(HOSTILE.length + 1);
    const hrefs = await page
      .locator("elyra-assistant-panel a")
      .evaluateAll((links) => links.map((a) => a.getAttribute("href")));
    // Only in-page hash links of single-slash app paths: a percent-encoded "//" stays a path.
    for (const href of hrefs) expect(href).toMatch(/^#\/(?![/\\])[^\s\\]*$/);
    expect(hrefs).toContain("#/customers/7");
    expect(hrefs).not.toContain("#/customers/8"); // the failed step has none
    for (const bad of ["javascript", "data:", "evil.example/x", "#//", "\\"])
      expect(hrefs.some((h) => h?.toLowerCase().includes(bad))).toBe(false);

    // Click every link and every step: none leaves the page, opens a window or runs script.
    const links = page.locator("elyra-assistant-panel a");
    for (let i = 0; i < (await links.count()); i++) {
      await links.nth(i).click();
      expect(await page.evaluate(() => location.hash)).toBe(hrefs[i]);
    }
    const count = await steps.count();
    for (let i = 0; i < count; i++) await steps.nth(i).click();
    expect(new URL(page.url()).origin).toBe(new URL(url).origin);
    expect(popups).toEqual([]);
    expect(requests.every((r) => r.startsWith(url))).toBe(true);
    expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
    await page.close();
  });
});
