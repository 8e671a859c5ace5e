/**
 * One view per kind of panel item, built with text nodes only. Answers are
 * patched in place while they stream; the others are rebuilt when they change.
 */
import type { PanelItem, ScriptStep } from "../../runtime/log/panelItems.ts";
import { h } from "./dom.ts";
import { stepHref } from "./links.ts";
import { outcomeWords } from "./outcomeWords.ts";

type ItemOf<K extends PanelItem["kind"]> = Extract<PanelItem, { kind: K }>;

export interface ViewContext {
  readonly doc: Document;
  /** A unique id for `aria-labelledby` inside the shadow root. */
  readonly nextId: () => string;
  readonly onConfirm: (item: ItemOf<"confirm">, accept: boolean) => void;
}

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

const ANSWERS = {
  accepted: "Accepted.",
  declined: "Declined.",
  timedOut: "Not answered in time.",
  cancelled: "Cancelled: the turn ended first.",
} as const;

const prettyJson = (value: unknown): string => {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
};

const confirmView = (context: ViewContext, item: ItemOf<"confirm">): HTMLElement => {
  const { doc } = context;
  const title = context.nextId();
  const description = context.nextId();
  const waiting = item.answer === undefined;
  const accept = h(doc, "button", { type: "button", class: "accept" }, "Accept");
  const decline = h(doc, "button", { type: "button", class: "decline" }, "Decline");
  const answer = (accepted: boolean) => () => {
    accept.disabled = true;
    decline.disabled = true;
    context.onConfirm(item, accepted);
  };
  accept.addEventListener("click", answer(true));
  decline.addEventListener("click", answer(false));
  return h(
    doc,
    "section",
    {
      class: `item confirm${waiting ? " waiting" : ""}`,
      role: "dialog",
      "aria-modal": "false",
      "aria-labelledby": title,
      "aria-describedby": description,
      tabindex: "-1",
    },
    h(doc, "h3", { id: title }, "Confirm ", h(doc, "code", { class: "tool" }, item.tool)),
    h(doc, "p", { id: description, class: "description" }, item.description),
    h(doc, "pre", { class: "args", "aria-label": "Arguments" }, prettyJson(item.args)),
    waiting
      ? h(doc, "div", { class: "buttons" }, accept, decline)
      : h(doc, "p", { class: "answer" }, ANSWERS[item.answer ?? "cancelled"]),
  );
};

const scriptView = (doc: Document, item: ItemOf<"script">): HTMLElement => {
  const running = item.output === undefined;
  const calls = `${item.calls} call${item.calls === 1 ? "" : "s"}`;
  return h(
    doc,
    "details",
    { class: `item script${running ? " running" : ""}` },
    h(doc, "summary", {}, running ? `Running code… ${calls}` : `Ran code · ${calls}`),
    h(doc, "pre", { class: "code" }, h(doc, "code", {}, item.code)),
    item.steps.length > 0 &&
      h(doc, "ol", { class: "calls" }, ...item.steps.map((step) => stepView(doc, step, "li"))),
    !running && h(doc, "pre", { class: "output", "aria-label": "Output" }, item.output ?? ""),
  );
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
      return h(doc, "div", { class: "item error" }, `Something went wrong: ${item.error}`);
    case "stopped":
      return h(doc, "div", { class: "item stopped" }, "Stopped.");
  }
};
