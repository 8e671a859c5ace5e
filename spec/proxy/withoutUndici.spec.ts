/**
 * undici is an optional peer: without it the proxy goes upstream by the
 * platform's `fetch`, as before, and every request still passes.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type Ada, ask, quietProxy, USER_TOKEN } from "./fixture.ts";

afterEach(() => {
  vi.doUnmock("undici");
  vi.restoreAllMocks();
  vi.resetModules();
});

describe("the proxy without undici installed", () => {
  it("goes upstream by the platform's fetch, and answers", async () => {
    vi.resetModules();
    vi.doMock("undici", () => {
      throw new Error("Cannot find package 'undici'");
    });
    const { createProxy } = await import("elyra-assistant/proxy");
    let requests = 0;
    const server = createServer((_, response) => {
      requests++;
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ type: "message", usage: { input_tokens: 5 } }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const platformFetch = vi.spyOn(globalThis, "fetch");
    const handle = createProxy<Ada>(quietProxy(`http://127.0.0.1:${port}`));
    for (let i = 0; i < 3; i++) {
      const response = await handle(
        new Request("http://proxy.test/claude/v1/messages", {
          method: "POST",
          headers: { authorization: `Bearer ${USER_TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify(ask("Hi")),
        }),
      );
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ type: "message", usage: { input_tokens: 5 } });
    }
    expect(requests).toBe(3);
    expect(platformFetch).toHaveBeenCalledTimes(3);
    server.closeAllConnections();
    server.close();
  });
});
