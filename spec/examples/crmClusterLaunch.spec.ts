/**
 * `npm run cluster` as a person runs it, without DATABASE_URL: it starts a
 * throwaway PostgreSQL, three instances and the balancer, prints their URLs,
 * takes the instances in turn, and on Ctrl-C stops them all, PostgreSQL
 * too, and says so. Slow (three processes bundle the browser app): about 10 s.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { havePostgres, postgresSuite } from "../adapters/postgresServer.ts";
import { type RunningScript, runScript } from "../integration/npmScript.ts";

/** Whether anything accepts a connection on the loopback port. */
const listening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

describe.skipIf(!havePostgres)(postgresSuite("npm run cluster"), () => {
  let running: RunningScript | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), "elyra-crm-cluster-"));

  beforeAll(async () => {
    running = await runScript(
      "cluster",
      // Blank: the launcher starts its own PostgreSQL.
      { PORT: "0", CRM_DATA_DIR: dataDir, DATABASE_URL: "", ASSISTANT_TOKEN: "" },
      /Elyra CRM cluster: (http:\/\/localhost:\d+)/,
      /Ctrl-C stops them all/,
    );
  }, 60_000);

  afterAll(async () => {
    await running?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("prints the balancer's URL and each instance's, and takes them in turn", async () => {
    const output = running?.output() ?? "";
    const instances = [...output.matchAll(/ {2}instance (\d): (http:\/\/localhost:\d+)/g)];
    expect(instances.map((m) => m[1])).toEqual(["1", "2", "3"]);
    const answered: Array<string | null> = [];
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${running?.found}/`);
      expect(response.status).toBe(200);
      await response.text();
      answered.push(response.headers.get("x-elyra-instance"));
    }
    expect([...answered].sort()).toEqual(["1", "2", "3"]);
    // One token for the three: each page carries the same.
    const tokens = new Set<string>();
    for (const [, , url] of instances) {
      const html = await (await fetch(`${url}/`)).text();
      tokens.add(/name="elyra-token" content="([^"]+)"/.exec(html)?.[1] as string);
    }
    expect(tokens.size).toBe(1);
  });

  it("stops everything on Ctrl-C, its PostgreSQL too, with an event stream open, and says so", async () => {
    const output = running?.output() ?? "";
    const postgresPort = Number(
      /PostgreSQL: postgres:\/\/\S+@127\.0\.0\.1:(\d+)\//.exec(output)?.[1],
    );
    const ports = [...output.matchAll(/ {2}instance \d: http:\/\/localhost:(\d+)/g)].map((m) =>
      Number(m[1]),
    );
    const balancerPort = Number(new URL(running?.found as string).port);
    expect(await listening(postgresPort)).toBe(true);
    // An event stream held open through the balancer, as a page holds one.
    const html = await (await fetch(`${running?.found}/`)).text();
    const token = /name="elyra-token" content="([^"]+)"/.exec(html)?.[1] as string;
    const stream = await fetch(`${running?.found}/__assistant/events`, {
      headers: { "x-elyra-token": token, "x-elyra-client": "launch-spec" },
    });
    expect(stream.status).toBe(200);
    const reading = stream.body?.getReader();
    void reading?.read().catch(() => undefined);
    const before = running?.output().length ?? 0;
    // Ctrl-C: SIGINT to the whole process group, as a terminal sends it.
    const stopped = running;
    await running?.stop("SIGINT");
    running = undefined;
    await vi.waitFor(
      async () => {
        for (const port of [postgresPort, balancerPort, ...ports])
          expect(await listening(port)).toBe(false);
      },
      { timeout: 15_000, interval: 200 },
    );
    const said = stopped?.output().slice(before) ?? "";
    expect(said).toContain("Elyra CRM cluster stopped.");
    expect(said).not.toContain("failed a request");
    await reading?.cancel().catch(() => undefined);
  });
});
