// @vitest-environment happy-dom
/**
 * The panel shows a script as Claude writes it: "Writing code…" while its
 * code streams (`ScriptWriting`, `ScriptCodeDelta`), its code growing in the
 * same `<code>` element, patched in place (an open script stays open), then
 * "Running code…" once the whole code came (`ScriptStarted`), then "Ran code".
 */
import { SCRIPT_CUT_SHORT } from "elyra-assistant/machines";
import { type AssistantPanel, createAssistantStore } from "elyra-assistant/ui";
import { afterEach, describe, expect, it } from "vitest";
import { fakeClient, numbered } from "./fixtures.ts";

const mount = () => {
  const fake = fakeClient();
  const store = createAssistantStore(fake.client, { open: true, route: () => "/" });
  const panel = document.createElement("elyra-assistant-panel") as AssistantPanel;
  panel.store = store;
  document.body.append(panel);
  return { fake, root: panel.shadowRoot! };
};

afterEach(() => {
  document.body.replaceChildren();
});

const CODE = "xs = await invoices_index({})\nprint(len(xs))";

describe("a script in the panel as its code is written", () => {
  it("says Writing code… and grows its code in place, then Running code…, then Ran code", () => {
    const { fake, root } = mount();
    let seq = 1;
    const emit = (...events: Parameters<typeof numbered>[0]) => {
      fake.emit(...numbered(events, seq));
      seq += events.length;
    };
    emit(
      { _tag: "TurnStarted", turn: 1, text: "How many?", route: null, note: null },
      { _tag: "StepStarted", turn: 1, step: 1 },
      { _tag: "TextDelta", turn: 1, step: 1, text: "In code:" },
      { _tag: "ScriptWriting", turn: 1, toolId: "srvtoolu_1" },
    );
    const script = root.querySelector<HTMLElement>("details.script")!;
    const code = script.querySelector("pre.code > code")!;
    expect(script.querySelector("summary")?.textContent).toBe("Writing code…");
    expect(script.classList.contains("writing")).toBe(true);
    expect(script.getAttribute("aria-busy")).toBe("true");
    expect(code.textContent).toBe("");
    // The words before the code are written in full.
    expect(root.querySelector(".item.answer")?.getAttribute("aria-busy")).toBeNull();

    script.setAttribute("open", "");
    const pieces = ["xs = await ", "invoices_index({})\n", "print(len(xs))"];
    for (const [i, piece] of pieces.entries()) {
      emit({ _tag: "ScriptCodeDelta", turn: 1, toolId: "srvtoolu_1", code: piece });
      // The same element, open as the user left it, its code so far.
      expect(root.querySelector("details.script")).toBe(script);
      expect(script.querySelector("pre.code > code")).toBe(code);
      expect(script.hasAttribute("open")).toBe(true);
      expect(code.textContent).toBe(pieces.slice(0, i + 1).join(""));
      expect(script.querySelector("summary")?.textContent).toBe("Writing code…");
    }

    emit(
      {
        _tag: "StepFinished",
        turn: 1,
        step: 1,
        stopReason: "tool_use",
        usage: { inputTokens: 1, outputTokens: 1 },
      },
      { _tag: "ScriptStarted", turn: 1, toolId: "srvtoolu_1", code: CODE },
      {
        _tag: "ToolStarted",
        turn: 1,
        callId: "k1",
        tool: "invoices_index",
        caller: { type: "code", toolId: "srvtoolu_1" },
      },
    );
    expect(root.querySelector("details.script")).toBe(script);
    expect(script.querySelector("pre.code > code")).toBe(code);
    expect(code.textContent).toBe(CODE);
    expect(script.querySelector("summary")?.textContent).toBe("Running code… 1 call");
    expect(script.classList.contains("running")).toBe(true);
    expect(script.hasAttribute("aria-busy")).toBe(false);
    expect(script.querySelectorAll(".calls li.running")).toHaveLength(1);

    emit(
      { _tag: "ToolFinished", turn: 1, callId: "k1", ok: true, outcome: "ok" },
      { _tag: "ScriptFinished", turn: 1, toolId: "srvtoolu_1", output: "214", calls: 1 },
      { _tag: "Answered", turn: 1, text: "214." },
    );
    expect(root.querySelector("details.script")).toBe(script);
    expect(script.hasAttribute("open")).toBe(true);
    expect(script.className).toBe("item script");
    expect(script.querySelector("summary")?.textContent).toBe("Ran code · 1 call");
    expect(script.querySelectorAll(".calls li.ok")).toHaveLength(1);
    expect(script.querySelector("pre.output")?.textContent).toBe("214");
    expect(root.querySelectorAll("details.script")).toHaveLength(1);
  });

  it("a turn stopped while the code is written: the code so far, cut short", () => {
    const { fake, root } = mount();
    fake.emit(
      ...numbered([
        { _tag: "TurnStarted", turn: 1, text: "Go", route: null, note: null },
        { _tag: "StepStarted", turn: 1, step: 1 },
        { _tag: "ScriptWriting", turn: 1, toolId: "srvtoolu_1" },
        { _tag: "ScriptCodeDelta", turn: 1, toolId: "srvtoolu_1", code: "while True:" },
        { _tag: "Stopped", turn: 1, partial: "" },
        // A piece in flight when Stop was pressed changes nothing.
        { _tag: "ScriptCodeDelta", turn: 1, toolId: "srvtoolu_1", code: " pass" },
      ]),
    );
    const script = root.querySelector<HTMLElement>("details.script")!;
    expect(script.querySelector("pre.code")?.textContent).toBe("while True:");
    expect(script.querySelector("summary")?.textContent).toBe("Ran code · 0 calls");
    expect(script.hasAttribute("aria-busy")).toBe(false);
    expect(script.querySelector("pre.output")?.textContent).toBe(SCRIPT_CUT_SHORT);
  });
});
