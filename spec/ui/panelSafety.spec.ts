// @vitest-environment happy-dom
/**
 * U1: model text full of HTML creates no element in the panel, only text.
 * U2: no link a step carries leads off the app: only `#/…` single-slash app
 * paths become an href, and never on a step that failed.
 */
import type { LogEvent } from "elyra-assistant/log";
import { type AssistantPanel, createAssistantStore, stepHref } from "elyra-assistant/ui";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { runs, timeoutFor } from "../properties/runs.ts";
import { fakeClient, numbered } from "./fixtures.ts";

const NUM_RUNS = 1000;

const render = (events: ReadonlyArray<LogEvent>) => {
  const fake = fakeClient();
  const panel = document.createElement("elyra-assistant-panel") as AssistantPanel;
  panel.store = createAssistantStore(fake.client, { open: true });
  document.body.append(panel);
  fake.emit(...events);
  const root = panel.shadowRoot!;
  const shape = [...root.querySelectorAll("*")].map((e) => e.tagName);
  return { root, shape, remove: () => panel.remove() };
};

afterEach(() => {
  document.body.replaceChildren();
});

/**
 * The next turn of the event loop, taken before each run. happy-dom caches
 * `querySelector` results as WeakRefs, and V8 keeps every WeakRef's target
 * alive until the current task ends (a microtask is not enough): a property
 * run in one task keeps every panel it rendered, some 260 KB each, until its
 * last run, and 10 000 runs (ELYRA_PROPERTY_SCALE=10) run out of memory.
 */
const nextTask = () => new Promise<void>((resolve) => setImmediate(resolve));

const hostile = fc.oneof(
  fc.constantFrom(
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    '<svg onload="alert(1)"><a xlink:href="javascript:alert(1)">x</a></svg>',
    "<iframe srcdoc='<script>parent.alert(1)</script>'></iframe>",
    "<a href=javascript:alert(1)>click</a>",
    '"><img src=x onerror=alert(1)>',
    "</pre></details><b>bold</b>",
    "<style>*{display:none}</style>",
    "&lt;img src=x onerror=alert(1)&gt;",
    "<!-- --><math><mi xlink:href=javascript:alert(1)>",
    "<template><img src=x onerror=alert(1)></template>",
  ),
  fc.string(),
  fc.string({
    unit: fc.constantFrom(
      "<",
      ">",
      "/",
      "=",
      '"',
      "'",
      "&",
      ";",
      "img",
      "script",
      " ",
      "onerror",
      "x",
    ),
  }),
);

/** Hostile text in every string the log shows. */
const turnOf = (t: ReadonlyArray<string>) => {
  const s = (i: number) => t[i % t.length] ?? "";
  return numbered([
    { _tag: "TurnStarted", turn: 1, text: s(0), route: null, note: null },
    { _tag: "StepStarted", turn: 1, step: 0 },
    { _tag: "TextDelta", turn: 1, step: 0, text: s(1) },
    { _tag: "TextDelta", turn: 1, step: 0, text: s(2) },
    { _tag: "ToolStarted", turn: 1, callId: "k1", tool: s(3), caller: { type: "direct" } },
    { _tag: "ToolFinished", turn: 1, callId: "k1", ok: false, outcome: s(4) },
    { _tag: "ScriptStarted", turn: 1, toolId: "srvtoolu_1", code: s(5) },
    {
      _tag: "ToolStarted",
      turn: 1,
      callId: "k2",
      tool: s(6),
      caller: { type: "code", toolId: "srvtoolu_1" },
    },
    { _tag: "ToolFinished", turn: 1, callId: "k2", ok: false, outcome: s(7) },
    { _tag: "ScriptFinished", turn: 1, toolId: "srvtoolu_1", output: s(8), calls: 1 },
    {
      _tag: "ConfirmRequested",
      turn: 1,
      confirmId: "c1",
      callId: "k3",
      tool: s(9),
      description: s(10),
      summary: s(10),
      args: { [s(11)]: s(12), list: [s(13)] },
    },
    { _tag: "StepStarted", turn: 1, step: 1 },
    { _tag: "TextDelta", turn: 1, step: 1, text: s(14) },
    { _tag: "Failed", turn: 1, error: s(15) },
    { _tag: "TurnStarted", turn: 2, text: s(16), route: null, note: null },
    { _tag: "TextDelta", turn: 2, step: 0, text: `${s(17)}${s(18)}` },
  ]);
};

describe("the panel's safety", () => {
  it("U1: model text creates no element, only text equal to it", {
    timeout: timeoutFor(),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(hostile, { minLength: 19, maxLength: 19 }), async (texts) => {
        await nextTask();
        // The same log with plain text in each string has the same elements: the text made none.
        const plain = render(turnOf(texts.map((t) => (t === "" ? "" : "x"))));
        plain.remove();
        const { root, shape, remove } = render(turnOf(texts));
        expect(shape).toEqual(plain.shape);
        // user, answer, step, script, confirm, answer, error; user, answer
        expect(root.querySelector("[role=log]")?.children).toHaveLength(9);
        expect(
          root.querySelectorAll("img, script, iframe, svg, math, b, a, template, style").length,
        ).toBe(0); // the panel's styles are an adopted sheet: not even a <style>
        expect(root.querySelectorAll("[onerror], [onload], [srcdoc], [href]").length).toBe(0);
        const users = [...root.querySelectorAll(".user")].map((e) => e.textContent);
        expect(users).toEqual([texts[0], texts[16]]);
        const answers = [...root.querySelectorAll(".answer .text")].map((e) => e.textContent);
        expect(answers).toEqual([`${texts[1]}${texts[2]}`, texts[14], `${texts[17]}${texts[18]}`]);
        expect(root.querySelector(".script pre.code")?.textContent).toBe(texts[5]);
        expect(root.querySelector(".script pre.output")?.textContent).toBe(texts[8]);
        expect(root.querySelector("[role=dialog] .description")?.textContent).toBe(texts[10]);
        expect(root.querySelector(".item.error .text")?.textContent).toBe(
          `Something went wrong: ${texts[15]}`,
        );
        remove();
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  const evilHost = fc.constantFrom("evil.example", "evil.example:443", "127.0.0.1", "[::1]");
  const hostileLink = fc.oneof(
    fc.constantFrom(
      "javascript:alert(1)",
      "JaVaScRiPt:alert(1)",
      " javascript:alert(1)",
      "java\tscript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "vbscript:msgbox(1)",
      "/\\evil.example",
      "\\\\evil.example",
      "/\t/evil.example",
      "/%2F%2Fevil.example",
      "/%5Cevil.example",
      "%2F%2Fevil.example",
      "/.//evil.example",
      "/customers/42\n//evil.example",
      "\u0000/customers",
      "/customers/\u0085x",
      "",
      "#//evil.example",
      "?//evil.example",
    ),
    evilHost.map((host) => `//${host}`),
    evilHost.map((host) => `https://${host}/customers/42`),
    evilHost.map((host) => `/\\${host}`),
    evilHost.map((host) => `\\/${host}`),
    fc.string().map((rest) => `/${rest}`),
    fc.string().map((rest) => `//${rest}`),
    fc.string({
      unit: fc.constantFrom(
        "/",
        "\\",
        "%2F",
        "%5C",
        ":",
        ".",
        "evil",
        " ",
        "\t",
        "\n",
        "@",
        "#",
        "?",
      ),
    }),
    fc.string(),
  );

  it("U2: links that are not single-slash app paths never become an href, nor links of failed steps", {
    timeout: timeoutFor(),
  }, async () => {
    const base = new URL("https://app.example/crm/page?tab=1");
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ link: hostileLink, ok: fc.boolean(), fromCode: fc.boolean() }), {
          minLength: 1,
          maxLength: 6,
        }),
        async (steps) => {
          await nextTask();
          const events = numbered([
            { _tag: "TurnStarted", turn: 1, text: "go", route: null, note: null },
            { _tag: "ScriptStarted", turn: 1, toolId: "srvtoolu_1", code: "" },
            ...steps.flatMap((step, i) => [
              {
                _tag: "ToolStarted" as const,
                turn: 1,
                callId: `k${i}`,
                tool: "customers_show",
                caller: step.fromCode
                  ? { type: "code" as const, toolId: "srvtoolu_1" }
                  : { type: "direct" as const },
              },
              {
                _tag: "ToolFinished" as const,
                turn: 1,
                callId: `k${i}`,
                ok: step.ok,
                outcome: step.ok ? "ok" : "denied",
                link: step.link,
              },
            ]),
          ]);
          const { root, remove } = render(events);
          // Each step once: its view is replaced, not added to, as it finishes.
          expect(root.querySelectorAll(".step")).toHaveLength(steps.length);
          const hrefs = [...root.querySelectorAll("[href]")].map(
            (a) => a.getAttribute("href") ?? "",
          );
          for (const href of hrefs) {
            expect(href).toMatch(/^#\/(?![/\\])/);
            expect(href).not.toMatch(/[\s\\\p{Cc}]/u);
            // Following it changes only the fragment: the same origin, path and query.
            const to = new URL(href, base);
            expect([to.origin, to.pathname, to.search]).toEqual([
              base.origin,
              base.pathname,
              base.search,
            ]);
          }
          const linkable = steps.filter((s) => s.ok && /^\/(?![/\\])[^\s\\\p{Cc}]*$/u.test(s.link));
          expect(hrefs.sort()).toEqual(linkable.map((s) => `#${s.link}`).sort());
          for (const failed of root.querySelectorAll(".step.failed"))
            expect(failed.querySelector("a")).toBeNull();
          // A failed step's link is dropped by the projection and again by the panel.
          for (const step of steps)
            expect(stepHref({ ok: false, link: step.link })).toBeUndefined();
          remove();
        },
      ),
      { numRuns: runs(NUM_RUNS) },
    );
  });
});
