/**
 * `npm run proxy` (examples/crm/proxyMain.ts) without a key: the proxy
 * forwards to its offline stand-in, and the panel and the terminal say so.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { OFFLINE_PROXY_NOTICE } from "../../examples/crm/modelSource.ts";
import { SOURCE_NODE_ARGS } from "../fixtures/sourceNode.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("npm run proxy without a key", () => {
  it("shows the offline stand-in's notice in the panel and names it as the model", async () => {
    const dir = mkdtempSync(join(tmpdir(), "elyra-crm-proxy-"));
    const child = spawn(process.execPath, [...SOURCE_NODE_ARGS, "examples/crm/proxyMain.ts"], {
      cwd: root,
      env: { ...process.env, PORT: "0", PROXY_PORT: "0", CRM_DATA_DIR: dir, ANTHROPIC_API_KEY: "" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      const lines: string[] = [];
      const reader = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> });
      let url: string | undefined;
      for await (const line of reader) {
        lines.push(line);
        url ??= /^Elyra CRM: (\S+)/.exec(line)?.[1];
        if (line.startsWith("Proxy: ")) break;
      }
      expect(lines.join("\n")).toMatch(/Model: an offline stand-in of the Messages API/);
      const html = await (await fetch(`${url}/`)).text();
      expect(html).toContain(`notice="${OFFLINE_PROXY_NOTICE}"`);
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
