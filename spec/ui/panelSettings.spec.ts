// @vitest-environment happy-dom
/**
 * The panel's settings (bring your own key): shown only when the host can
 * keep a key; the source answering now in words; a write-only field whose key
 * is sent once and never shown again; _Forget my key_; failures in words.
 */
import {
  type AssistantClient,
  type AssistantPanel,
  ConnectionError,
  createAssistantStore,
  HostError,
  type SourceName,
} from "elyra-assistant/ui";
import { afterEach, describe, expect, it } from "vitest";
import { keyErrorWords, sourceWords } from "../../src/adapters/ui/panelSettings.ts";
import { fakeClient, until } from "./fixtures.ts";

const KEY = "sk-ant-api03-Ada0123456789abcdefABCDEF_-xyz";

interface Host {
  /** What `/source` answers; `canSaveKey` false when the host has no secrets store. */
  source: SourceName;
  canSaveKey: boolean | undefined;
  /** The key kept, as the host would: the spec's stand-in of a secrets store. */
  kept: string | null;
  /** Each body `/key` was sent. */
  readonly keys: Array<string | null>;
  /** What `/key` fails with next, if anything. */
  failKey: Error | undefined;
  /** What `/source` fails with, if anything. */
  failSource: Error | undefined;
}

/** A client over a host that keeps one key and says where steps go: the user's key when one is kept. */
const clientOf = (host: Host, options: { readonly sourceInfo?: boolean } = {}) => {
  const fake = fakeClient();
  const client: AssistantClient = {
    ...fake.client,
    key: async (key) => {
      host.keys.push(key);
      if (host.failKey !== undefined) throw host.failKey;
      host.kept = key;
    },
    ...(options.sourceInfo === false
      ? {}
      : {
          sourceInfo: async () => {
            if (host.failSource !== undefined) throw host.failSource;
            return {
              source: host.kept === null ? host.source : "userKey",
              ...(host.canSaveKey === undefined ? {} : { canSaveKey: host.canSaveKey }),
            };
          },
        }),
  };
  return { fake, client };
};

const hostOf = (patch: Partial<Host> = {}): Host => ({
  source: "environment",
  canSaveKey: true,
  kept: null,
  keys: [],
  failKey: undefined,
  failSource: undefined,
  ...patch,
});

const mount = (host: Host, options: { readonly sourceInfo?: boolean } = {}) => {
  const { client } = clientOf(host, options);
  const store = createAssistantStore(client, { open: true, route: () => "/" });
  const panel = document.createElement("elyra-assistant-panel") as AssistantPanel;
  panel.store = store;
  document.body.append(panel);
  const root = panel.shadowRoot!;
  const $ = <E extends Element = HTMLElement>(selector: string) => root.querySelector<E>(selector)!;
  const button = $<HTMLButtonElement>("button.settings-button");
  const input = $<HTMLInputElement>("#settings-key");
  const view = $<HTMLElement>("section.settings");
  const source = () => $(".settings .source").textContent ?? "";
  const status = () => $("[role=status].settings-status").textContent ?? "";
  const problem = $<HTMLElement>(".settings-problem");
  return { store, panel, root, $, button, input, view, source, status, problem };
};

/** The panel, opened on its settings once the host said it can keep a key. */
const opened = async (host: Host = hostOf()) => {
  const m = mount(host);
  await until(() => !m.button.hidden);
  m.button.click();
  await until(() => !m.source().includes("…"));
  return m;
};

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/** All the text, attribute values and form values in the page and the panel's shadow root. */
const everythingShown = (root: ShadowRoot): string => {
  const parts: string[] = [document.documentElement.outerHTML];
  const walk = (node: ParentNode) => {
    for (const element of node.querySelectorAll("*")) {
      parts.push(element.textContent ?? "");
      for (const attribute of element.attributes) parts.push(attribute.value);
      if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement)
        parts.push(element.value, element.defaultValue);
    }
  };
  walk(document);
  walk(root);
  return parts.join("\n");
};

afterEach(() => {
  document.body.replaceChildren();
});

describe("the panel's settings: bring your own key", () => {
  it("a host with no secrets store (canSaveKey false, left out, or no /source at all): no Settings button", async () => {
    const without = [
      mount(hostOf({ canSaveKey: false })),
      mount(hostOf({ canSaveKey: undefined })),
      mount(
        hostOf({
          failSource: new HostError({
            status: 404,
            type: "notConfigured",
            message: "this host has no model source for this route",
          }),
        }),
      ),
      mount(hostOf(), { sourceInfo: false }),
    ];
    await settle();
    await settle();
    for (const m of without) {
      expect(m.button.hidden).toBe(true);
      expect(m.view.hidden).toBe(true);
    }
  });

  it("a host that can keep a key: a Settings button in the header opens the view, the source in words", async () => {
    const m = mount(hostOf());
    await until(() => !m.button.hidden);
    expect(m.button.closest("header")).not.toBeNull();
    expect(m.button.getAttribute("aria-label")).toBe("Settings");
    expect(m.button.getAttribute("aria-expanded")).toBe("false");
    expect(m.view.hidden).toBe(true);
    m.button.click();
    expect(m.view.hidden).toBe(false);
    expect(m.button.getAttribute("aria-expanded")).toBe("true");
    expect(m.root.activeElement).toBe(m.input);
    const heading = m.root.getElementById(m.view.getAttribute("aria-labelledby")!);
    expect(heading?.tagName).toBe("H3");
    expect(heading?.textContent).toBe("Settings");
    await until(() => m.source() === "Answering now: Claude, with the app's API key");
    // The field: a password, labelled, not filled in by the browser.
    expect(m.input.type).toBe("password");
    expect(m.input.getAttribute("autocomplete")).toBe("off");
    expect(m.input.value).toBe("");
    expect(m.root.querySelector(`label[for="${m.input.id}"]`)?.textContent).toBe(
      "Your Anthropic API key",
    );
    expect(m.$(".settings [role=status]").getAttribute("aria-live")).toBe("polite");
    // The toggle closes it again.
    m.button.click();
    expect(m.view.hidden).toBe(true);
    expect(m.button.getAttribute("aria-expanded")).toBe("false");
  });

  it("saving sends exactly the key, once; the field is emptied as it is sent; the source follows", async () => {
    const host = hostOf();
    const m = await opened(host);
    m.input.value = `  ${KEY}  `;
    m.input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    expect(m.input.value).toBe("");
    await until(() => m.status().startsWith("Your key is saved"));
    expect(host.keys).toEqual([KEY]);
    expect(m.input.value).toBe("");
    expect(m.source()).toBe("Answering now: Claude, with your own API key");
    expect(m.problem.hidden).toBe(true);
    // The Save button does the same as Enter; an empty field sends nothing.
    m.$<HTMLButtonElement>(".settings button.save").click();
    await settle();
    expect(host.keys).toEqual([KEY]);
    expect(m.problem.textContent).toBe("Type or paste your key first.");
  });

  it("never shows the saved key: not in any text, attribute or field, however the view is reopened", async () => {
    const host = hostOf();
    const m = await opened(host);
    m.input.value = KEY;
    m.$<HTMLButtonElement>(".settings button.save").click();
    // Not even while the request is on its way.
    expect(everythingShown(m.root)).not.toContain(KEY);
    await until(() => m.status().startsWith("Your key is saved"));
    expect(everythingShown(m.root)).not.toContain(KEY);
    m.button.click();
    m.button.click();
    await until(() => m.source().endsWith("your own API key"));
    expect(m.input.value).toBe("");
    expect(everythingShown(m.root)).not.toContain(KEY);
    expect(everythingShown(m.root)).not.toContain(KEY.slice(7, 20));
  });

  it("Forget my key sends null, says so, and the source goes back", async () => {
    const host = hostOf({ kept: KEY });
    const m = await opened(host);
    expect(m.source()).toBe("Answering now: Claude, with your own API key");
    m.$<HTMLButtonElement>(".settings button.forget").click();
    await until(() => m.status() === "Your key is forgotten.");
    expect(host.keys).toEqual([null]);
    expect(m.source()).toBe("Answering now: Claude, with the app's API key");
    expect(everythingShown(m.root)).not.toContain(KEY);
  });

  it("a refusal from /key shows in words (role=alert), never the tag or the key; the field stays empty", async () => {
    const host = hostOf({
      failKey: new HostError({
        status: 400,
        type: "badRequest",
        message: "key: must be an Anthropic API key (sk-ant-…), or null to forget it",
      }),
    });
    const m = await opened(host);
    m.input.value = "sk-ant-nope";
    m.input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    await until(() => !m.problem.hidden);
    expect(m.problem.getAttribute("role")).toBe("alert");
    expect(m.problem.textContent).toBe(
      "That is not an Anthropic API key: one starts with sk-ant- and has no spaces. Nothing was saved.",
    );
    expect(m.problem.textContent).not.toContain("badRequest");
    expect(everythingShown(m.root)).not.toContain("sk-ant-nope");
    expect(m.input.value).toBe("");
    expect(m.source()).toBe("Answering now: Claude, with the app's API key");

    host.failKey = new ConnectionError({ message: "Failed to fetch" });
    m.$<HTMLButtonElement>(".settings button.forget").click();
    await until(() => (m.problem.textContent ?? "").includes("could not be reached"));
    expect(m.problem.textContent).toBe(
      "The app could not be reached. Your key is still kept. Check your connection and try again.",
    );
    // The panel's own problem line (for prompts) is not used for the settings' failures.
    expect(m.store.getSnapshot().error).toBeNull();
  });

  it("Escape closes the settings, not the panel, empties the field, and gives the focus back to Settings", async () => {
    const m = await opened();
    m.input.value = KEY;
    m.input.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    expect(m.view.hidden).toBe(true);
    // A key typed and not sent does not stay behind the closed view.
    expect(m.input.value).toBe("");
    expect(m.store.getSnapshot().open).toBe(true);
    expect(m.root.activeElement).toBe(m.button);
  });

  it("a host that could not be reached is asked again when the panel next opens", async () => {
    const host = hostOf({ failSource: new ConnectionError({ message: "Failed to fetch" }) });
    const m = mount(host);
    await settle();
    expect(m.button.hidden).toBe(true);
    host.failSource = undefined;
    m.store.close();
    m.store.open();
    await until(() => !m.button.hidden);
  });
});

describe("the settings' words", () => {
  it("names every source in words, never by its tag", () => {
    const words: Readonly<Record<SourceName, string>> = {
      backend: "Claude, through the app's own connection",
      userKey: "Claude, with your own API key",
      environment: "Claude, with the app's API key",
      app: "the app's own model",
      none: "no Claude model (no key of yours, and none from the app)",
    };
    for (const [source, said] of Object.entries(words)) expect(sourceWords(source)).toBe(said);
    // A source a newer host names, or a name off Object's prototype: words still, not the tag.
    for (const other of ["toString", "gateway"])
      expect(sourceWords(other)).toBe("a source this panel does not know");
  });

  it("says each failure in words, never its type, and that nothing changed", () => {
    const refusal = (status: number, type: string) =>
      new HostError({ status, type, message: type });
    for (const [error, forgetting] of [
      [refusal(400, "badRequest"), false],
      [refusal(413, "tooLarge"), false],
      [refusal(404, "notConfigured"), true],
      [refusal(401, "unauthenticated"), false],
      [refusal(403, "forbidden"), true],
      [refusal(403, "notYourWindow"), false],
      [refusal(503, "HttpStatus"), false],
      [refusal(409, "closed"), true],
      [new ConnectionError({ message: "down" }), false],
      [new Error("?"), true],
    ] as const) {
      const said = keyErrorWords(error, forgetting);
      if (error instanceof HostError) expect(said).not.toContain(error.type);
      expect(said).toContain(forgetting ? "Your key is still kept." : "Nothing was saved.");
    }
  });
});
