/**
 * An argument as people see it on a confirmation: its label and the kind of
 * field it is edited in, derived on the server from the command's
 * effect/Schema annotations as JSON Schema carries them (`title`, and
 * `format`: `date`, or `money` with its `currency`), so the browser needs
 * no schema library to show it. The descriptor's shape is the window
 * protocol's (`ConfirmRequested.editable`), written once here.
 */
import { Schema } from "effect";
import { humanTitle } from "./toolHints.ts";

/**
 * The field an argument is edited in: `date` (a date picker, `YYYY-MM-DD`),
 * `money` (an amount in its `currency`), `number`, `integer`, `boolean`,
 * `text`, or `json` for anything else.
 */
export const FieldKind = Schema.Literal(
  "text",
  "number",
  "integer",
  "boolean",
  "date",
  "money",
  "json",
);
export type FieldKind = typeof FieldKind.Type;

/**
 * One argument the user may change on the dialog: its name (the key sent
 * back), its JSON Schema, and, from hosts that derive them, its label for
 * people, its field's kind and, for money, the ISO 4217 currency.
 */
export const EditableField = Schema.Struct({
  name: Schema.String,
  schema: Schema.Unknown,
  label: Schema.optional(Schema.String),
  kind: Schema.optional(FieldKind),
  currency: Schema.optional(Schema.String),
});
export type EditableField = typeof EditableField.Type;

type JsonObject = Readonly<Record<string, unknown>>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A `$ref` into the tool's `$defs`, followed (a few levels at most). */
const resolved = (schema: unknown, defs: JsonObject): JsonObject => {
  let node = isObject(schema) ? schema : {};
  for (let i = 0; i < 8 && typeof node.$ref === "string"; i++) {
    const name = node.$ref.startsWith("#/$defs/") ? node.$ref.slice(8) : "";
    const next = defs[name];
    if (!isObject(next)) break;
    node = { ...next, ...Object.fromEntries(Object.entries(node).filter(([k]) => k !== "$ref")) };
  }
  return node;
};

/** `NullOr(X)` and `optional(X)` as JSON Schema: the one branch that is not null, else the node. */
const branchOf = (node: JsonObject, defs: JsonObject): JsonObject => {
  const anyOf = Array.isArray(node.anyOf) ? node.anyOf : [];
  const branches = anyOf.map((b) => resolved(b, defs)).filter((b) => b.type !== "null");
  return branches.length === 1 ? (branches[0] as JsonObject) : node;
};

/**
 * Whether a schema's `title` reads as words for people: effect gives its
 * own filters titles that are code (`minLength(1)`, `int`, `positive`), and
 * those are never labels.
 */
export const readsAsLabel = (title: unknown): title is string =>
  typeof title === "string" &&
  title.trim() !== "" &&
  title.length <= 100 &&
  !/[\n(){}_]/.test(title) &&
  (/\s/.test(title.trim()) || /^[A-Z]/.test(title));

const CURRENCY = /^[A-Z]{3}$/;

/**
 * An editable argument's descriptor from its JSON Schema (a property of the
 * tool's input schema, `$defs` for its references): the label is the
 * schema's `title` when it reads as words (`Schema.annotations({ title:
 * "Due date" })`), else the name in words (`due_on` → "Due on"), never the
 * key itself; the kind is `date` for `format: "date"`, `money` for `format:
 * "money"` (with `currency: "EUR"`), else the JSON type's.
 *
 * @example
 * ```ts
 * fieldOf("due_on", { type: "string", title: "Due date", format: "date" });
 * // { name: "due_on", schema: {…}, label: "Due date", kind: "date" }
 * ```
 */
export const fieldOf = (name: string, schema: unknown, defs: JsonObject = {}): EditableField => {
  const node = resolved(schema, defs);
  const branch = branchOf(node, defs);
  const title = [node.title, branch.title].find(readsAsLabel);
  const type = branch.type;
  const format = branch.format;
  const numeric = type === "number" || type === "integer";
  const currency = branch.currency;
  const kind: FieldKind =
    type === "string" && format === "date"
      ? "date"
      : numeric && format === "money"
        ? "money"
        : type === "string"
          ? "text"
          : numeric || type === "boolean"
            ? type
            : "json";
  return {
    name,
    schema: isObject(schema) ? schema : {},
    label: title?.trim() ?? humanTitle(name),
    kind,
    ...(kind === "money" && typeof currency === "string" && CURRENCY.test(currency)
      ? { currency }
      : {}),
  };
};
