/**
 * The example CRM's commands over its SQLite database: for customers and for
 * invoices, `_index` and `_show` (live: the screen keeps them open), `_store`,
 * `_update` and `_destroy`. Each description is what the model reads; what
 * people read is worded apart: a command's `title` and `summary`, and each
 * editable argument's `title` annotation (with `format: "date"` for a date
 * picker, `format: "money"` and its `currency` for an amount), which the
 * confirmation dialog shows.
 */
import { Schema } from "effect";
import { defineCommand } from "elyra-assistant";
import type { CrmDb } from "./db.ts";
import { euros, plural } from "./words.ts";

const Email = Schema.String.pipe(
  Schema.pattern(/^[^@\s]+@[^@\s]+\.[^@\s]+$/, { message: () => "must be a valid email" }),
);

const Name = Schema.String.pipe(
  Schema.trimmed({ message: () => "must not start or end with spaces" }),
  Schema.minLength(1, { message: () => "must not be empty" }),
  Schema.maxLength(200, { message: () => "must be at most 200 characters" }),
);

const Id = Schema.Int.pipe(Schema.positive());
const Page = Schema.Int.pipe(Schema.positive());
const Search = Schema.String.pipe(
  Schema.maxLength(200, { message: () => "must be at most 200 characters" }),
);
const Euros = Schema.Number.pipe(
  Schema.positive({ message: () => "must be more than 0" }),
  Schema.lessThanOrEqualTo(10_000_000, { message: () => "must be at most 10 000 000" }),
);

/** An invoice's amount, as people see it on the dialog: in euros, with their sign. */
const Amount = Euros.annotations({
  title: "Amount",
  jsonSchema: { format: "money", currency: "EUR" },
});

const Day = Schema.String.pipe(
  Schema.pattern(/^\d{4}-\d{2}-\d{2}$/, { message: () => "must be a date as YYYY-MM-DD" }),
  Schema.filter((s) => {
    // `2026-13-45` matches the pattern but is no date: its Date is invalid (toISOString throws).
    const day = new Date(`${s}T00:00:00Z`);
    return (
      (!Number.isNaN(day.getTime()) && day.toISOString().startsWith(s)) || "is not a real date"
    );
  }),
);

/** A due date, as people see it on the dialog: a date picker. */
const DueOn = Day.annotations({ title: "Due date", jsonSchema: { format: "date" } });

/** A customer, with what their unpaid invoices add up to. */
export const CustomerRecord = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  email: Schema.String,
  company: Schema.String,
  credit_limit: Schema.Number,
  created_on: Schema.String,
  balance: Schema.Number,
  overdue_invoices: Schema.Number,
});
export type CustomerRecord = typeof CustomerRecord.Type;

/** An invoice: `status` is `paid`, `open` (not yet due) or `overdue` (unpaid past its due date). */
export const InvoiceRecord = Schema.Struct({
  id: Schema.Number,
  number: Schema.String,
  customer_id: Schema.Number,
  customer_name: Schema.String,
  project: Schema.NullOr(Schema.String),
  amount: Schema.Number,
  issued_on: Schema.String,
  due_on: Schema.String,
  paid_on: Schema.NullOr(Schema.String),
  status: Schema.Literal("paid", "open", "overdue"),
});
export type InvoiceRecord = typeof InvoiceRecord.Type;

const PageFields = { total: Schema.Number, page: Schema.Number, pages: Schema.Number };

export const CustomerPage = Schema.Struct({
  ...PageFields,
  customers: Schema.Array(CustomerRecord),
});
export type CustomerPage = typeof CustomerPage.Type;

export const InvoicePage = Schema.Struct({
  ...PageFields,
  total_amount: Schema.Number,
  invoices: Schema.Array(InvoiceRecord),
});
export type InvoicePage = typeof InvoicePage.Type;

/** The CRM's ten commands over one database. */
export const crmSqliteCommands = (db: CrmDb) => [
  defineCommand({
    name: "customers_index",
    description:
      "List customers by name, 20 a page, with each one's unpaid balance and number of overdue invoices. " +
      "search matches name, email or company; has_overdue: true keeps only customers with an overdue invoice. " +
      "The result says how many match in all (total) and how many pages there are.",
    can: "customers.view",
    live: true,
    args: {
      search: Schema.optional(Search),
      has_overdue: Schema.optional(Schema.Boolean),
      page: Schema.optional(Page),
    },
    result: CustomerPage,
    run: (query) => db.customers(query),
  }),
  defineCommand({
    name: "customers_show",
    description:
      "Show one customer by id: name, email, company, credit limit, unpaid balance and overdue invoices.",
    can: "customers.view",
    live: true,
    link: "/customers/{id}",
    args: { id: Id },
    result: CustomerRecord,
    run: ({ id }) => db.customer(id),
  }),
  defineCommand({
    name: "customers_store",
    description:
      "Create a customer with a name and an email, optionally a company and a credit limit in euros (0 unless given).",
    can: "customers.create",
    link: "/customers/{result.id}",
    args: {
      name: Name,
      email: Email,
      company: Schema.optional(Name),
      credit_limit: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
    },
    result: CustomerRecord,
    run: (fields) => db.createCustomer(fields),
  }),
  defineCommand({
    name: "customers_update",
    description:
      "Change a customer's name, email, company or credit limit (whole euros). Give the id and only what changes.",
    can: "customers.update",
    link: "/customers/{id}",
    // The invoice lists show the customer's name too.
    invalidates: ["customers", "invoices"],
    args: {
      id: Id,
      name: Schema.optional(Name),
      email: Schema.optional(Email),
      company: Schema.optional(Name),
      credit_limit: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
    },
    result: CustomerRecord,
    run: ({ id, ...changes }) => db.updateCustomer(id, changes),
  }),
  defineCommand({
    name: "customers_destroy",
    description:
      "Delete a customer and all of their invoices. It cannot be undone; the user is asked to confirm first.",
    title: "Delete customer",
    summary: "Deletes the customer and all of their invoices. It cannot be undone.",
    can: "customers.destroy",
    invalidates: ["customers", "invoices"],
    args: { id: Id },
    confirmLabel: ({ id }) => {
      const customer = db.customer(id);
      const invoices = db.invoices({ customer_id: id }).total;
      return `Delete ${customer.name} (customer ${id}) and ${plural(invoices, "invoice")} of theirs?`;
    },
    result: Schema.Struct({ deleted: Schema.Number, invoices_deleted: Schema.Number }),
    run: ({ id }) => ({ deleted: id, invoices_deleted: db.deleteCustomer(id).invoices }),
  }),
  defineCommand({
    name: "invoices_index",
    description:
      "List invoices, newest first, 20 a page. Filters: customer_id (one customer's), overdue (true: unpaid past " +
      "the due date), paid (true: paid; false: unpaid), without_project (true: not on any project), and search " +
      "(customer name, project, or an invoice number such as INV-0042). The result says how many match in all " +
      "(total), what they add up to in euros (total_amount), and how many pages there are.",
    can: "invoices.view",
    live: true,
    args: {
      search: Schema.optional(Search),
      customer_id: Schema.optional(Id),
      overdue: Schema.optional(Schema.Boolean),
      paid: Schema.optional(Schema.Boolean),
      without_project: Schema.optional(Schema.Boolean),
      page: Schema.optional(Page),
    },
    result: InvoicePage,
    run: (query) => db.invoices(query),
  }),
  defineCommand({
    name: "invoices_show",
    description:
      "Show one invoice by id: its customer, project, amount in euros, dates and status (paid, open or overdue).",
    can: "invoices.view",
    live: true,
    link: "/invoices/{id}",
    args: { id: Id },
    result: InvoiceRecord,
    run: ({ id }) => db.invoice(id),
  }),
  defineCommand({
    name: "invoices_store",
    description:
      "Create an invoice for a customer: the amount in euros, optionally a project and a due date " +
      "(YYYY-MM-DD, 30 days from today unless given). It is issued today and unpaid.",
    title: "Issue invoice",
    summary: "Issues a new invoice, dated today and unpaid.",
    can: "invoices.create",
    link: "/invoices/{result.id}",
    invalidates: ["invoices", "customers"],
    args: {
      customer_id: Id,
      amount: Amount,
      project: Schema.optional(Name.annotations({ title: "Project" })),
      due_on: Schema.optional(DueOn),
    },
    // Asked first (the grants confirm invoices.create): the user may correct what Claude proposed.
    editable: ["amount", "project", "due_on"],
    confirmAction: "Issue invoice",
    confirmLabel: ({ customer_id, amount, due_on }) =>
      `Issue an invoice of ${euros(amount, { cents: false })} to ${db.customer(customer_id).name}${due_on === undefined ? ", due in 30 days" : `, due ${due_on}`}?`,
    result: InvoiceRecord,
    run: (fields) => db.createInvoice(fields),
  }),
  defineCommand({
    name: "invoices_update",
    description:
      "Change an invoice: its amount in euros, its project (null takes it off any project), its due date " +
      "(YYYY-MM-DD), or paid (true marks it paid today; false marks it unpaid). Give the id and only what changes.",
    can: "invoices.update",
    link: "/invoices/{id}",
    invalidates: ["invoices", "customers"],
    args: {
      id: Id,
      amount: Schema.optional(Euros),
      project: Schema.optional(Schema.NullOr(Name)),
      due_on: Schema.optional(Day),
      paid: Schema.optional(Schema.Boolean),
    },
    result: InvoiceRecord,
    run: ({ id, ...changes }) => db.updateInvoice(id, changes),
  }),
  defineCommand({
    name: "invoices_destroy",
    description: "Delete an invoice. It cannot be undone; the user is asked to confirm first.",
    title: "Delete invoice",
    summary: "Deletes the invoice. It cannot be undone.",
    can: "invoices.destroy",
    invalidates: ["invoices", "customers"],
    args: { id: Id },
    confirmLabel: ({ id }) => {
      const invoice = db.invoice(id);
      return `Delete invoice ${invoice.number} (${euros(invoice.amount, { cents: false })}, ${invoice.customer_name})?`;
    },
    result: Schema.Struct({ deleted: Schema.Number }),
    run: ({ id }) => {
      db.deleteInvoice(id);
      return { deleted: id };
    },
  }),
];
