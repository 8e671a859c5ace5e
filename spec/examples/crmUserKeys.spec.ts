/**
 * The example CRM with users' own keys: `npm start` gives its host a secrets
 * store in memory, so `/source` says a key can be kept; a user's saved key
 * becomes their source (a proxy still comes first), and forgetting it goes
 * back to the CRM's own model. No step here goes to Claude.
 */
import { memorySecrets } from "elyra-assistant";
import { fakeModel } from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";
import { DEMO_NOTICE } from "../../examples/crm/demoModel.ts";
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
    const keyed = withUserKeys(choice("app"), secrets);
    expect(await keyed.source.which(ADA)).toBe("app");
    await secrets.set(keyed.source.userKey(ADA), KEY);
    expect(keyed.source.userKey(ADA)).toBe("id:1");
    expect(await keyed.source.which(ADA)).toBe("userKey");
    expect(await keyed.source.which({ id: 2, name: "Bob" })).toBe("app");
    await secrets.delete("id:1");
    expect(await keyed.source.which(ADA)).toBe("app");
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
    // The demo model answers: the CRM's own model, with its banner (issue 28: not "no model").
    expect(await source({})).toEqual({
      status: 200,
      body: { source: "app", canSaveKey: true, notice: DEMO_NOTICE },
    });
    expect(await source({ secrets: false })).toEqual({
      status: 200,
      body: { source: "app", canSaveKey: false, notice: DEMO_NOTICE },
    });
  });

  it("the banner comes with /source: gone once the user's key answers, back once it is forgotten", async () => {
    crm = await startCrm({ port: 0, dbPath: ":memory:", env: {}, token: "t" });
    const call = async (route: string, body?: unknown) => {
      const response = await fetch(`${crm?.url}/__assistant/${route}`, {
        method: "POST",
        headers: {
          "x-elyra-token": "t",
          "x-elyra-client": "spec",
          "content-type": "application/json",
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return response.status === 204 ? response.status : await response.json();
    };
    expect(await call("source")).toMatchObject({ source: "app", notice: DEMO_NOTICE });
    expect(await call("key", { key: "sk-ant-api03-Ada0123456789abcdefABCDEF_-xyz" })).toBe(204);
    expect(await call("source")).toEqual({ source: "userKey", canSaveKey: true, notice: null });
    expect(await call("key", { key: null })).toBe(204);
    expect(await call("source")).toMatchObject({ source: "app", notice: DEMO_NOTICE });
  });
});
