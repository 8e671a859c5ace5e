/**
 * An answered confirmation the user changed: each argument they changed,
 * by its field's label, what it is now and what it was (`Amount: €750 (was
 * €500)`). Text nodes only.
 */
import type { EditableField } from "../../runtime/commands/fields.ts";
import { humanTitle } from "../../runtime/commands/toolHints.ts";
import type { ArgumentChange } from "../../runtime/log/argumentChanges.ts";
import { h } from "./dom.ts";

/** A value as the list reads it: money with its currency, a string as it is, anything else as JSON. */
const valueWords = (value: unknown, field: EditableField | undefined): string => {
  if (typeof value === "number" && field?.kind === "money" && field.currency !== undefined) {
    try {
      return new Intl.NumberFormat("en", {
        style: "currency",
        currency: field.currency,
        minimumFractionDigits: Number.isInteger(value) ? 0 : 2,
      }).format(value);
    } catch {
      return String(value);
    }
  }
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
};

const sideWords = (
  change: ArgumentChange,
  side: "was" | "now",
  field: EditableField | undefined,
): string => (Object.hasOwn(change, side) ? valueWords(change[side], field) : "not set");

/**
 * The list of what the user changed, each by its field's label (the key in
 * words when the log has none) and marked with what it was.
 */
export const changesView = (
  doc: Document,
  changes: ReadonlyArray<ArgumentChange>,
  editable: ReadonlyArray<EditableField>,
): HTMLElement =>
  h(
    doc,
    "ul",
    { class: "changes", "aria-label": "Your changes" },
    ...changes.map((change) => {
      const field = editable.find((f) => f.name === change.name);
      return h(
        doc,
        "li",
        {},
        h(doc, "span", { class: "name" }, field?.label ?? humanTitle(change.name)),
        `: ${sideWords(change, "now", field)} `,
        h(doc, "span", { class: "was" }, `(was ${sideWords(change, "was", field)})`),
      );
    }),
  );
