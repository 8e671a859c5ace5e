// @vitest-environment happy-dom
/**
 * Issue 28: one source of truth for what answers. The minimal setup (routes
 * given no model source) answers the panel's `POST /source` without an error
 * status; the banner and the settings both follow what `/source` says, asked
 * again after a key is saved or forgotten.
 */
import { createHost, memorySecrets } from "elyra-assistant";
import { assistantHttp } from "elyra-assistant/http";
import { fakeModel, memoryStore } from "elyra-assistant/testing";
import {
  type AssistantPanel,
  assistantClient,
  createAssistantStore,
  type SourceName,
} from "elyra-assistant/ui";
import { afterEach, describe, expect, it, vi } from "vitest";
import { spyApp, type TestUser } from "../fixtures/spyCommands.ts";
import { until } from "./fixtures.ts";

const ada: TestUser = { name: "Ada", abilities: ["customers.*"] };
const TOKEN = "host-token-0123456789";
const KEY = "sk-ant-api03-Ada0123456789abcdefABCDEF_-xyz";
const DEMO = "Demo model: scripted answers, not Claude.";

afterEach(() => {
  document.body.replaceChildren();
  vi.restoreAllMocks();
});

const mountOn = (store: ReturnType<typeof createAssistantStore>, notice?: string) => {
  const panel = document.createElement("elyra-assistant-panel") as AssistantPanel;
  if (notice !== undefined) panel.setAttribute("notice", notice);
  panel.store = store;
  document.body.append(panel);
  const root = panel.shadowRoot!;
  const banner = root.querySelector<HTMLElement>(".notice")!;
  const shown = () => (banner.hidden ? null : banner.textContent);
  return { panel, root, shown };
};

describe("the minimal setup's page load", () => {
  it("asks POST /source and gets 200, with no error status and nothing on the console", async () => {
    const host = createHost(spyApp(), { model: fakeModel(), store: memoryStore() });
    const handle = assistantHttp(host, { token: TOKEN, authenticate: () => ada });
    const answers: Array<{ readonly route: string; readonly status: number }> = [];
    const consoleError = vi.spyOn(console, "error");
    const client = assistantClient({
      token: TOKEN,
      clientId: "tab-1",
      baseUrl: "http://app.test/__assistant",
      fetch: async (input, init) => {
        const request = new Request(input, init);
        const response = await handle(request);
        answers.push({ route: new URL(request.url).pathname, status: response.status });
        return response;
      },
    });
    const store = createAssistantStore(client, { open: true, route: () => "/" });
    const { root } = mountOn(store);
    await until(() => answers.some((a) => a.route.endsWith("/source")));
    await until(() => store.getSnapshot().connected);
    expect(answers.filter((a) => a.status >= 400)).toEqual([]);
    expect(consoleError).not.toHaveBeenCalled();
    expect(store.getSnapshot().error).toBeNull();
    expect(root.querySelector<HTMLButtonElement>("button.settings-button")?.hidden).toBe(true);
    document.body.replaceChildren();
    await host.close();
  });
});

describe("the banner follows POST /source", () => {
  it("the host's notice replaces the attribute, and goes once the user's own key answers", async () => {
    // The CRM's way: a demo model for everyone, Claude with a key the user saved.
    const secrets = memorySecrets();
    const host = createHost(spyApp(), { model: fakeModel(), store: memoryStore() });
    const which = async (user: unknown): Promise<SourceName> =>
      (await secrets.get((user as TestUser).name)) === undefined ? "app" : "userKey";
    const handle = assistantHttp(host, {
      token: TOKEN,
      authenticate: () => ada,
      secrets,
      source: { which, userKey: (user) => (user as TestUser).name },
      notice: (_user, source) => (source === "userKey" ? null : DEMO),
    });
    const client = assistantClient({
      token: TOKEN,
      clientId: "tab-2",
      baseUrl: "http://app.test/__assistant",
      fetch: (input, init) => handle(new Request(input, init)),
    });
    const store = createAssistantStore(client, { open: true, route: () => "/" });
    const { root, shown } = mountOn(store, "Stale words from the page.");
    const button = root.querySelector<HTMLButtonElement>("button.settings-button")!;
    await until(() => !button.hidden);
    expect(shown()).toBe(DEMO);
    button.click();
    const source = () => root.querySelector(".settings .source")?.textContent ?? "";
    await until(() => !source().includes("…"));
    // While the demo answers, settings does not say there is no model.
    expect(source()).toBe("Answering now: the app's own model");

    const input = root.querySelector<HTMLInputElement>("#settings-key")!;
    input.value = KEY;
    root.querySelector<HTMLButtonElement>("button.save")!.click();
    await until(() => source().includes("your own API key"));
    await until(() => shown() === null);

    root.querySelector<HTMLButtonElement>("button.forget")!.click();
    await until(() => shown() === DEMO);
    expect(source()).toBe("Answering now: the app's own model");
    document.body.replaceChildren();
    await host.close();
  });
});
