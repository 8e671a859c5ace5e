/**
 * The tokens bench's commands: the example CRM's four (examples/crm/commands.ts)
 * and generated ones, as an agency's back office would have them, up to 300:
 * 30 resources × 10 verbs, each with a description of a sentence or two and
 * arguments of its resource's fields (ids, amounts, dates, enums, text, each
 * described). Each generated command returns about 2 KB of JSON. With each
 * command, a call the model could make (valid arguments) and the words it
 * would search for it with.
 */
import { Schema } from "effect";
import { type AnyCommand, createApp, defineCommand } from "elyra-assistant";
import { crmCommands } from "../examples/crm/commands.ts";

/** A field: its name, kind, and description. */
type Field = readonly [name: string, kind: string, description: string];

/**
 * Resources, one a line: plural (the name prefix) | singular in words | four
 * fields, `name:kind:description` separated by `;` (kinds: id, money, date,
 * text, name, bool, enum a/b/c).
 */
const RESOURCE_LINES = `
projects|project|name:name:The project's name, as the customer knows it;customer_id:id:The customer the project is for;budget:money:The budget in euros, before tax;status:enum planned/active/on_hold/done:Where the project stands
contracts|contract|title:name:The contract's title;customer_id:id:The customer who signed it;starts_on:date:The first day it covers (YYYY-MM-DD);renewal:enum none/yearly/monthly:How it renews
quotes|quote|customer_id:id:The customer quoted;amount:money:The total in euros, before tax;valid_until:date:The last day it may be accepted;status:enum draft/sent/accepted/declined:Where the quote stands
payments|payment|invoice_id:id:The invoice it pays;amount:money:The amount received, in euros;received_on:date:The day it was received;method:enum transfer/card/direct_debit/cash:How it was paid
expenses|expense|project_id:id:The project it is charged to;amount:money:The amount in euros, tax included;spent_on:date:The day of the expense;category:enum travel/software/hardware/meals/other:What it was for
timesheets|timesheet|employee_id:id:Whose hours these are;project_id:id:The project the hours were spent on;week_of:date:The Monday of the week;hours:money:Hours worked that week
tasks|task|title:name:What is to be done, in a few words;project_id:id:The project it belongs to;due_on:date:When it is due;priority:enum low/normal/high/urgent:How urgent it is
milestones|milestone|title:name:The milestone's name;project_id:id:The project it marks;due_on:date:The day it is due;billable:bool:Whether reaching it is invoiced
employees|employee|name:name:Full name;email:name:Work email address;team_id:id:The team they belong to;role:enum designer/developer/manager/sales/support:Their role
teams|team|name:name:The team's name;lead_id:id:The employee who leads it;capacity:money:Hours a week the team can take on;location:enum berlin/lisbon/remote:Where it works from
suppliers|supplier|name:name:The supplier's company name;email:name:Where orders are sent;payment_days:money:Days they give us to pay;country:name:Their country, as ISO 3166 code
purchase_orders|purchase order|supplier_id:id:The supplier ordered from;amount:money:The total in euros;needed_by:date:When the goods are needed;status:enum draft/sent/received/cancelled:Where the order stands
products|product|name:name:The product's name;sku:name:The stock-keeping unit;price:money:The list price in euros;active:bool:Whether it may be sold
price_lists|price list|name:name:The price list's name;currency:enum EUR/USD/GBP:The currency of its prices;valid_from:date:The first day it applies;discount:money:The discount on list prices, percent
orders|order|customer_id:id:The customer ordering;amount:money:The total in euros;ordered_on:date:The day it was placed;status:enum open/shipped/delivered/cancelled:Where the order stands
shipments|shipment|order_id:id:The order shipped;carrier:enum dhl/ups/dpd/post:Who carries it;shipped_on:date:The day it left;tracking:name:The carrier's tracking number
returns|return|order_id:id:The order returned;reason:text:Why the customer returned it;received_on:date:When it came back;refund:money:The refund in euros
tickets|support ticket|subject:name:The ticket's subject;customer_id:id:The customer who asked;priority:enum low/normal/high/urgent:How urgent it is;status:enum open/waiting/solved/closed:Where it stands
leads|lead|company:name:The company's name;email:name:The contact's email;source:enum website/referral/event/cold_call:Where the lead came from;score:money:How promising it is, 0 to 100
opportunities|sales opportunity|lead_id:id:The lead it grew from;value:money:Its expected value in euros;closes_on:date:When it is expected to close;stage:enum qualify/propose/negotiate/won/lost:Its sales stage
campaigns|marketing campaign|name:name:The campaign's name;channel:enum email/social/search/print:Where it runs;starts_on:date:The day it starts;budget:money:Its budget in euros
documents|document|title:name:The document's title;project_id:id:The project it belongs to;kind:enum brief/spec/report/contract/other:What kind of document it is;shared:bool:Whether the customer can see it
meetings|meeting|title:name:What the meeting is about;customer_id:id:The customer met;starts_at:date:The day it takes place;minutes:text:The minutes, as written after it
notes|note|customer_id:id:The customer it is about;text:text:The note itself;pinned:bool:Whether it stays on top;visibility:enum me/team/everyone:Who can read it
reports|report|name:name:The report's name;period:enum week/month/quarter/year:The period it covers;from:date:The period's first day;team_id:id:The team it is about
budgets|budget|name:name:The budget's name;year:money:The year it covers;amount:money:The amount in euros;team_id:id:The team that spends it
assets|asset|name:name:What the asset is;serial:name:Its serial number;bought_on:date:When it was bought;holder_id:id:The employee who has it
subscriptions|subscription|customer_id:id:The customer subscribed;plan:enum basic/team/business:The plan;renews_on:date:The next renewal day;seats:money:How many seats it has
credit_notes|credit note|invoice_id:id:The invoice it corrects;amount:money:The amount credited, in euros;reason:text:Why it is credited;issued_on:date:The day it is issued
tax_rates|tax rate|name:name:The rate's name, as printed on invoices;percent:money:The rate in percent;country:name:The country it applies in, ISO 3166;valid_from:date:The first day it applies
`;

const RESOURCES: ReadonlyArray<readonly [string, string, ReadonlyArray<Field>]> =
  RESOURCE_LINES.trim()
    .split("\n")
    .map((line) => {
      const [plural = "", singular = "", fields = ""] = line.split("|");
      return [plural, singular, fields.split(";").map((f) => f.split(":") as unknown as Field)];
    });

const Id = Schema.Int.pipe(Schema.positive());
const IsoDate = Schema.String.pipe(Schema.pattern(/^\d{4}-\d{2}-\d{2}$/));

const schemaOf = (kind: string, description: string) => {
  const base =
    kind === "id"
      ? Id
      : kind === "money"
        ? Schema.Number.pipe(Schema.nonNegative())
        : kind === "date"
          ? IsoDate
          : kind === "bool"
            ? Schema.Boolean
            : kind.startsWith("enum ")
              ? Schema.Literal(...kind.slice(5).split("/"))
              : Schema.String.pipe(Schema.maxLength(kind === "text" ? 4_000 : 200));
  return (base as Schema.Schema<unknown>).annotations({ description });
};

const sampleOf = (kind: string, n: number): unknown =>
  kind === "id"
    ? 10 + n
    : kind === "money"
      ? 100 * (n + 3)
      : kind === "date"
        ? `2026-11-${String(1 + (n % 28)).padStart(2, "0")}`
        : kind === "bool"
          ? n % 2 === 0
          : kind.startsWith("enum ")
            ? kind.slice(5).split("/")[n % kind.slice(5).split("/").length]
            : kind === "text"
              ? "Called them on Tuesday; they will pay by the end of the week."
              : `Northwind ${n}`;

/** About 2 KB of JSON: a page of 13 records of the resource, as a list command would return. */
const resultOf = (resource: string, fields: ReadonlyArray<Field>, n: number) => ({
  resource,
  page: 1,
  total: 13,
  items: Array.from({ length: 13 }, (_, i) => ({
    id: 100 * n + i,
    ...Object.fromEntries(fields.map(([name, kind], j) => [name, sampleOf(kind, i + j)])),
    updated_at: `2026-11-${String(1 + i).padStart(2, "0")}T09:${10 + i}:00Z`,
    updated_by: ["Ada Lovelace", "Grace Hopper", "Alan Turing"][i % 3],
  })),
});

/** A verb: its description, its arguments from the resource's fields, a call's input, and the words searched. */
interface Verb {
  readonly describe: (plural: string, singular: string, fields: ReadonlyArray<Field>) => string;
  readonly args: (fields: ReadonlyArray<Field>) => ReadonlyArray<readonly [Field, boolean]>;
  readonly query: (plural: string, singular: string) => string;
}

const optional = (fields: ReadonlyArray<Field>) => fields.map((f) => [f, false] as const);
const idField: Field = ["id", "id", "The id"];
const words = (fields: ReadonlyArray<Field>) => fields.map(([name]) => name.replace(/_/g, " "));

const VERBS: ReadonlyArray<readonly [string, Verb]> = [
  [
    "index",
    {
      describe: (p, _, f) =>
        `List ${p.replace(/_/g, " ")}, newest first, 25 a page; optionally filtered by ${words(f).slice(0, 3).join(", ")}.`,
      args: (f) => [...optional(f.slice(0, 3)), [["page", "id", "The page, from 1"], false]],
      query: (p) => `list ${p.replace(/_/g, " ")}`,
    },
  ],
  [
    "show",
    {
      describe: (_, s) => `Show one ${s} by id, with its latest changes and who made them.`,
      args: () => [[idField, true]],
      query: (_, s) => `show ${s} details`,
    },
  ],
  [
    "create",
    {
      describe: (_, s, f) =>
        `Create a ${s}. ${words(f).slice(0, 2).join(" and ")} are required; the rest can be set later.`,
      args: (f) => f.map((x, i) => [x, i < 2] as const),
      query: (_, s) => `create new ${s}`,
    },
  ],
  [
    "update",
    {
      describe: (_, s, f) =>
        `Change a ${s}'s ${words(f).join(", ")}. Fields left out stay as they are.`,
      args: (f) => [[idField, true], ...optional(f)],
      query: (_, s) => `change update ${s}`,
    },
  ],
  [
    "archive",
    {
      describe: (p, s) =>
        `Archive a ${s}: it leaves the lists of ${p.replace(/_/g, " ")} but its history is kept, and it can be restored.`,
      args: () => [
        [idField, true],
        [["reason", "text", "Why it is archived, for the history"], false],
      ],
      query: (_, s) => `archive ${s}`,
    },
  ],
  [
    "export",
    {
      describe: (p) =>
        `Export ${p.replace(/_/g, " ")} for a date range as CSV, XLSX or PDF; returns a download link valid for 24 hours.`,
      args: () => [
        [["format", "enum csv|xlsx|pdf", "The file format"], true],
        [["from", "date", "The range's first day"], true],
        [["to", "date", "The range's last day"], true],
      ],
      query: (p) => `export ${p.replace(/_/g, " ")} spreadsheet`,
    },
  ],
  [
    "assign",
    {
      describe: (_, s) =>
        `Assign a ${s} to a member of staff, who is told by email; replaces whoever had it.`,
      args: () => [
        [idField, true],
        [["employee_id", "id", "The member of staff"], true],
        [["note", "text", "A line for the email"], false],
      ],
      query: (_, s) => `assign ${s} to staff member`,
    },
  ],
  [
    "comment",
    {
      describe: (_, s) =>
        `Add a comment to a ${s}'s timeline, seen by everyone who can see the ${s}.`,
      args: () => [
        [idField, true],
        [["text", "text", "The comment"], true],
        [["internal", "bool", "Hidden from the customer"], false],
      ],
      query: (_, s) => `comment on ${s} timeline`,
    },
  ],
  [
    "duplicate",
    {
      describe: (_, s) =>
        `Copy a ${s} as a new draft, with its fields but not its history or comments.`,
      args: () => [
        [idField, true],
        [["name", "name", "The copy's name; the original's with (copy) unless given"], false],
      ],
      query: (_, s) => `duplicate copy ${s}`,
    },
  ],
  [
    "history",
    {
      describe: (_, s) =>
        `Show the changes made to a ${s}: who changed what and when, newest first.`,
      args: () => [
        [idField, true],
        [["limit", "id", "At most this many changes, 20 unless given"], false],
      ],
      query: (_, s) => `${s} change history`,
    },
  ],
];

/** A command with a call the model could make of it and the words it would search for it with. */
export interface BenchCommand {
  readonly command: AnyCommand;
  readonly input: unknown;
  readonly query: string;
}

/** The 300 generated commands, resource by resource (an app grows by resources). */
const generated = (): ReadonlyArray<BenchCommand> =>
  RESOURCES.flatMap(([plural, singular, fields], r) =>
    VERBS.map(([verb, spec], v): BenchCommand => {
      const args = spec.args(fields);
      const n = r * VERBS.length + v;
      return {
        command: defineCommand({
          name: `${plural}_${verb}`,
          description: spec.describe(plural, singular, fields),
          can: `${plural}.${verb}`,
          args: Object.fromEntries(
            args.map(([[name, kind, description], required]) => {
              const schema = schemaOf(kind, description);
              return [name, required ? schema : Schema.optional(schema)];
            }),
          ) as Schema.Struct.Fields,
          run: () => resultOf(plural, fields, n),
        }) as AnyCommand,
        input: Object.fromEntries(
          args
            .filter(([, required], i) => required || i === 1)
            .map(([[name, kind]], i) => [name, sampleOf(kind, n + i)]),
        ),
        query: spec.query(plural, singular),
      };
    }),
  );

/** The CRM's four commands (examples/crm/commands.ts), with calls of them. */
const crm = (): ReadonlyArray<BenchCommand> => {
  const calls: Record<string, readonly [unknown, string]> = {
    customers_show: [{ id: 42 }, "show customer by id"],
    customers_update: [{ id: 43, creditLimit: 30_000 }, "change customer credit limit email"],
    customers_delete: [{ id: 43 }, "delete customer"],
    invoices_index: [{ overdue: true }, "list overdue invoices"],
  };
  return crmCommands().map((command) => {
    const [input, query] = calls[command.name] ?? [{}, command.name];
    return { command: command as AnyCommand, input, query };
  });
};

/** The CRM's commands and generated ones, `count` in all. */
export const benchCommands = (count: number): ReadonlyArray<BenchCommand> => {
  const all = [...crm(), ...generated()];
  if (count > all.length) throw new Error(`at most ${all.length} commands`);
  return all.slice(0, count);
};

/** The user every conversation is Ada's: she may do everything the grant allows. */
export const ADA = { name: "Ada", abilities: ["*"] };

/** An app of `commands`, the assistant allowed all of them, with these settings besides. */
export const benchApp = (
  commands: ReadonlyArray<BenchCommand>,
  settings: Readonly<Record<string, unknown>> = {},
) =>
  createApp({
    commands: commands.map((c) => c.command),
    userAbilities: (user) => (user as typeof ADA).abilities,
    assistant: {
      allow: ["*"],
      instructions:
        "You help the staff of a small agency look after its customers, projects and invoices. " +
        "Amounts are in euros. Keep answers short; name records by name and number.",
      ...settings,
    },
  });
