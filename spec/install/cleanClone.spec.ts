/**
 * The first hour, on a fresh clone: the repository's committed HEAD cloned
 * into an empty folder, with no data folder, no build output and none of this
 * machine's environment (a new HOME, no key, no `CRM_DATA_DIR`, no npm
 * settings). There, as the README says:
 *
 * - `npm start` prints its URL, the page loads in Chromium, a question to the
 *   demo model is answered, and SIGTERM to npm (what `kill`, a process
 *   manager or a container stop sends) stops the server: the port is free
 *   and no process of it is left;
 * - `npm run demo` exits 0;
 * - `npm run -s mcp`, started by the official MCP client over stdio, lists
 *   the tools with nothing but protocol on stdout.
 *
 * The clone's `node_modules` is a link to this checkout's (installing takes
 * minutes; `.ci/run` proves `npm ci` on its own clean clone). Set
 * `ELYRA_CLEAN_CLONE_INSTALL=1` to run `npm ci` in the clone instead.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserSuite, haveChromium } from "../browser/chromium.ts";
import { chromiumSession } from "../browser/session.ts";

const checkout = fileURLToPath(new URL("../..", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "elyra-clean-clone-"));
const clone = join(root, "elyra-assistant");
const home = join(root, "home");

/** A stranger's environment: a PATH and an empty HOME, nothing else of this machine's. */
const strangerEnv = (extra: Readonly<Record<string, string>> = {}): Record<string, string> => ({
  PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
  HOME: home,
  LANG: "C.UTF-8",
  TMPDIR: tmpdir(),
  ...extra,
});

beforeAll(() => {
  // The committed HEAD, as `git clone` gives it: git-ignored folders (.data/, dist/) are absent.
  execFileSync("git", ["clone", "--quiet", "--no-hardlinks", checkout, clone], { stdio: "pipe" });
  mkdirSync(home);
  if (process.env.ELYRA_CLEAN_CLONE_INSTALL === "1")
    execFileSync("npm", ["ci", "--no-audit", "--no-fund"], {
      cwd: clone,
      env: strangerEnv(),
      stdio: "pipe",
    });
  else symlinkSync(join(checkout, "node_modules"), join(clone, "node_modules"), "dir");
}, 600_000);

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const { cleanup, newPage } = chromiumSession();

/** A port nothing listens on now. */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

/** Whether something listens on the port (a listen there fails with EADDRINUSE). */
const listening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(true));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(false)));
  });

/** The name of a customer as the clone's own CRM database has it. */
const customerName = (id: number): string => {
  const db = new Database(join(clone, "examples", "crm", ".data", "crm.db"), { readonly: true });
  try {
    return (db.prepare("SELECT name FROM customers WHERE id = ?").get(id) as { name: string }).name;
  } finally {
    db.close();
  }
};

/** Whether any process of the group `pgid` is still alive. */
const groupAlive = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};

interface Started {
  readonly child: ChildProcess;
  readonly output: () => string;
}

/** `npm <args>` in the clone, in its own process group, resolved once `ready` shows in its output. */
const start = (args: ReadonlyArray<string>, env: Record<string, string>, ready: RegExp) =>
  new Promise<Started>((resolve, reject) => {
    const child = spawn("npm", args, { cwd: clone, env: strangerEnv(env), detached: true });
    let output = "";
    const timer = setTimeout(() => reject(new Error(`not up in 90 s:\n${output}`)), 90_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve({ child, output: () => output });
      }
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(`npm ${args.join(" ")} exited (${code ?? signal}) before it was up:\n${output}`),
      );
    });
  });

describe("a fresh clone, as the README's quick start", () => {
  it("has no data folder and no build output before it starts", () => {
    expect(existsSync(join(clone, "package.json"))).toBe(true);
    expect(existsSync(join(clone, "examples", "crm", ".data"))).toBe(false);
    expect(existsSync(join(clone, "dist"))).toBe(false);
  });

  it.skipIf(!haveChromium)(
    browserSuite(
      "npm start: the page answers a question from the demo model, and SIGTERM to npm frees the port",
    ),
    async () => {
      const port = await freePort();
      const { child, output } = await start(
        ["start"],
        { PORT: String(port) },
        /Assistant log: .*\n/,
      );
      const pgid = child.pid as number;
      cleanup.push(() => {
        if (groupAlive(pgid)) process.kill(-pgid, "SIGKILL");
      });
      const url = /Elyra CRM: (http:\/\/\S+)/.exec(output())?.[1] as string;
      expect(url).toBe(`http://localhost:${port}`);
      expect(output()).toContain("Model: the offline demo model");
      expect(output()).not.toMatch(/did not start|Error:|EBADENGINE|^\s*\{/m);

      const page = await newPage();
      cleanup.push(() => page.close());
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(String(error)));
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(message.text());
      });
      await page.goto(`${url}/#/customers`);
      const box = page.locator("elyra-assistant-panel textarea");
      await box.waitFor();
      // The seed's first customer, asked for by surname: the answer names them in full.
      const name = customerName(1);
      await box.fill(`Find ${name.split(" ").at(-1)}`);
      await box.press("Enter");
      const answer = page.locator("elyra-assistant-panel .item.answer").last();
      // Answered: written out (no longer aria-busy), and about the customer asked for.
      await expect
        .poll(
          async () =>
            (await answer.count()) > 0 && (await answer.getAttribute("aria-busy")) !== "true"
              ? ((await answer.locator(".text").textContent()) ?? "")
              : "",
          { timeout: 30_000 },
        )
        .toContain(name);
      expect(existsSync(join(clone, "examples", "crm", ".data", "assistant.db"))).toBe(true);
      expect(errors).toEqual([]);

      // SIGTERM to npm alone, as `kill <pid>` of `npm start` sends it.
      const exited = new Promise<number | null>((done) => child.once("exit", done));
      process.kill(pgid, "SIGTERM");
      await exited;
      await expect.poll(() => listening(port), { timeout: 15_000 }).toBe(false);
      await expect.poll(() => groupAlive(pgid), { timeout: 15_000 }).toBe(false);
      expect(output()).toContain("Elyra CRM stopped");
    },
    180_000,
  );

  it("npm run demo exits 0", () => {
    const printed = execFileSync("npm", ["run", "demo"], {
      cwd: clone,
      env: strangerEnv(),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    expect(printed).toContain("customers_show");
  }, 120_000);

  it("npm run -s mcp: the official MCP client lists the tools, and stdout is only protocol", async () => {
    const transport = new StdioClientTransport({
      command: "npm",
      args: ["run", "-s", "mcp"],
      cwd: clone,
      env: strangerEnv(),
      stderr: "pipe",
    });
    // A line on stdout that is not JSON-RPC fails to parse: the client's onerror hears of it.
    const notProtocol: string[] = [];
    const client = new Client({ name: "clean-clone-spec", version: "1.0.0" });
    client.onerror = (error) => notProtocol.push(String(error));
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("customers_index");
      expect(notProtocol).toEqual([]);
    } finally {
      await client.close();
    }
  }, 120_000);
});
