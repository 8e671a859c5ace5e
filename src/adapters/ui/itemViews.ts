/**
 * One view per kind of panel item, built with text nodes only. Answers and
 * scripts are patched in place while they stream; the others are rebuilt
 * when they change.
 */
import type { PanelItem, ScriptStep } from "../../runtime/log/panelItems.ts";
import { type ConfirmContext, confirmView } from "./confirmView.ts";
import { h } from "./dom.ts";
import { failureWords } from "./failureWords.ts";
import { stepHref } from "./links.ts";
import { outcomeWords } from "./outcomeWords.ts";

type ItemOf<K extends PanelItem["kind"]> = Extract<PanelItem, { kind: K }>;

/** What the views need of the panel. */
export interface ViewContext extends ConfirmContext {
  /** Sends a failed turn's prompt again (its _Retry_ button). */
  readonly onRetry?: (prompt: string) => void;
}

/** A failed turn: what probably went wrong, in words, and _Retry_, which sends its prompt again. */
/** What the panel says where the earlier turns were summarised. */
export const SUMMARISED_WORDS =
  "Earlier messages were summarised to keep the conversation going. The assistant works from that summary now.";

const failedView = (context: ViewContext, item: ItemOf<"error">): HTMLElement => {
  const { doc, onRetry } = context;
  const prompt = item.prompt;
  const retry =
    prompt !== undefined &&
    onRetry !== undefined &&
    h(doc, "button", { type: "button", class: "retry" }, "Retry");
  if (retry) retry.addEventListener("click", () => onRetry?.(prompt as string));
  return h(
    doc,
    "div",
    { class: "item error" },
    h(doc, "span", { class: "text" }, failureWords(item)),
    retry,
  );
};

/** Each item's key: the same item keeps it as it changes. */
export const keyOf = (item: PanelItem): string => {
  switch (item.kind) {
    case "user":
      return `user:${item.turn}`;
    case "answer":
      return `answer:${item.turn}:${item.step}`;
    case "tool":
      return `tool:${item.callId}`;
    case "confirm":
      return `confirm:${item.confirmId}`;
    case "script":
      return `script:${item.toolId}`;
    case "error":
      return `error:${item.turn}`;
    case "stopped":
      return `stopped:${item.turn}`;
    case "summarised":
      return `summarised:${item.turn}`;
  }
};

const stepView = (
  doc: Document,
  step: ScriptStep | ItemOf<"tool">,
  tag: "div" | "li",
): HTMLElement => {
  const state = step.ok === undefined ? "running" : step.ok ? "ok" : "failed";
  const href = stepHref(step);
  const name =
    href === undefined
      ? h(doc, "span", { class: "tool" }, step.tool)
      : h(doc, "a", { class: "tool", href }, step.tool);
  const status = state === "running" ? "running…" : outcomeWords(step);
  return h(
    doc,
    tag,
    { class: `step ${state}`, "data-state": state },
    h(doc, "span", { class: "mark", "aria-hidden": "true" }),
    name,
    status !== undefined && h(doc, "span", { class: "status" }, ` · ${status}`),
  );
};

const answerView = (doc: Document, item: ItemOf<"answer">): HTMLElement => {
  const view = h(doc, "div", { class: "item answer" }, h(doc, "span", { class: "text" }));
  patchAnswer(view, item);
  return view;
};

/** Updates a streaming answer's text and caret in place. */
export const patchAnswer = (view: HTMLElement, item: ItemOf<"answer">): void => {
  const text = view.querySelector(".text");
  if (text !== null && text.textContent !== item.text) text.textContent = item.text;
  const caret = view.querySelector(".caret");
  if (item.streaming) {
    view.setAttribute("aria-busy", "true");
    if (caret === null)
      view.append(h(view.ownerDocument, "span", { class: "caret", "aria-hidden": "true" }));
  } else {
    view.removeAttribute("aria-busy");
    caret?.remove();
  }
};

/** What a script is doing: Claude writes its code, the code runs, or it ran. */
const scriptState = (item: ItemOf<"script">): "writing" | "running" | "ran" =>
  item.writing === true ? "writing" : item.output === undefined ? "running" : "ran";

const scriptSummary = (item: ItemOf<"script">): string => {
  const calls = `${item.calls} call${item.calls === 1 ? "" : "s"}`;
  const state = scriptState(item);
  return state === "writing"
    ? "Writing code…"
    : state === "running"
      ? `Running code… ${calls}`
      : `Ran code · ${calls}`;
};

const scriptView = (doc: Document, item: ItemOf<"script">): HTMLElement => {
  const view = h(
    doc,
    "details",
    { class: "item script" },
    h(doc, "summary", {}),
    h(doc, "pre", { class: "code" }, h(doc, "code", {})),
  );
  patchScript(view, item);
  return view;
};

/**
 * Updates a script's view in place: its state, its code as it is written
 * (the same `<code>` element, so an open script stays open and keeps its
 * scroll), its calls when they changed since `before`, and its output.
 */
export const patchScript = (
  view: HTMLElement,
  item: ItemOf<"script">,
  before?: ItemOf<"script">,
): void => {
  const doc = view.ownerDocument;
  const state = scriptState(item);
  view.className = state === "ran" ? "item script" : `item script ${state}`;
  if (state === "writing") view.setAttribute("aria-busy", "true");
  else view.removeAttribute("aria-busy");
  const summary = view.querySelector("summary");
  const words = scriptSummary(item);
  if (summary !== null && summary.textContent !== words) summary.textContent = words;
  const code = view.querySelector("pre.code > code");
  if (code !== null && code.textContent !== item.code) code.textContent = item.code;
  if (before === undefined || before.steps !== item.steps) {
    const calls =
      item.steps.length > 0 &&
      h(doc, "ol", { class: "calls" }, ...item.steps.map((step) => stepView(doc, step, "li")));
    const shown = view.querySelector("ol.calls");
    if (shown !== null && calls) shown.replaceWith(calls);
    else if (shown !== null) shown.remove();
    else if (calls) view.querySelector("pre.code")?.after(calls);
  }
  const output = view.querySelector("pre.output");
  if (item.output === undefined) output?.remove();
  else if (output === null)
    view.append(h(doc, "pre", { class: "output", "aria-label": "Output" }, item.output));
  else if (output.textContent !== item.output) output.textContent = item.output;
};

/** A new view of `item`. */
export const itemView = (context: ViewContext, item: PanelItem): HTMLElement => {
  const { doc } = context;
  switch (item.kind) {
    case "user":
      return h(doc, "div", { class: "item user" }, item.text);
    case "answer":
      return answerView(doc, item);
    case "tool": {
      const view = stepView(doc, item, "div");
      view.classList.add("item");
      if (item.fromCode) view.classList.add("from-code");
      return view;
    }
    case "confirm":
      return confirmView(context, item);
    case "script":
      return scriptView(doc, item);
    case "error":
      return failedView(context, item);
    case "stopped":
      return h(doc, "div", { class: "item stopped" }, "Stopped.");
    case "summarised":
      return h(doc, "div", { class: "item summarised", role: "note" }, SUMMARISED_WORDS);
  }
};
