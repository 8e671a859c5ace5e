/**
 * The offline demo model: scripted answers, not Claude. It reads the user's
 * last message (and the window note before it), picks a tool call or an
 * answer by a few fixed rules, and once the tool's result is back, says what
 * it found. It streams its text a word at a time, like `fakeModel` with a
 * pace, and never touches the network. With `ANTHROPIC_API_KEY` set, the
 * example uses Claude instead.
 */
import {
  type ContentBlock,
  type Message,
  type Model,
  ModelError,
  type ModelResponse,
  type ToolResultBlock,
  type ToolUseBlock,
} from "elyra-assistant";
import { euros, plural } from "./words.ts";

/** The model the demo's steps name: no price table has it, so what it answers costs nothing known. */
export const DEMO_MODEL = "elyra-demo";

/** What the panel says while the demo model answers. */
export const DEMO_NOTICE =
  "Demo model: scripted answers, not Claude. Set ANTHROPIC_API_KEY to talk to Claude.";

export interface DemoModelOptions {
  /** Milliseconds between words: 30 unless given; 0 tells them all at once. */
  readonly paceMs?: number;
}

/** What the window note says, as far as the demo reads it. */
interface Note {
  readonly route?: string;
  readonly selected?: Readonly<Record<string, ReadonlyArray<string | number>>>;
  /** How many selected ids the note left out (`true` in notes older than the count). */
  readonly more_selected?: number | boolean;
}

type Decision =
  | { readonly say: string }
  | { readonly call: string; readonly input: Readonly<Record<string, unknown>> };

const HELP =
  "I'm the offline demo model: scripted answers, not Claude. Try “Which invoices are overdue?”, " +
  "“Find Hopper”, “Which invoices have no project?”, “What is selected?”, or on a customer's page " +
  "“Set her credit limit to 20 000” and “Delete this customer” (it asks you first). " +
  "Set ANTHROPIC_API_KEY and restart to talk to Claude.";

/** Splits `<window>{…}</window>\n\ntext` into the note and the text. */
export const readPrompt = (content: string): { readonly note: Note; readonly text: string } => {
  const match = /^<window>([\s\S]*?)<\/window>\n\n/.exec(content);
  if (match === null) return { note: {}, text: content };
  let note: Note = {};
  try {
    note = JSON.parse(match[1] as string) as Note;
  } catch {
    // A note the demo cannot read is no note.
  }
  return { note, text: content.slice(match[0].length) };
};

const idOnRoute = (note: Note, kind: "customers" | "invoices"): number | undefined => {
  const match = new RegExp(`^/${kind}/(\\d+)$`).exec(note.route ?? "");
  return match ? Number(match[1]) : undefined;
};

const selectedOf = (note: Note, kind: string): ReadonlyArray<number> =>
  (note.selected?.[kind] ?? []).map(Number).filter((n) => Number.isInteger(n) && n > 0);

/** A number as people write it: `50 000`, `50,000`, `12.5k`, `€7500`. */
export const parseAmount = (text: string): number | undefined => {
  const match = /(\d{1,3}(?:[ ,.\u00a0\u202f]\d{3})+|\d+(?:\.\d+)?)\s*(k\b|thousand\b)?/i.exec(
    text,
  );
  if (match === null) return undefined;
  const digits = /^\d{1,3}([ ,.\u00a0\u202f]\d{3})+$/.test(match[1] as string)
    ? (match[1] as string).replace(/\D/g, "")
    : (match[1] as string);
  const value = Number(digits) * (match[2] ? 1000 : 1);
  return Number.isFinite(value) ? Math.round(value) : undefined;
};

/** The customer a prompt means: one it names, else the page the user is on, else the one selected. */
const customerMeant = (text: string, note: Note): number | ReadonlyArray<number> | undefined => {
  const named = /\bcustomer\s*(?:#|no\.?\s*)?(\d+)/i.exec(text);
  if (named) return Number(named[1]);
  const onPage = idOnRoute(note, "customers");
  if (onPage !== undefined) return onPage;
  const selected = selectedOf(note, "customers");
  return selected.length === 1 ? selected[0] : selected.length > 1 ? selected : undefined;
};

const invoiceMeant = (text: string, note: Note): number | ReadonlyArray<number> | undefined => {
  const named = /\b(?:invoice\s*(?:#|no\.?\s*)?|inv-?)0*(\d+)/i.exec(text);
  if (named) return Number(named[1]);
  const onPage = idOnRoute(note, "invoices");
  if (onPage !== undefined) return onPage;
  const selected = selectedOf(note, "invoices");
  return selected.length === 1 ? selected[0] : selected.length > 1 ? selected : undefined;
};

const PRONOUN = /\b(her|his|their|them|this|these|its)\b/i;

const oneAtATime = (kind: string) =>
  `You have several ${kind} selected; the demo model does one at a time. Open one, or select just one, and ask again.`;

/** The first move for a prompt: a tool call, or an answer straight away. */
export const decide = (text: string, note: Note): Decision => {
  const lower = text.toLowerCase();
  if (/\b(delete|remove|destroy)\b/.test(lower)) {
    const invoice =
      /\binvoice|\binv-?\d/.test(lower) ||
      (!/\bcustomer/.test(lower) && idOnRoute(note, "invoices") !== undefined);
    const id = invoice ? invoiceMeant(text, note) : customerMeant(text, note);
    const kind = invoice ? "invoice" : "customer";
    if (id === undefined)
      return {
        say: `Which ${kind}? Open its page, select it in the list, or name it (“delete ${kind} 12”).`,
      };
    if (typeof id !== "number") return { say: oneAtATime(`${kind}s`) };
    return { call: invoice ? "invoices_destroy" : "customers_destroy", input: { id } };
  }
  if (/\b(bill|invoice (?:her|him|them|customer))\b/.test(lower)) {
    const id = customerMeant(text, note);
    if (id === undefined)
      return {
        say: "Whom should I bill? Open a customer's page, or name one (“bill customer 12 for 500”).",
      };
    if (typeof id !== "number") return { say: oneAtATime("customers") };
    const named = /\bcustomer\s*(?:#|no\.?\s*)?\d+/i;
    const amount = parseAmount(lower.replace(named, "").replace(/^.*?\b(?:for|of)\b/, ""));
    if (amount === undefined) return { say: "For how much? Say, for example, “for 1 200”." };
    return { call: "invoices_store", input: { customer_id: id, amount } };
  }
  if (/credit\s*limit/.test(lower)) {
    const id = customerMeant(text, note);
    if (id === undefined)
      return {
        say: "Whose credit limit? Open a customer's page and ask again, or name one (“set the credit limit of customer 12 to 20 000”).",
      };
    if (typeof id !== "number") return { say: oneAtATime("customers") };
    const after = lower.slice(lower.search(/credit\s*limit/));
    const named = /\bcustomer\s*(?:#|no\.?\s*)?\d+/i;
    const target = /\b(?:to|at|=)\s*€?\s*(\d[\d ,.\u00a0\u202f]*(?:k\b|thousand\b)?)/i.exec(
      after.replace(named, ""),
    );
    const amount = parseAmount(target?.[1] ?? after.replace(named, ""));
    if (amount === undefined) return { say: "To how much? Say, for example, “to 20 000”." };
    return { call: "customers_update", input: { id, credit_limit: amount } };
  }
  if (/\b(mark|set)\b.*\bpaid\b/.test(lower)) {
    const id = invoiceMeant(text, note);
    if (id === undefined) return { say: "Which invoice? Open its page and ask again." };
    if (typeof id !== "number") return { say: oneAtATime("invoices") };
    return { call: "invoices_update", input: { id, paid: true } };
  }
  if (/\b(overdue|late|unpaid)\b/.test(lower)) {
    const named = /\bcustomer\s*(?:#|no\.?\s*)?(\d+)/i.exec(text);
    const onPage = idOnRoute(note, "customers");
    const customer = named
      ? Number(named[1])
      : PRONOUN.test(text) && onPage !== undefined
        ? onPage
        : undefined;
    return {
      call: "invoices_index",
      input: {
        ...(customer === undefined ? {} : { customer_id: customer }),
        ...(/\bunpaid\b/.test(lower) && !/\b(overdue|late)\b/.test(lower)
          ? { paid: false }
          : { overdue: true }),
      },
    };
  }
  if (/\b(no|without( a)?|missing( a)?) project\b/.test(lower)) {
    return { call: "invoices_index", input: { without_project: true } };
  }
  const find = /\b(?:find|search(?: for)?|look up|who is)\s+(.+?)[?.!]*$/i.exec(text.trim());
  if (find) return { call: "customers_index", input: { search: find[1] as string } };
  const selected = Object.entries(note.selected ?? {}).filter(([, ids]) => ids.length > 0);
  if (/\b(selected|these|them|those)\b/.test(lower) && selected.length > 0) {
    const named = (kind: string, id: string | number) =>
      kind === "invoices" ? `INV-${String(id).padStart(4, "0")}` : `#${id}`;
    const lists = selected.map(
      ([kind, ids]) =>
        `${ids.length} ${ids.length === 1 ? kind.replace(/s$/, "") : kind} (${ids
          .slice(0, 8)
          .map((id) => named(kind, id))
          .join(", ")}${ids.length > 8 ? ", …" : ""})`,
    );
    const more = note.more_selected;
    const andMore =
      typeof more === "number" && more > 0
        ? `, and ${more} more not listed here`
        : more
          ? ", and more"
          : "";
    return {
      say: `You have selected ${lists.join(" and ")}${andMore}. Claude could work through them; this demo only reads which ones they are.`,
    };
  }
  return { say: HELP };
};

/** What the demo says once a tool's result is back. */
export const answer = (call: ToolUseBlock, result: ToolResultBlock): string => {
  const input = (call.input ?? {}) as Record<string, unknown>;
  if (result.is_error) {
    if (/didn't confirm/.test(result.content)) return "All right, I left it as it was.";
    return `That didn't work: ${result.content}`;
  }
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(result.content) as Record<string, unknown>;
  } catch {
    return "Done.";
  }
  switch (call.name) {
    case "invoices_index": {
      const page = value as {
        total: number;
        total_amount: number;
        invoices: ReadonlyArray<{
          number: string;
          customer_name: string;
          amount: number;
          due_on: string;
          project: string | null;
        }>;
      };
      const what =
        input.without_project === true
          ? "on no project"
          : input.paid === false
            ? "unpaid"
            : "overdue";
      const whose = input.customer_id === undefined ? "" : " for this customer";
      if (page.total === 0) return `No invoices are ${what}${whose}.`;
      const lines = page.invoices
        .slice(0, 5)
        .map(
          (i) =>
            `• ${i.number}, ${i.customer_name}, ${euros(i.amount)}, due ${i.due_on}${i.project ? `, ${i.project}` : ""}`,
        );
      const more = page.total > lines.length ? `\nThe Invoices page lists all of them.` : "";
      return `${plural(page.total, "invoice")} ${page.total === 1 ? "is" : "are"} ${what}${whose}, ${euros(page.total_amount)} in all. The newest:\n${lines.join("\n")}${more}`;
    }
    case "customers_index": {
      const page = value as {
        total: number;
        customers: ReadonlyArray<{ id: number; name: string; company: string }>;
      };
      if (page.total === 0) return `No customer matches “${String(input.search ?? "")}”.`;
      const names = page.customers.slice(0, 5).map((c) => `${c.name} (${c.company}, #${c.id})`);
      return `${plural(page.total, "customer")} ${page.total === 1 ? "matches" : "match"}: ${names.join(", ")}${page.total > names.length ? ", …" : ""}.`;
    }
    case "customers_update": {
      const customer = value as { name: string; credit_limit: number };
      return `Done: ${customer.name}'s credit limit is now ${euros(customer.credit_limit)}.`;
    }
    case "customers_destroy": {
      const gone = value as { deleted: number; invoices_deleted: number };
      return `Deleted customer ${gone.deleted} and ${plural(gone.invoices_deleted, "invoice")} of theirs.`;
    }
    case "invoices_update": {
      const invoice = value as { number: string; status: string };
      return `Done: ${invoice.number} is now ${invoice.status}.`;
    }
    case "invoices_destroy":
      return `Deleted invoice ${String((value as { deleted: number }).deleted)}.`;
    case "invoices_store": {
      const invoice = value as { number: string; amount: number; due_on: string };
      return `Issued ${invoice.number} for ${euros(invoice.amount)}, due ${invoice.due_on}.`;
    }
    default:
      return "Done.";
  }
};

const isPrompt = (message: Message): boolean =>
  message.role === "user" &&
  (typeof message.content === "string" || message.content.some((b) => b.type === "text"));

const textOfMessage = (message: Message): string =>
  typeof message.content === "string"
    ? message.content
    : message.content
        .filter((b): b is { type: "text"; text: string } => b.type === "text")
        .map((b) => b.text)
        .join("");

const aborted = () => new ModelError({ kind: "aborted", message: "the request was aborted" });

/**
 * A scripted {@link Model} for the example CRM, for when no API key is set.
 *
 * @example
 * ```ts
 * const host = createHost(app, { model: demoModel() });
 * ```
 */
export const demoModel = (options: DemoModelOptions = {}): Model => {
  const paceMs = options.paceMs ?? 30;
  let calls = 0;
  return {
    step: async (request, { signal, onText }) => {
      if (signal.aborted) throw aborted();
      const messages = request.messages;
      const at = messages.findLastIndex(isPrompt);
      const since = messages.slice(at + 1);
      const lastCall = since
        .flatMap((m) => (m.role === "assistant" && Array.isArray(m.content) ? m.content : []))
        .filter((b): b is ToolUseBlock => b.type === "tool_use")
        .at(-1);
      const lastResult = since
        .flatMap((m) => (m.role === "user" && Array.isArray(m.content) ? m.content : []))
        .filter((b): b is ToolResultBlock => b.type === "tool_result")
        .find((b) => b.tool_use_id === lastCall?.id);

      let decision: Decision;
      if (lastCall !== undefined && lastResult !== undefined) {
        decision = { say: answer(lastCall, lastResult) };
      } else {
        const prompt = at < 0 ? { note: {}, text: "" } : readPrompt(textOfMessage(messages[at]!));
        decision = decide(prompt.text, prompt.note);
      }
      const usage = {
        inputTokens: Math.ceil(JSON.stringify(messages).length / 4),
        outputTokens: 20,
      };
      if ("call" in decision) {
        calls += 1;
        const content: ContentBlock[] = [
          {
            type: "tool_use",
            id: `toolu_demo_${Date.now().toString(36)}_${calls}`,
            name: decision.call,
            input: decision.input,
          },
        ];
        return { content, stopReason: "tool_use", usage, model: DEMO_MODEL };
      }
      const response: ModelResponse = {
        content: [{ type: "text", text: decision.say }],
        stopReason: "end_turn",
        usage,
        model: DEMO_MODEL,
      };
      await tell(decision.say, { signal, paceMs, ...(onText ? { onText } : {}) });
      return response;
    },
  };
};

/** Tells `text` a word at a time, `paceMs` apart, until the last word or an abort. */
const tell = (
  text: string,
  how: {
    readonly signal: AbortSignal;
    readonly paceMs: number;
    readonly onText?: (piece: string) => void;
  },
): Promise<void> => {
  const { onText, paceMs, signal } = how;
  if (onText === undefined) return Promise.resolve();
  const words = text.split(/(?<=\s)/);
  if (paceMs <= 0) {
    for (const word of words) onText(word);
    return Promise.resolve();
  }
  return new Promise((resolve, reject) => {
    let told = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    const next = () => {
      onText(words[told++] as string);
      if (told < words.length) timer = setTimeout(next, paceMs);
      else {
        signal.removeEventListener("abort", onAbort);
        resolve();
      }
    };
    signal.addEventListener("abort", onAbort, { once: true });
    timer = setTimeout(next, paceMs);
  });
};
