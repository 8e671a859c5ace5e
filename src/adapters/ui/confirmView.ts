/**
 * The confirmation dialog: the command's sentence first (or the tool and its
 * description), then the arguments, the ones the user may change as labelled
 * fields; Decline, then the accept button, worded and styled as destructive
 * when the command is, and never focused first. Text nodes only (U1).
 */

import { canonicalJson } from "../../runtime/calls/canonicalJson.ts";
import type { PanelItem } from "../../runtime/log/panelItems.ts";
import type { ConfirmResult } from "../web/wire.ts";
import { changesView } from "./changesView.ts";
import { fieldView, issueWords } from "./confirmFields.ts";
import { h } from "./dom.ts";

type ConfirmItem = Extract<PanelItem, { kind: "confirm" }>;

/** What the dialog needs of the panel. */
export interface ConfirmContext {
  readonly doc: Document;
  /** A unique id for `aria-labelledby` inside the shadow root. */
  readonly nextId: () => string;
  /** Sends the answer (with the edited arguments, when the user changed any); what became of it. */
  readonly onConfirm: (
    item: ConfirmItem,
    accept: boolean,
    edited?: unknown,
  ) => Promise<ConfirmResult | undefined>;
}

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

/** The dialog of one confirmation, waiting or answered. */
export const confirmView = (context: ConfirmContext, item: ConfirmItem): HTMLElement => {
  const { doc } = context;
  const title = context.nextId();
  const description = context.nextId();
  const waiting = item.answer === undefined;
  const args = (item.args ?? {}) as Record<string, unknown>;
  const editing = waiting && item.editable.length > 0 && typeof item.args === "object";
  const fields = editing
    ? item.editable.map((field) => fieldView(doc, context.nextId(), field, args[field.name]))
    : [];
  // Answered with the user's changes: what was approved is shown, never the asked arguments as if they ran.
  const changed = !waiting && item.edited === true;
  const ran = changed ? item.editedArgs : undefined;
  const fixed = editing
    ? Object.fromEntries(
        Object.entries(args).filter(([name]) => !item.editable.some((f) => f.name === name)),
      )
    : (ran ?? item.args);
  const argsLabel =
    ran !== undefined ? "Arguments, with your changes" : changed ? "Arguments asked" : "Arguments";
  // The alert holds the list (an alert role on the list itself would hide that it is one).
  const issues = h(doc, "ul");
  const problems = h(doc, "div", { class: "issues", role: "alert" }, issues);
  problems.hidden = true;
  const accept = h(
    doc,
    "button",
    { type: "button", class: `accept${item.destructive ? " destructive" : ""}` },
    item.action,
  );
  const decline = h(doc, "button", { type: "button", class: "decline" }, "Decline");
  const edited = (): unknown => {
    if (!editing) return undefined;
    const next: Record<string, unknown> = { ...args };
    for (const field of fields) {
      const value = field.read();
      if (value === undefined) delete next[field.name];
      else next[field.name] = value;
    }
    return canonicalJson(next) === canonicalJson(args) ? undefined : next;
  };
  const answer = (accepted: boolean) => async () => {
    accept.disabled = true;
    decline.disabled = true;
    const result = await context.onConfirm(item, accepted, accepted ? edited() : undefined);
    if (result?._tag !== "InvalidEdit") return;
    // Still asked: say what to fix, next to the field it is about.
    accept.disabled = false;
    decline.disabled = false;
    issues.replaceChildren(
      ...result.issues.map((issue) => h(doc, "li", {}, issueWords(issue, fields))),
    );
    problems.hidden = false;
    for (const field of fields) {
      const wrong = result.issues.some(
        (issue) => issue.path === field.name || issue.path.startsWith(`${field.name}.`),
      );
      if (wrong) field.input.setAttribute("aria-invalid", "true");
      else field.input.removeAttribute("aria-invalid");
    }
    (fields.find((f) => f.input.getAttribute("aria-invalid") === "true")?.input ?? accept).focus();
  };
  accept.addEventListener("click", answer(true));
  decline.addEventListener("click", answer(false));
  const heading =
    item.label === undefined
      ? h(doc, "h3", { id: title }, `${item.title}?`)
      : // The sentence was made from the asked arguments: after a change it says what was asked.
        h(
          doc,
          "h3",
          { id: title, class: changed ? "label asked" : "label" },
          changed && "Claude asked: ",
          item.label,
        );
  // What it does in the command's words for people; the model's description is never shown here.
  const about =
    item.summary !== undefined &&
    h(doc, "p", { id: description, class: "description summary" }, item.summary);
  const ended = item.answer ?? "cancelled";
  const said =
    ended === "accepted" && item.edited === true ? "Accepted with your changes." : ANSWERS[ended];
  return h(
    doc,
    "section",
    {
      class: `item confirm${waiting ? " waiting" : ""}${item.destructive ? " destructive" : ""}`,
      role: "dialog",
      "aria-modal": "false",
      "aria-labelledby": title,
      "aria-describedby": about ? description : undefined,
      tabindex: "-1",
    },
    heading,
    about,
    changed &&
      item.changes !== undefined &&
      item.changes.length > 0 &&
      changesView(doc, item.changes, item.editable),
    (!editing || Object.keys(fixed as object).length > 0) &&
      h(doc, "pre", { class: "args", "aria-label": argsLabel }, prettyJson(fixed)),
    editing &&
      h(
        doc,
        "fieldset",
        { class: "edit" },
        h(doc, "legend", {}, "You may change"),
        ...fields.map((field) => field.row),
      ),
    editing && problems,
    waiting
      ? h(doc, "div", { class: "buttons" }, decline, accept)
      : h(doc, "p", { class: "answer" }, said),
  );
};
