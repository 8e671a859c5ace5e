// @vitest-environment happy-dom
/**
 * Issue 28: a failed turn says in words what probably went wrong (a rejected
 * key, Anthropic unreachable, overloaded, rate limited), never the SDK's bare
 * "Connection error.", and offers Retry, which sends the turn's prompt again.
 */
import { createHost } from "elyra-assistant";
import { fakeModel, memoryStore } from "elyra-assistant/testing";
import { type AssistantPanel, createAssistantStore } from "elyra-assistant/ui";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { failureWords } from "../../src/adapters/ui/failureWords.ts";
import { spyApp, type TestUser } from "../fixtures/spyCommands.ts";
import { fakeClient, numbered, until } from "./fixtures.ts";

const started = {
  _tag: "TurnStarted",
  turn: 1,
  text: "Which invoices are overdue?",
  route: null,
  note: null,
} as const;
const failed = (kind?: string, status?: number, error = "Connection error.") =>
  ({
    _tag: "Failed",
    turn: 1,
    error,
    ...(kind === undefined ? {} : { kind }),
    ...(status === undefined ? {} : { status }),
  }) as const;

const mount = () => {
  const fake = fakeClient();
  const store = createAssistantStore(fake.client, { open: true, route: () => "/" });
  const panel = document.createElement("elyra-assistant-panel") as AssistantPanel;
  panel.store = store;
  document.body.append(panel);
  const root = panel.shadowRoot!;
  const error = () => root.querySelector<HTMLElement>(".item.error");
  return { fake, root, error };
};

afterEach(() => {
  document.body.replaceChildren();
});

describe("a failed turn in the panel", () => {
  it("Anthropic unreachable: says so in words, and Retry sends the prompt again", async () => {
    const { fake, error } = mount();
    fake.emit(...numbered([started, failed("connection")]));
    const item = error()!;
    expect(item.textContent).toContain("Claude could not be reached");
    expect(item.textContent).not.toContain("Connection error.");
    const retry = item.querySelector<HTMLButtonElement>("button.retry")!;
    expect(retry.textContent).toBe("Retry");
    retry.click();
    await until(() => fake.calls.some((c) => c.method === "prompt"));
    expect(fake.calls.find((c) => c.method === "prompt")?.args[0]).toBe(started.text);
  });

  it("a rejected key (401, 403), overloaded, rate limited: each in its words", () => {
    const words = (kind: string, status?: number) => {
      document.body.replaceChildren();
      const { fake, error } = mount();
      fake.emit(...numbered([started, failed(kind, status, '401 {"type":"error"}')]));
      return error()?.querySelector(".text")?.textContent;
    };
    expect(words("auth", 401)).toBe(
      "Anthropic refused the API key (it answered 401). The key may be mistyped, revoked, or not allowed this model.",
    );
    expect(words("auth", 403)).toContain("refused the API key (it answered 403)");
    expect(words("overloaded", 529)).toBe(
      "Claude is overloaded just now. Wait a moment, then retry.",
    );
    expect(words("rateLimited", 429)).toContain("rate limit");
  });

  it("only the newest failure has Retry: it hides once another turn follows", () => {
    const { fake, root } = mount();
    fake.emit(
      ...numbered([
        started,
        failed("connection"),
        { _tag: "TurnStarted", turn: 2, text: "again", route: null, note: null },
      ]),
    );
    expect(root.querySelector<HTMLElement>(".item.error button.retry")?.hidden).toBe(true);
  });

  it("the host records the model error's kind and status with the failed turn", async () => {
    const ada: TestUser = { name: "Ada", abilities: ["customers.*"] };
    const host = createHost(spyApp(), {
      model: fakeModel().fails(401, "authentication_error", "invalid x-api-key"),
      store: memoryStore(),
    });
    const w = host.window("tab", { user: ada });
    await w.prompt("hello");
    expect(w.panel().items.at(-1)).toMatchObject({
      kind: "error",
      reason: "auth",
      status: 401,
      prompt: "hello",
    });
    await host.close();
  });

  it("property: a kind it knows is said in its own words, never with the SDK's message", () => {
    const kinds = [
      "connection",
      "timeout",
      "overloaded",
      "rateLimited",
      "server",
      "auth",
      "decode",
      "invalidRequest",
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...kinds),
        fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined }),
        fc.string({ minLength: 12 }).map((s) => `SDK:${s}`),
        (reason, status, error) => {
          const words = failureWords({
            kind: "error",
            turn: 1,
            error,
            reason,
            ...(status === undefined ? {} : { status }),
          });
          expect(words).not.toContain(error);
          // Never the tag as a program spells it (`rateLimited`); a plain word may be one.
          if (/[A-Z]/.test(reason)) expect(words).not.toContain(reason);
          expect(words.length).toBeGreaterThan(20);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
