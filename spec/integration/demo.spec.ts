/**
 * `npm start`: the example CRM comes up on the port it is given (0: a free
 * one, printed), with the demo model when no API key is set, serves its page
 * and its browser bundle, and answers a prompt over the assistant's routes.
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningScript, runScript } from "./npmScript.ts";

let running: RunningScript;
let url = "";
let output = "";
const dataDir = mkdtempSync(join(tmpdir(), "elyra-crm-"));

beforeAll(async () => {
  running = await runScript(
    "start",
    { PORT: "0", CRM_DATA_DIR: dataDir },
    /Elyra CRM: (http:\/\/localhost:\d+)/,
    /Model: .*\n/,
  );
  url = running.found;
  output = running.output();
}, 60_000);

afterAll(() => running?.stop());

describe("npm start: the example CRM", () => {
  it("prints the URL on the port it was given and says the demo model answers", () => {
    expect(url).toMatch(/^http:\/\/localhost:\d+$/);
    expect(url).not.toBe("http://localhost:0");
    expect(output).toContain("Model: the offline demo model");
    expect(existsSync(join(dataDir, "crm.db"))).toBe(true);
    expect(existsSync(join(dataDir, "assistant.db"))).toBe(true);
  });

  it("serves the page with the host's token and the demo notice on the panel", async () => {
    const response = await fetch(`${url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toMatch(/<meta name="elyra-token" content="[\w-]{20,}">/);
    expect(html).toContain(
      '<elyra-assistant-panel notice="Demo model: scripted answers, not Claude. Set ANTHROPIC_API_KEY to talk to Claude.">',
    );
    expect(html).toContain('<script type="module" src="/app.js"></script>');
  });

  it("serves the browser app, bundled with elyra-assistant/ui", async () => {
    const response = await fetch(`${url}/app.js`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/javascript/);
    const script = await response.text();
    expect(script).toContain("elyra-assistant-panel");
    expect(script).toContain("customers_index");
    expect(script).not.toMatch(/from\s*"elyra-assistant/);
  });

  it("answers a prompt through the assistant's routes, and refuses one without the token", async () => {
    const html = await (await fetch(`${url}/`)).text();
    const token = /name="elyra-token" content="([^"]+)"/.exec(html)?.[1] as string;
    const headers = { "x-elyra-token": token, "x-elyra-client": "demo-spec" };

    const refused = await fetch(`${url}/__assistant/prompt`, {
      method: "POST",
      headers: { "x-elyra-client": "demo-spec", "content-type": "application/json" },
      body: JSON.stringify({ text: "Which invoices are overdue?", route: "/invoices" }),
    });
    expect(refused.status).toBe(403);

    const accepted = await fetch(`${url}/__assistant/prompt`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ text: "Which invoices are overdue?", route: "/invoices" }),
    });
    expect(accepted.status).toBe(202);

    const events = await fetch(`${url}/__assistant/events`, {
      headers,
      signal: AbortSignal.timeout(20_000),
    });
    expect(events.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = (events.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let seen = "";
    while (!seen.includes('"_tag":"Answered"')) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += decoder.decode(value, { stream: true });
    }
    await reader.cancel();
    expect(seen).toContain('"tool":"invoices_index"');
    expect(seen).toMatch(/"_tag":"Answered".*invoices? (is|are) overdue/);
  });
});
