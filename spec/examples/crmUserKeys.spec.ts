/**
 * The example CRM with users' own keys: `npm start` gives its host a secrets
 * store in memory, so `/source` says a key can be kept; a user's saved key
 * becomes their source (a proxy still comes first), and forgetting it goes
 * back to the CRM's own model. No step here goes to Claude.
 */
import { memorySecrets } from "elyra-assistant";
import { fakeModel } from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type ModelChoice, withUserKeys } from "../../examples/crm/modelSource.ts";
import { type RunningCrm, startCrm } from "../../examples/crm/server.ts";

const KEY = "sk-ant-FAKE-crm-user-key-0000";
const ADA = { id: 1, name: "Ada" };
const request = { model: "m", system: "", messages: [], tools: [], maxTokens: 10 } as never;

const choice = (source: ModelChoice["source"]): ModelChoice => ({
  model: fakeModel().says("from the CRM's own model"),
  label: "a fake",
  notice: null,
  source,
});

let crm: RunningCrm | undefined;
afterEach(async () => {
  await crm?.close();
  crm = undefined;
});

describe("the example CRM with users' own keys", () => {
  it("the user's key comes before the CRM's own model, and forgetting it goes back", async () => {
    const secrets = memorySecrets();
    const keyed = withUserKeys(choice("none"), secrets);
    expect(await keyed.source.which(ADA)).toBe("none");
    await secrets.set(keyed.source.userKey(ADA), KEY);
    expect(keyed.source.userKey(ADA)).toBe("id:1");
    expect(await keyed.source.which(ADA)).toBe("userKey");
    expect(await keyed.source.which({ id: 2, name: "Bob" })).toBe("none");
    await secrets.delete("id:1");
    expect(await keyed.source.which(ADA)).toBe("none");
    const step = await keyed.modelFor(ADA).step(request, { signal: new AbortController().signal });
    expect(JSON.stringify(step)).toContain("from the CRM's own model");
  });

  it("a proxy (a backend) comes before any key, as in modelSource()", async () => {
    const secrets = memorySecrets();
    await secrets.set("id:1", KEY);
    expect(await withUserKeys(choice("backend"), secrets).source.which(ADA)).toBe("backend");
    expect(await withUserKeys(choice("environment"), secrets).source.which(ADA)).toBe("userKey");
  });

  it("startCrm keeps keys in memory unless told not to: /source says whether a key can be kept", async () => {
    const source = async (options: { readonly secrets?: false }) => {
      crm = await startCrm({ port: 0, dbPath: ":memory:", env: {}, token: "t", ...options });
      const response = await fetch(`${crm.url}/__assistant/source`, {
        method: "POST",
        headers: { "x-elyra-token": "t", "x-elyra-client": "spec" },
      });
      const body: unknown = await response.json();
      await crm.close();
      crm = undefined;
      return { status: response.status, body };
    };
    expect(await source({})).toEqual({
      status: 200,
      body: { source: "none", canSaveKey: true },
    });
    expect(await source({ secrets: false })).toMatchObject({
      status: 404,
      body: { error: { type: "notConfigured" } },
    });
  });
});
