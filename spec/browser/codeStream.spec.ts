/**
 * Code mode in real Chromium (issue 19, item 5): the example CRM over HTTP
 * and SSE, on a scripted model that writes its code in pieces, 40 ms apart.
 * The panel shows the script while its step still runs, "Writing code…" with
 * part of the code, the code growing in the same element; then "Ran code"
 * with the whole code, its call and its output.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { codeFinished, codeRuns, fakeModel } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import { startCrm } from "../../examples/crm/server.ts";
import { browserSuite, haveChromium } from "./chromium.ts";
import { chromiumSession } from "./session.ts";

const { cleanup, newPage } = chromiumSession();

const CODE = `invoices = await invoices_index({"overdue": True})
late = [i for i in invoices if i["amount"] > 1000]
print(f"{len(late)} of {len(invoices)} overdue invoices are over \\u20ac1 000")`;

/** What the panel's script shows, read at one moment. */
interface Shown {
  readonly summary: string;
  readonly code: string;
}

describe.skipIf(!haveChromium)(browserSuite("code streamed in Chromium"), () => {
  it("the script shows with part of its code while the step runs, the code growing in place, then Ran code", async () => {
    const json = JSON.stringify({ code: CODE });
    const splitAt = Array.from({ length: Math.ceil(json.length / 6) }, (_, i) => (i + 1) * 6);
    const model = fakeModel([], { paceMs: 40 })
      .respond(
        codeRuns(CODE, [{ name: "invoices_index", input: { overdue: true } }], {
          text: "I'll count them in code.",
          splitAt,
        }),
      )
      .respond(codeFinished({ stdout: "3 of 9 overdue invoices are over €1 000" }, "Three are."));
    const dir = mkdtempSync(join(tmpdir(), "elyra-crm-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const running = await startCrm({ port: 0, dataDir: dir, model, notice: null });
    cleanup.push(running.close);
    const page = await newPage();
    cleanup.push(() => page.close());
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${running.url}/#/invoices`);
    const box = page.locator("elyra-assistant-panel textarea");
    await box.fill("How many overdue invoices are over 1 000?");
    await box.press("Enter");

    /** The script as shown now, or null before it shows. */
    const shown = () =>
      page.evaluate((): Shown | null => {
        const script = document
          .querySelector("elyra-assistant-panel")
          ?.shadowRoot?.querySelector("details.script");
        const code = script?.querySelector("pre.code > code");
        if (script == null || code == null) return null;
        return {
          summary: script.querySelector("summary")?.textContent ?? "",
          code: code.textContent ?? "",
        };
      });

    // While Claude writes: the script is there with part of its code, its step not ended. Its
    // `<code>` is marked, to tell at the end whether it is the same element.
    const partial = await page.waitForFunction(
      (whole) => {
        const script = document
          .querySelector("elyra-assistant-panel")
          ?.shadowRoot?.querySelector("details.script");
        const code = script?.querySelector("pre.code > code");
        const text = code?.textContent ?? "";
        if (script == null || code == null) return null;
        code.setAttribute("data-seen", "1");
        const summary = script.querySelector("summary")?.textContent;
        return summary === "Writing code…" && text.length > 0 && text.length < whole.length
          ? { code: text, busy: script.getAttribute("aria-busy") }
          : null;
      },
      CODE,
      { polling: 10, timeout: 15_000 },
    );
    const early = (await partial.jsonValue()) as { code: string; busy: string | null };
    expect(CODE.startsWith(early.code)).toBe(true);
    expect(early.busy).toBe("true");

    // It grows, in the same element, while it is still being written.
    await expect
      .poll(async () => {
        const now = await shown();
        return (
          now !== null && now.summary === "Writing code…" && now.code.length > early.code.length
        );
      })
      .toBe(true);

    // Then the whole code, run: its call, its output.
    await expect
      .poll(async () => (await shown())?.summary, { timeout: 15_000 })
      .toBe("Ran code · 1 call");
    const done = await page.evaluate(() => {
      const script = document
        .querySelector("elyra-assistant-panel")
        ?.shadowRoot?.querySelector("details.script");
      return {
        code: script?.querySelector("pre.code > code")?.textContent,
        // Patched in place: the `<code>` the spec marked while the code was written.
        marked: script?.querySelector("pre.code > code")?.getAttribute("data-seen"),
        busy: script?.getAttribute("aria-busy"),
        calls: script?.querySelectorAll(".calls li").length,
        output: script?.querySelector("pre.output")?.textContent,
        scripts: document
          .querySelector("elyra-assistant-panel")
          ?.shadowRoot?.querySelectorAll("details.script").length,
      };
    });
    expect(done).toEqual({
      code: CODE,
      marked: "1",
      busy: null,
      calls: 1,
      output: "3 of 9 overdue invoices are over €1 000",
      scripts: 1,
    });
    expect(errors).toEqual([]);
  });
});
