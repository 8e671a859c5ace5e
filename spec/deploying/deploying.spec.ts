/**
 * docs/deploying.md's samples are the files under ./examples, each quoted
 * whole (a block marked `<!-- spec/deploying/examples/<file> -->`), and they
 * run here: the durable store on SQLite and PostgreSQL, where the model comes
 * from, spans of a turn, erasing a window, and the whole server answering
 * its page under its CSP. The page in Chromium is spec/browser/prebuilt.spec.ts.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { trace } from "@opentelemetry/api";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { createHost } from "elyra-assistant";
import { fakeModel } from "elyra-assistant/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BUNDLE_FILE, buildBrowserBundle } from "../../scripts/browserBundle.mjs";
import {
  havePostgres,
  type PostgresServer,
  postgresSuite,
  startPostgres,
} from "../adapters/postgresServer.ts";
import { app, type Member } from "./examples/app.ts";
import { eraseWindow } from "./examples/erase.ts";
import { start } from "./examples/main.ts";
import { modelFrom } from "./examples/model.ts";
import { CSP } from "./examples/server.ts";
import { storeFrom } from "./examples/store.ts";
import { startTracing } from "./examples/tracing.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ada: Member = { id: "u-1", name: "Ada", abilities: ["notes.view", "notes.delete"] };
const grace: Member = { id: "u-2", name: "Grace", abilities: ["notes.view"] };
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "elyra-deploying-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("docs/deploying.md's samples", () => {
  const docs = readFileSync(join(ROOT, "docs", "deploying.md"), "utf8");
  const shown = new Map(
    [
      ...docs.matchAll(
        /<!-- (spec\/deploying\/examples\/[\w./-]+) -->\n```(?:ts|js)\n([\s\S]*?)```\n/g,
      ),
    ].map((m) => [m[1] as string, m[2] as string]),
  );
  const files = [
    ...readdirSync(join(ROOT, "spec/deploying/examples")).filter((f) => f.endsWith(".ts")),
    "public/assistant.js",
  ].map((file) => `spec/deploying/examples/${file}`);

  it("shows every sample, and nothing else under that mark", () => {
    expect([...shown.keys()].sort()).toEqual(files.sort());
  });

  it("docs/ui.md shows the page's module as the file is", () => {
    const ui = readFileSync(join(ROOT, "docs", "ui.md"), "utf8");
    const path = "spec/deploying/examples/public/assistant.js";
    expect(ui).toContain(
      `<!-- ${path} -->\n\`\`\`js\n${readFileSync(join(ROOT, path), "utf8")}\`\`\`\n`,
    );
  });

  it.each(files)("shows %s as the file is", (path) => {
    expect(shown.get(path)).toBe(readFileSync(join(ROOT, path), "utf8"));
  });
});

describe("the durable store", () => {
  it("is a SQLite file when no DATABASE_URL is set: the log outlives the host", async () => {
    const db = join(tempDir(), "assistant.db");
    const first = await storeFrom({ ASSISTANT_DB: db });
    expect(first.durable).toBe(true);
    const host = createHost(app, { model: fakeModel().says("Noted."), store: first });
    expect((await host.window("tab-1", { user: ada }).prompt("Hello"))._tag).toBe("Answered");
    await host.close();
    await first.close?.();
    const again = await storeFrom({ ASSISTANT_DB: db });
    expect(await again.lastSeq("conversation/tab-1")).toBeGreaterThan(0);
    await again.close?.();
  });

  describe.skipIf(!havePostgres)(postgresSuite("on PostgreSQL"), () => {
    let server: PostgresServer;
    beforeAll(async () => {
      server = await startPostgres();
    });
    afterAll(() => server?.stop());

    it("is PostgreSQL when DATABASE_URL is set, its tables made at start", async () => {
      const store = await storeFrom({ DATABASE_URL: server.url });
      expect(store.durable).toBe(true);
      expect(store.leases).toBeDefined(); // several instances: one writer per window, nothing sticky
      const host = createHost(app, { model: fakeModel().says("Noted."), store });
      expect((await host.window("tab-1", { user: ada }).prompt("Hello"))._tag).toBe("Answered");
      await host.close();
      await store.close?.();
    });
  });
});

describe("where the model comes from", () => {
  it("the proxy first, else the user's own key, else ANTHROPIC_API_KEY, else none", async () => {
    const key = "sk-ant-api03-0123456789abcdefghijklmnopqrstuvwxyz";
    expect(await modelFrom({}).source.which(ada)).toBe("none");
    expect(await modelFrom({ ANTHROPIC_API_KEY: key }).source.which(ada)).toBe("environment");
    const withFile = modelFrom({ SECRETS_FILE: join(tempDir(), "secrets.json") });
    await withFile.secrets?.set(withFile.source.userKey(ada), key);
    expect(await withFile.source.which(ada)).toBe("userKey");
    expect(await withFile.source.which(grace)).toBe("none");
    const proxied = modelFrom({
      CLAUDE_PROXY_URL: "https://notes.example/claude",
      CLAUDE_PROXY_TOKEN: "t",
      ANTHROPIC_API_KEY: key,
    });
    expect(await proxied.source.which(ada)).toBe("backend");
  });
});

describe("spans", () => {
  afterEach(() => trace.disable());

  it("a turn, its model steps and its command calls, once a provider is registered", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = startTracing(exporter);
    const model = fakeModel().toolCall("notes_index", {}).says("One note.");
    const host = createHost(app, { model });
    await host.window("tab-1", { user: ada }).prompt("Notes?");
    await host.close();
    await provider.forceFlush();
    const names = exporter.getFinishedSpans().map((span) => span.name);
    expect(names).toContain("elyra.turn");
    expect(names).toContain("elyra.model.step");
    expect(names).toContain("elyra.tool.call");
    await provider.shutdown();
  });
});

describe("erasure", () => {
  it("closes the window and deletes its log; another user's window is refused", async () => {
    const store = await storeFrom({ ASSISTANT_DB: join(tempDir(), "assistant.db") });
    const host = createHost(app, { model: fakeModel().says("Noted."), store });
    await host.window("tab-1", { user: ada }).prompt("Remember this");
    expect(await store.lastSeq("conversation/tab-1")).toBeGreaterThan(0);
    await expect(eraseWindow(host, store, "tab-1", grace)).rejects.toMatchObject({
      _tag: "WindowOwnerMismatch",
    });
    expect(await store.lastSeq("conversation/tab-1")).toBeGreaterThan(0);
    await eraseWindow(host, store, "tab-1", ada);
    expect(await store.lastSeq("conversation/tab-1")).toBe(0);
    await host.close();
    await store.close?.();
  });
});

describe("the whole server", () => {
  beforeAll(async () => {
    // main.ts serves the installed package's prebuilt panel: here, this repository's build.
    if (!existsSync(join(ROOT, BUNDLE_FILE)))
      await buildBrowserBundle(ROOT, { outfile: join(ROOT, BUNDLE_FILE) });
  });

  it("serves its page with the token and a CSP with no 'unsafe-inline', its routes, and stops", async () => {
    const exporter = new InMemorySpanExporter();
    const running = await start(
      { ASSISTANT_DB: join(tempDir(), "assistant.db"), PORT: "0" },
      (request) => (request.headers.get("cookie") === "session=ada" ? ada : undefined),
      exporter,
    );
    try {
      await new Promise((resolve) => running.server.once("listening", resolve));
      const origin = `http://127.0.0.1:${(running.server.address() as AddressInfo).port}`;
      const page = await fetch(`${origin}/`);
      expect(page.headers.get("content-security-policy")).toBe(CSP);
      expect(CSP).not.toContain("unsafe-inline");
      const html = await page.text();
      const token = /<meta name="elyra-token" content="([\w-]{32})">/.exec(html)?.[1];
      expect(token).toBeDefined();
      const panel = await fetch(`${origin}/assets/elyra-assistant.js`);
      expect(panel.headers.get("content-type")).toMatch(/^text\/javascript/);
      expect(await panel.text()).toContain("elyra-assistant-panel");
      const headers = { "x-elyra-token": token ?? "", "x-elyra-client": "tab-1" };
      expect(
        (await fetch(`${origin}/__assistant/source`, { method: "POST", headers })).status,
      ).toBe(401);
      const source = await fetch(`${origin}/__assistant/source`, {
        method: "POST",
        headers: { ...headers, cookie: "session=ada" },
      });
      expect(await source.json()).toEqual({ source: "none", canSaveKey: false });
    } finally {
      await running.stop();
    }
    expect(running.server.listening).toBe(false);
  });
});
