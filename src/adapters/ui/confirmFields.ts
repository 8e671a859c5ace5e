/**
 * The confirmation's editable fields: one labelled input per argument the
 * command lets the user change, of the kind the host derived from the
 * command's schema (a date picker for a date, an amount with its currency, a
 * number, a checkbox, text, or JSON). Labels are the host's words for people,
 * never the argument's key; older logs, with no label, get the key in words.
 */
import type { EditableField, FieldKind } from "../../runtime/commands/fields.ts";
import { humanTitle } from "../../runtime/commands/toolHints.ts";
import { h } from "./dom.ts";

/** One field of the dialog: the argument it edits, its label, and how to read it back. */
export interface FieldView {
  readonly name: string;
  readonly label: string;
  readonly input: HTMLElement;
  readonly row: HTMLElement;
  /** The value as the user left it; undefined leaves the argument out. */
  readonly read: () => unknown;
}

type Schema = { type?: unknown; anyOf?: ReadonlyArray<{ type?: unknown }> } | null;

/** The kind from a field's JSON Schema alone: what a log written before kinds were derived holds. */
const kindOfSchema = (schema: unknown): FieldKind => {
  const s = schema as Schema;
  // `NullOr(X)` and `optional(X)` as JSON Schema: the type of the one branch that is not null.
  const branches = (s?.anyOf ?? []).filter((b) => b?.type !== "null");
  const type =
    typeof s?.type === "string" ? s.type : branches.length === 1 ? branches[0]?.type : undefined;
  if (type === "string") return "text";
  return type === "number" || type === "integer" || type === "boolean" ? type : "json";
};

const nullable = (schema: unknown): boolean =>
  ((schema as Schema)?.anyOf ?? []).some((b) => b?.type === "null");

const prettyJson = (value: unknown): string => {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
};

/** A currency's sign as people write it where they are (`€` for EUR), else its code. */
const currencySign = (currency: string): string => {
  try {
    const parts = new Intl.NumberFormat(undefined, { style: "currency", currency }).formatToParts(
      0,
    );
    return parts.find((part) => part.type === "currency")?.value ?? currency;
  } catch {
    return currency;
  }
};

/**
 * One labelled field for an editable argument.
 *
 * @example
 * ```ts
 * const due = fieldView(document, "elyra-1", { name: "due_on", schema: {}, label: "Due date", kind: "date" }, "2026-07-01");
 * due.input; // <input type="date" value="2026-07-01">, labelled "Due date"
 * ```
 */
export const fieldView = (
  doc: Document,
  id: string,
  field: EditableField,
  value: unknown,
): FieldView => {
  const { name, schema } = field;
  const label = field.label ?? humanTitle(name);
  const kind = field.kind ?? kindOfSchema(schema);
  const labelled = h(doc, "label", { for: id }, label);
  const made = (input: HTMLElement, read: () => unknown, ...row: HTMLElement[]): FieldView => ({
    name,
    label,
    input,
    read,
    row: h(doc, "div", {}, ...row),
  });
  if (kind === "boolean") {
    const input = h(doc, "input", { id, type: "checkbox", name });
    input.checked = value === true;
    return made(input, () => input.checked, input, labelled);
  }
  if (kind === "number" || kind === "integer" || kind === "money") {
    const whole = kind === "integer" || (schema as Schema)?.type === "integer";
    const input = h(doc, "input", {
      id,
      type: "number",
      name,
      step: whole ? "1" : kind === "money" ? "0.01" : "any",
      inputmode: "decimal",
    });
    input.value = typeof value === "number" ? String(value) : "";
    const read = () => (input.value.trim() === "" ? undefined : Number(input.value));
    const currency = field.currency;
    if (kind !== "money" || currency === undefined) return made(input, read, labelled, input);
    // The amount's currency beside it, and in its accessible name: "Amount (EUR)".
    input.setAttribute("aria-label", `${label} (${currency})`);
    const unit = h(doc, "span", { class: "unit", "aria-hidden": "true" }, currencySign(currency));
    return made(input, read, labelled, unit, input);
  }
  if (
    kind === "date" ||
    kind === "text" ||
    value === undefined ||
    typeof value === "string" ||
    value === null
  ) {
    const input = h(doc, "input", {
      id,
      type: kind === "date" ? "date" : "text",
      name,
      autocomplete: "off",
    });
    input.value = typeof value === "string" ? value : "";
    const empty = value === null && nullable(schema) ? null : undefined;
    const read = () => (input.value === "" && value !== "" ? empty : input.value);
    return made(input, read, labelled, input);
  }
  // Anything else is edited as JSON; text that is not JSON is sent as it is, and decoding says why.
  const input = h(doc, "textarea", { id, name, rows: "3", spellcheck: "false" });
  input.value = prettyJson(value);
  const read = () => {
    try {
      return JSON.parse(input.value) as unknown;
    } catch {
      return input.value;
    }
  };
  return made(input, read, labelled, input);
};

/**
 * An issue of an edit the host refused, in words people read: the field's
 * label rather than the argument's key (`due_on: …` → `Due date: …`).
 *
 * @example
 * ```ts
 * issueWords({ path: "due_on", message: "must be a date as YYYY-MM-DD" }, fields);
 * // "Due date: must be a date as YYYY-MM-DD"
 * ```
 */
export const issueWords = (
  issue: { readonly path: string; readonly message: string },
  fields: ReadonlyArray<Pick<FieldView, "name" | "label">>,
): string => {
  const key = issue.path.split(/[.[]/)[0] ?? "";
  if (key === "") return issue.message;
  const field = fields.find((f) => f.name === key);
  return `${field?.label ?? humanTitle(key)}: ${issue.message}`;
};
