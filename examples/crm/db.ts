/**
 * The example CRM's database: customers and their invoices in one SQLite file
 * (better-sqlite3, WAL mode, so several processes on one machine can share
 * it), created and seeded (seed.ts) on first open. The seed is
 * deterministic: the same options give the same rows, with dates counted back
 * from the day it runs, so some invoices are always overdue.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { addDays, type SeedOptions, seedCrm } from "./seed.ts";

export { addDays, type SeedOptions };

/** Rows a page of a list holds. */
export const PER_PAGE = 20;

export interface CrmDbOptions {
  /** Seed an empty database (the default), or leave it empty (`false`). */
  readonly seed?: SeedOptions | false;
  /** Today's date, `YYYY-MM-DD`: what "overdue" is counted from. The local date unless given. */
  readonly today?: () => string;
}

/** A customer as the database keeps it, with what their invoices add up to. */
export interface CustomerRow {
  readonly id: number;
  readonly name: string;
  readonly email: string;
  readonly company: string;
  readonly credit_limit: number;
  readonly created_on: string;
  /** Unpaid invoices, in euros. */
  readonly balance: number;
  readonly overdue_invoices: number;
}

export type InvoiceStatus = "paid" | "open" | "overdue";

/** An invoice as the database keeps it, with its customer's name and its status today. */
export interface InvoiceRow {
  readonly id: number;
  readonly number: string;
  readonly customer_id: number;
  readonly customer_name: string;
  readonly project: string | null;
  readonly amount: number;
  readonly issued_on: string;
  readonly due_on: string;
  readonly paid_on: string | null;
  readonly status: InvoiceStatus;
}

/** A page of a list: 20 rows, and how many match in all. */
export interface Page {
  readonly total: number;
  readonly page: number;
  readonly pages: number;
}

export interface CustomerQuery {
  readonly search?: string | undefined;
  readonly has_overdue?: boolean | undefined;
  readonly page?: number | undefined;
}

export interface InvoiceQuery {
  readonly search?: string | undefined;
  readonly customer_id?: number | undefined;
  readonly overdue?: boolean | undefined;
  readonly paid?: boolean | undefined;
  readonly without_project?: boolean | undefined;
  readonly page?: number | undefined;
}

export interface NewCustomer {
  readonly name: string;
  readonly email: string;
  readonly company?: string | undefined;
  readonly credit_limit?: number | undefined;
}

export interface CustomerChanges {
  readonly name?: string | undefined;
  readonly email?: string | undefined;
  readonly company?: string | undefined;
  readonly credit_limit?: number | undefined;
}

export interface NewInvoice {
  readonly customer_id: number;
  readonly amount: number;
  readonly project?: string | null | undefined;
  readonly issued_on?: string | undefined;
  readonly due_on?: string | undefined;
}

export interface InvoiceChanges {
  readonly amount?: number | undefined;
  readonly project?: string | null | undefined;
  readonly due_on?: string | undefined;
  readonly paid?: boolean | undefined;
}

/** The CRM's database and the queries its commands use. */
export interface CrmDb {
  readonly sql: Database.Database;
  readonly today: () => string;
  readonly customers: (
    query: CustomerQuery,
  ) => Page & { readonly customers: ReadonlyArray<CustomerRow> };
  readonly customer: (id: number) => CustomerRow;
  readonly createCustomer: (fields: NewCustomer) => CustomerRow;
  readonly updateCustomer: (id: number, changes: CustomerChanges) => CustomerRow;
  /** Deletes a customer and their invoices; says how many invoices went with them. */
  readonly deleteCustomer: (id: number) => { readonly invoices: number };
  readonly invoices: (query: InvoiceQuery) => Page & {
    /** What the matching invoices add up to, in euros. */
    readonly total_amount: number;
    readonly invoices: ReadonlyArray<InvoiceRow>;
  };
  readonly invoice: (id: number) => InvoiceRow;
  readonly createInvoice: (fields: NewInvoice) => InvoiceRow;
  readonly updateInvoice: (id: number, changes: InvoiceChanges) => InvoiceRow;
  readonly deleteInvoice: (id: number) => void;
  readonly close: () => void;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS customers (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  email TEXT NOT NULL,
  company TEXT NOT NULL DEFAULT '',
  credit_limit INTEGER NOT NULL DEFAULT 0,
  created_on TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS invoices (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
  project TEXT,
  amount_cents INTEGER NOT NULL,
  issued_on TEXT NOT NULL,
  due_on TEXT NOT NULL,
  paid_on TEXT
);
CREATE INDEX IF NOT EXISTS invoices_customer ON invoices(customer_id);
`;

/** The local date as `YYYY-MM-DD`. */
export const localToday = (): string => {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
};

const CUSTOMER_FIELDS = ["name", "email", "company", "credit_limit"] as const;

/** `%`, `_` and `\` matched as themselves in a LIKE pattern. */
const likeOf = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const pages = (total: number) => Math.max(1, Math.ceil(total / PER_PAGE));

/** `INV-0007`. */
export const invoiceNumber = (id: number): string => `INV-${String(id).padStart(4, "0")}`;

/**
 * Opens (and on first use creates and seeds) the CRM's database at `path`
 * (`":memory:"` for one that lasts as long as the process). The directory is
 * made if missing.
 *
 * @example
 * ```ts
 * const db = openCrmDb("examples/crm/.data/crm.db");
 * db.invoices({ overdue: true }).total; // e.g. 61
 * ```
 */
export const openCrmDb = (path: string, options: CrmDbOptions = {}): CrmDb => {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sql = new Database(path);
  sql.pragma("journal_mode = WAL");
  sql.pragma("foreign_keys = ON");
  const today = options.today ?? localToday;
  // Several processes may open a new file at once (`npm run cluster`): the
  // schema, the check that it is empty and the seed are one write transaction
  // taken at its start (BEGIN IMMEDIATE; the others wait, up to
  // better-sqlite3's 5 s busy timeout), so one seeds and the others find it full.
  sql
    .transaction(() => {
      sql.exec(SCHEMA);
      const count = sql.prepare("SELECT COUNT(*) AS n FROM customers").get() as { n: number };
      if (count.n === 0 && options.seed !== false) seedCrm(sql, today(), options.seed ?? {});
    })
    .immediate();

  // Balance and overdue count per customer, for today (`@today`).
  const customerSelect = `
    SELECT c.id, c.name, c.email, c.company, c.credit_limit, c.created_on,
      COALESCE(SUM(CASE WHEN i.paid_on IS NULL THEN i.amount_cents END), 0) / 100.0 AS balance,
      COUNT(CASE WHEN i.paid_on IS NULL AND i.due_on < @today THEN 1 END) AS overdue_invoices
    FROM customers c LEFT JOIN invoices i ON i.customer_id = c.id`;
  const invoiceSelect = `
    SELECT i.id, i.customer_id, c.name AS customer_name, i.project, i.amount_cents / 100.0 AS amount,
      i.issued_on, i.due_on, i.paid_on,
      CASE WHEN i.paid_on IS NOT NULL THEN 'paid' WHEN i.due_on < @today THEN 'overdue' ELSE 'open' END AS status
    FROM invoices i JOIN customers c ON c.id = i.customer_id`;

  const customerById = sql.prepare(`${customerSelect} WHERE c.id = @id GROUP BY c.id`);
  const invoiceById = sql.prepare(`${invoiceSelect} WHERE i.id = @id`);
  const withNumber = (row: Omit<InvoiceRow, "number">): InvoiceRow => ({
    ...row,
    number: invoiceNumber(row.id),
  });

  const customer = (id: number): CustomerRow => {
    const row = customerById.get({ id, today: today() }) as CustomerRow | undefined;
    if (row === undefined) throw new Error(`no customer has id ${id}`);
    return row;
  };
  const invoice = (id: number): InvoiceRow => {
    const row = invoiceById.get({ id, today: today() }) as Omit<InvoiceRow, "number"> | undefined;
    if (row === undefined) throw new Error(`no invoice has id ${id}`);
    return withNumber(row);
  };

  /** `UPDATE table SET …` of the columns in `sets` (names this file chose, never the caller's). */
  const update = (
    table: "customers" | "invoices",
    id: number,
    sets: Record<string, unknown>,
    named: ReadonlyArray<string>,
  ) => {
    const columns = Object.keys(sets);
    if (columns.length === 0)
      throw new Error(`nothing to change: give at least one of ${named.join(", ")}`);
    sql
      .prepare(
        `UPDATE ${table} SET ${columns.map((c) => `${c} = @${c}`).join(", ")} WHERE id = @id`,
      )
      .run({ ...sets, id });
  };

  return {
    sql,
    today,
    customers: (query) => {
      const where: string[] = [];
      const params: Record<string, unknown> = { today: today() };
      const search = query.search?.trim();
      if (search) {
        where.push(
          "(c.name LIKE @search ESCAPE '\\' OR c.email LIKE @search ESCAPE '\\' OR c.company LIKE @search ESCAPE '\\')",
        );
        params.search = likeOf(search);
      }
      const having =
        query.has_overdue === undefined
          ? ""
          : ` HAVING overdue_invoices ${query.has_overdue ? ">" : "="} 0`;
      const base = `${customerSelect}${where.length ? ` WHERE ${where.join(" AND ")}` : ""} GROUP BY c.id${having}`;
      const total = (
        sql.prepare(`SELECT COUNT(*) AS n FROM (${base})`).get(params) as { n: number }
      ).n;
      const page = query.page ?? 1;
      const rows = sql
        .prepare(`${base} ORDER BY c.name, c.id LIMIT ${PER_PAGE} OFFSET @offset`)
        .all({ ...params, offset: (page - 1) * PER_PAGE }) as CustomerRow[];
      return { total, page, pages: pages(total), customers: rows };
    },
    customer,
    createCustomer: (fields) => {
      const { lastInsertRowid } = sql
        .prepare(
          "INSERT INTO customers (name, email, company, credit_limit, created_on) VALUES (?, ?, ?, ?, ?)",
        )
        .run(fields.name, fields.email, fields.company ?? "", fields.credit_limit ?? 0, today());
      return customer(Number(lastInsertRowid));
    },
    updateCustomer: (id, changes) => {
      customer(id);
      const sets: Record<string, unknown> = {};
      for (const field of CUSTOMER_FIELDS)
        if (changes[field] !== undefined) sets[field] = changes[field];
      update("customers", id, sets, CUSTOMER_FIELDS);
      return customer(id);
    },
    deleteCustomer: (id) => {
      customer(id);
      return sql.transaction(() => {
        const { changes } = sql.prepare("DELETE FROM invoices WHERE customer_id = ?").run(id);
        sql.prepare("DELETE FROM customers WHERE id = ?").run(id);
        return { invoices: changes };
      })();
    },
    invoices: (query) => {
      const where: string[] = [];
      const params: Record<string, unknown> = { today: today() };
      const search = query.search?.trim();
      if (search) {
        const number = /^(?:inv-?)?0*(\d+)$/i.exec(search);
        where.push(
          `(c.name LIKE @search ESCAPE '\\' OR i.project LIKE @search ESCAPE '\\'${number ? " OR i.id = @number" : ""})`,
        );
        params.search = likeOf(search);
        if (number) params.number = Number(number[1]);
      }
      if (query.customer_id !== undefined) {
        where.push("i.customer_id = @customer_id");
        params.customer_id = query.customer_id;
      }
      if (query.overdue !== undefined) {
        where.push(
          query.overdue
            ? "(i.paid_on IS NULL AND i.due_on < @today)"
            : "NOT (i.paid_on IS NULL AND i.due_on < @today)",
        );
      }
      if (query.paid !== undefined)
        where.push(query.paid ? "i.paid_on IS NOT NULL" : "i.paid_on IS NULL");
      if (query.without_project !== undefined)
        where.push(query.without_project ? "i.project IS NULL" : "i.project IS NOT NULL");
      const filter = where.length ? ` WHERE ${where.join(" AND ")}` : "";
      const counted = sql
        .prepare(
          `SELECT COUNT(*) AS n, COALESCE(SUM(i.amount_cents), 0) / 100.0 AS amount FROM invoices i JOIN customers c ON c.id = i.customer_id${filter}`,
        )
        .get(params) as { n: number; amount: number };
      const page = query.page ?? 1;
      const rows = (
        sql
          .prepare(
            `${invoiceSelect}${filter} ORDER BY i.issued_on DESC, i.id DESC LIMIT ${PER_PAGE} OFFSET @offset`,
          )
          .all({ ...params, offset: (page - 1) * PER_PAGE }) as Array<Omit<InvoiceRow, "number">>
      ).map(withNumber);
      return {
        total: counted.n,
        total_amount: counted.amount,
        page,
        pages: pages(counted.n),
        invoices: rows,
      };
    },
    invoice,
    createInvoice: (fields) => {
      customer(fields.customer_id);
      const issued = fields.issued_on ?? today();
      const { lastInsertRowid } = sql
        .prepare(
          "INSERT INTO invoices (customer_id, project, amount_cents, issued_on, due_on) VALUES (?, ?, ?, ?, ?)",
        )
        .run(
          fields.customer_id,
          fields.project ?? null,
          Math.round(fields.amount * 100),
          issued,
          fields.due_on ?? addDays(issued, 30),
        );
      return invoice(Number(lastInsertRowid));
    },
    updateInvoice: (id, changes) => {
      invoice(id);
      const sets: Record<string, unknown> = {};
      if (changes.amount !== undefined) sets.amount_cents = Math.round(changes.amount * 100);
      if (changes.project !== undefined) sets.project = changes.project;
      if (changes.due_on !== undefined) sets.due_on = changes.due_on;
      if (changes.paid !== undefined) sets.paid_on = changes.paid ? today() : null;
      update("invoices", id, sets, ["amount", "project", "due_on", "paid"]);
      return invoice(id);
    },
    deleteInvoice: (id) => {
      invoice(id);
      sql.prepare("DELETE FROM invoices WHERE id = ?").run(id);
    },
    close: () => sql.close(),
  };
};
