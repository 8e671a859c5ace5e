/**
 * How a command that needs the user's confirmation is asked: the sentence the
 * dialog leads with (`confirmLabel`), whether its accept button is
 * destructive and what it says, and which arguments the user may change
 * before approving. Declared on the command; checked by `defineCommand`.
 */

import { canonicalJson } from "../calls/canonicalJson.ts";
import { clip } from "../clip.ts";
import { withoutInvisibles } from "../invisibles.ts";
import { type EditableField, fieldOf } from "./fields.ts";
import type { User } from "./origin.ts";

/** What a command's `confirmLabel` is told besides the decoded arguments. */
export interface ConfirmLabelContext {
  /** The signed-in user the call is made for. */
  readonly user: User;
  /** Aborted when the label took too long (2 s) or the call was stopped. */
  readonly signal: AbortSignal;
}

/** A command's `confirmLabel`: a sentence from its decoded arguments, async allowed. */
export type ConfirmLabel<A> = (
  args: A,
  ctx: ConfirmLabelContext,
) => string | PromiseLike<string> | undefined;

export type { EditableField };

/** How a command is asked, as `defineCommand` derives it. */
export interface ConfirmationSpec<A> {
  readonly label: ConfirmLabel<A> | undefined;
  /** The accept button is styled and worded as destructive, and never focused first. */
  readonly destructive: boolean;
  /** The accept button's word: `Delete` for a destructive command, `Confirm` otherwise, unless declared. */
  readonly action: string;
  /** The arguments the user may change before approving, in positional order. */
  readonly editable: ReadonlyArray<EditableField>;
}

/**
 * How long a `confirmLabel` may take before the default is shown: 2 s. Its
 * `signal` aborts then; pass it on to what the label waits for.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const customersDestroy = defineCommand({
 *   name: "customers_destroy",
 *   description: "Delete one customer and their invoices.",
 *   can: "customers.destroy",
 *   args: { id: Schema.Number },
 *   // Not back within CONFIRM_LABEL_TIMEOUT_MS: the dialog shows its default question.
 *   confirmLabel: async ({ id }, { signal }) => {
 *     const customer = await db.customers.find(id, { signal });
 *     return `Delete ${customer.name} and their invoices?`;
 *   },
 *   run: ({ id }) => db.customers.destroy(id),
 * });
 * ```
 */
export const CONFIRM_LABEL_TIMEOUT_MS = 2_000;
/** The longest label shown; a longer one is cut with `…`. */
export const MAX_CONFIRM_LABEL = 300;
export const MAX_ACTION = 40;

/** The verbs of an ability that make a command destructive unless it says otherwise. */
const DESTRUCTIVE_VERBS = new Set(["delete", "destroy", "remove", "purge", "erase"]);

/** Whether an ability's last name is a destructive verb (`customers.destroy`). */
const destructiveByAbility = (can: string | undefined): boolean =>
  can !== undefined && DESTRUCTIVE_VERBS.has(can.slice(can.lastIndexOf(".") + 1));

/**
 * Checks and derives a command's confirmation from its declaration; returns
 * the problem as a sentence when the declaration is wrong.
 */
export const confirmationOf = <A>(
  spec: {
    readonly can?: string;
    readonly confirmLabel?: unknown;
    readonly destructive?: unknown;
    readonly confirmAction?: unknown;
    readonly editable?: unknown;
  },
  argumentNames: ReadonlyArray<string>,
  inputSchema: Readonly<Record<string, unknown>>,
): ConfirmationSpec<A> | string => {
  if (spec.confirmLabel !== undefined && typeof spec.confirmLabel !== "function")
    return "confirmLabel must be a function of the arguments and the user";
  if (spec.destructive !== undefined && typeof spec.destructive !== "boolean")
    return "destructive must be true or false";
  const action = spec.confirmAction;
  if (
    action !== undefined &&
    (typeof action !== "string" || action.trim() === "" || action.length > MAX_ACTION)
  )
    return `confirmAction must be a word or two for the accept button (1 to ${MAX_ACTION} characters)`;
  const editable = spec.editable ?? [];
  if (!Array.isArray(editable)) return "editable must list argument names";
  const properties = (inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const fields: EditableField[] = [];
  for (const name of editable) {
    if (typeof name !== "string" || !argumentNames.includes(name))
      return `editable names ${JSON.stringify(name)}, which is not one of its arguments`;
    if (fields.some((field) => field.name === name))
      return `editable names ${JSON.stringify(name)} twice`;
    fields.push(
      fieldOf(name, properties[name] ?? {}, (inputSchema.$defs ?? {}) as Record<string, unknown>),
    );
  }
  const destructive = (spec.destructive as boolean | undefined) ?? destructiveByAbility(spec.can);
  return {
    label: spec.confirmLabel as ConfirmLabel<A> | undefined,
    destructive,
    action: (action as string | undefined)?.trim() ?? (destructive ? "Delete" : "Confirm"),
    editable: fields,
  };
};

/** A label as shown: one line, trimmed, at most {@link MAX_CONFIRM_LABEL} characters; else undefined. */
export const labelText = (value: unknown): string | undefined => {
  if (typeof value !== "string") return undefined;
  // What a person confirms reads as it is: nothing in it reorders or hides what follows.
  const text = withoutInvisibles(value.replace(/\s+/g, " ")).replace(/ +/g, " ").trim();
  if (text === "") return undefined;
  return clip(text, MAX_CONFIRM_LABEL);
};

/**
 * Whether `edited` differs from `original` in editable arguments only: a
 * plain object whose every other member is the original's (as canonical
 * JSON), with no member the original lacks unless it is editable.
 */
export const editWithin = (
  original: unknown,
  edited: unknown,
  editable: ReadonlyArray<EditableField>,
): boolean => {
  if (!isRecord(original) || !isRecord(edited) || editable.length === 0) return false;
  const names = new Set(editable.map((field) => field.name));
  for (const key of Object.keys(edited)) {
    if (names.has(key)) continue;
    if (!Object.hasOwn(original, key)) return false;
  }
  for (const key of Object.keys(original)) {
    if (names.has(key)) continue;
    if (!Object.hasOwn(edited, key)) return false;
    if (canonicalJson(original[key]) !== canonicalJson(edited[key])) return false;
  }
  return true;
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
