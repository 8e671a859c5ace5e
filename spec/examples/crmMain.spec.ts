/**
 * `npm start`'s entry (examples/crm/main.ts) run as a process: on a port that
 * is taken it says which, and how to pick another, rather than a stack.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SOURCE_NODE_ARGS } from "../fixtures/sourceNode.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("npm start (examples/crm/main.ts)", () => {
  it("on a port that is taken, says which and how to pick another, and exits 1", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as { port: number };
    const dir = mkdtempSync(join(tmpdir(), "elyra-crm-port-"));
    try {
      const child = spawn(process.execPath, [...SOURCE_NODE_ARGS, "examples/crm/main.ts"], {
        cwd: root,
        env: { ...process.env, PORT: String(port), CRM_DATA_DIR: dir, ANTHROPIC_API_KEY: "" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const [code] = (await once(child, "exit")) as [number];
      expect(code).toBe(1);
      expect(stderr).toContain(`port ${port} is taken`);
      expect(stderr).toContain(`PORT=${port + 1} npm start`);
      expect(stderr).toContain("PORT=0 npm start");
      expect(stderr).not.toContain("EADDRINUSE");
      expect(stderr).not.toMatch(/\n\s+at /);
    } finally {
      taken.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
