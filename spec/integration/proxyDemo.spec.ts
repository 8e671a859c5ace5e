/**
 * `npm run proxy`: the example CRM with its model behind a local backend
 * proxy. Without a key the proxy forwards to an offline stand-in, so the
 * whole path (browser routes → host → SDK with a bearer token → proxy →
 * upstream) answers a prompt, and the host's environment holds no key.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningScript, runScript } from "./npmScript.ts";

let running: RunningScript;
let url = "";
const output = () => running.output();

beforeAll(async () => {
  running = await runScript(
    "proxy",
    { PORT: "0", PROXY_PORT: "0", CRM_DATA_DIR: mkdtempSync(join(tmpdir(), "elyra-crm-proxy-")) },
    /Elyra CRM: (http:\/\/localhost:\d+)/,
    /Proxy: .*\n/,
  );
  url = running.found;
}, 60_000);

afterAll(() => running?.stop());

describe("npm run proxy: the CRM's model behind a local proxy", () => {
  it("says the host talks to the proxy, and answers a prompt through it", async () => {
    expect(output()).toMatch(
      /Model: an offline stand-in of the Messages API, through the proxy at http:\/\/127\.0\.0\.1:\d+/,
    );
    expect(output()).toMatch(
      /Proxy: http:\/\/127\.0\.0\.1:\d+\/v1\/messages → an offline stand-in/,
    );

    const html = await (await fetch(`${url}/`)).text();
    // The panel says that the stand-in answers, not Claude.
    expect(html).toContain('notice="Offline stand-in: ');
    const token = /name="elyra-token" content="([^"]+)"/.exec(html)?.[1] as string;
    const headers = { "x-elyra-token": token, "x-elyra-client": "proxy-spec" };
    const accepted = await fetch(`${url}/__assistant/prompt`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ text: "Hello", route: "/customers" }),
    });
    expect(accepted.status).toBe(202);
    const events = await fetch(`${url}/__assistant/events`, {
      headers,
      signal: AbortSignal.timeout(20_000),
    });
    const reader = (events.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let seen = "";
    while (!/"_tag":"(Answered|Failed)"/.test(seen)) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += decoder.decode(value, { stream: true });
    }
    await reader.cancel();
    expect(seen).toMatch(/"_tag":"Answered".*came through the local proxy/);
    await expect.poll(() => output()).toMatch(/proxy: claude-sonnet-5-5 used \d+ in, \d+ out/);
  });
});
