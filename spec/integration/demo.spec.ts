/**
 * `npm start`: the example CRM comes up on the port it is given (0: a free
 * one, printed), with the demo model when no API key is set, serves its page
 * and its browser bundle, and answers a prompt over the assistant's routes.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = new URL("../..", import.meta.url).pathname;

let child: ChildProcess | undefined;
let url = "";
let output = "";
const dataDir = mkdtempSync(join(tmpdir(), "elyra-crm-"));

/** Runs `npm start` and waits for the line with the URL. */
const start = () =>
  new Promise<string>((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: "0", CRM_DATA_DIR: dataDir };
    delete env.ANTHROPIC_API_KEY;
    delete env.ANTHROPIC_AUTH_TOKEN;
    delete env.ELYRA_PROXY_URL;
    // Its own process group, so the server under npm and tsx stops with it.
    child = spawn("npm", ["start", "--silent"], { cwd: ROOT, env, detached: true });
    const timer = setTimeout(() => reject(new Error(`no URL in 45 s:\n${output}`)), 45_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /Elyra CRM: (http:\/\/localhost:\d+)/.exec(output);
      if (found && /Model: .*\n/.test(output)) {
        clearTimeout(timer);
        resolve(found[1] as string);
      }
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    child.once("exit", (code) => reject(new Error(`npm start exited (${code}):\n${output}`)));
  });

beforeAll(async () => {
  url = await start();
}, 60_000);

afterAll(async () => {
  if (child?.pid === undefined || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child?.once("exit", resolve));
  process.kill(-child.pid, "SIGTERM");
  await exited;
});

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
