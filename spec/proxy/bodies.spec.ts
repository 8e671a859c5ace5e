/**
 * The request's body as the proxy reads it: whole when its length is
 * declared, counted as it arrives when not; over `maxBodyBytes` either way
 * is a 413, and nothing goes upstream.
 */
import { request as httpRequest } from "node:http";
import { createProxy } from "elyra-assistant/proxy";
import { says } from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";
import { ask, proxied, USER_TOKEN } from "./fixture.ts";

type Setup = Awaited<ReturnType<typeof proxied>>;
let setup: Setup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

const LIMIT = 1_000;
const headers = { authorization: `Bearer ${USER_TOKEN}`, "content-type": "application/json" };
/** A request body of about `bytes` bytes that the proxy forwards when it takes it. */
const bodyOf = (bytes: number) => JSON.stringify(ask("x".repeat(Math.max(1, bytes - 80))));

/** Posts `body` to the proxy over node:http, in chunks with no content-length when `chunked`. */
const send = (url: string, body: string, chunked: boolean) =>
  new Promise<{ status: number; json: { error?: { type: string; message: string } } }>(
    (resolve, reject) => {
      const target = new URL(`${url}/v1/messages`);
      const out = httpRequest(
        target,
        {
          method: "POST",
          headers: chunked ? headers : { ...headers, "content-length": Buffer.byteLength(body) },
        },
        (response) => {
          let text = "";
          response.setEncoding("utf8");
          response.on("data", (chunk: string) => {
            text += chunk;
          });
          response.on("end", () =>
            resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) }),
          );
        },
      );
      out.on("error", reject);
      if (chunked)
        for (let at = 0; at < body.length; at += 100) out.write(body.slice(at, at + 100));
      else out.write(body);
      out.end();
    },
  );

describe.each([
  ["declared (content-length)", false],
  ["undeclared (chunked)", true],
])("a body whose length is %s", (_, chunked) => {
  it("under the limit goes upstream as parsed; over it is a 413 and goes nowhere", async () => {
    setup = await proxied(() => says("ok"), { maxBodyBytes: LIMIT, rateLimit: false });
    const taken = await send(setup.url, bodyOf(LIMIT - 100), chunked);
    expect(taken.status).toBe(200);
    expect(setup.api.requests).toHaveLength(1);

    const refused = await send(setup.url, bodyOf(LIMIT + 100), chunked);
    expect(refused.status).toBe(413);
    expect(refused.json.error).toEqual({
      type: "request_too_large",
      message: `the body is over ${LIMIT} bytes`,
    });
    expect(setup.api.requests).toHaveLength(1);
  });

  it("not UTF-8, not JSON, or nested too deep: 400, as before", async () => {
    setup = await proxied(() => says("never"), { rateLimit: false });
    for (const [body, message] of [
      ['{"model": "\u00ff', "the body must be JSON"],
      ["{ not json", "the body must be JSON"],
      [`${"[".repeat(100)}${"]".repeat(100)}`, "the body is nested deeper than 64 levels"],
    ] as const) {
      const refused = await send(setup.url, body, chunked);
      expect(refused.status).toBe(400);
      expect(refused.json.error?.message).toBe(message);
    }
    expect(setup.api.requests).toEqual([]);
  });
});

describe("a declared length", () => {
  it("is trusted no further than the limit: what is read is measured again", async () => {
    setup = await proxied(() => says("never"));
    const handle = createProxy({
      apiKey: "k",
      authenticate: () => "ada",
      models: [ask("").model],
      maxTokens: 4096,
      upstream: setup.api.url,
      maxBodyBytes: 8,
    });
    // A Request made in process can say less than it carries.
    const lying = new Request("http://proxy.test/v1/messages", {
      method: "POST",
      headers: { ...headers, "content-length": "5" },
      body: bodyOf(200),
    });
    expect((await handle(lying)).status).toBe(413);
    const honest = new Request("http://proxy.test/v1/messages", {
      method: "POST",
      headers: { ...headers, "content-length": "200" },
      body: bodyOf(200),
    });
    expect((await handle(honest)).status).toBe(413);
    expect(setup.api.requests).toEqual([]);
  });
});
