/** The client's `key` and `source` against the real HTTP handler: write-only, and the source follows. */
import { memorySecrets } from "elyra-assistant";
import { modelSource } from "elyra-assistant/anthropic";
import { assistantClient, HostError } from "elyra-assistant/ui";
import { describe, expect, it } from "vitest";
import { setup, TOKEN } from "../http/fixture.ts";

const KEY = "sk-ant-api03-Ada0123456789abcdefABCDEF_-xyz";

const clientOver = () => {
  const secrets = memorySecrets();
  const source = modelSource({
    secrets,
    env: { ANTHROPIC_API_KEY: "sk-ant-env-0123456789abcdef" },
  });
  const t = setup(undefined, { secrets, source });
  const sent: Request[] = [];
  const client = assistantClient({
    token: TOKEN,
    clientId: "w1",
    fetch: async (input, init) => {
      const request = new Request(new URL(String(input), "http://app.test"), init);
      request.headers.set("x-test-user", "ada");
      sent.push(request.clone());
      return t.handle(request);
    },
  });
  return { client, secrets, sent };
};

describe("assistantClient: key and source", () => {
  it("keeps the key, says the source, forgets the key", async () => {
    const { client, secrets, sent } = clientOver();
    expect(await client.source()).toBe("environment");
    await client.key(KEY);
    expect(await secrets.get("name:Ada")).toBe(KEY);
    expect(await client.source()).toBe("userKey");
    await client.key(null);
    expect(await client.source()).toBe("environment");
    expect(await Promise.all(sent.map(async (r) => [r.url, await r.text()]))).toEqual([
      ["http://app.test/__assistant/source", ""],
      ["http://app.test/__assistant/key", JSON.stringify({ key: KEY })],
      ["http://app.test/__assistant/source", ""],
      ["http://app.test/__assistant/key", JSON.stringify({ key: null })],
      ["http://app.test/__assistant/source", ""],
    ]);
  });

  it("a key the host refuses rejects with a HostError that does not repeat it", async () => {
    const { client } = clientOver();
    const error = await client.key("sk-ant-nope").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostError);
    expect(error).toMatchObject({ status: 400, type: "badRequest" });
    expect(JSON.stringify(error)).not.toContain("sk-ant-nope");
    expect(String((error as Error).message)).not.toContain("sk-ant-nope");
  });
});
