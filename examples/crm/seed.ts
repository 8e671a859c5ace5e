/**
 * The example CRM's seed: customers and invoices made up by a small
 * deterministic random generator, so the same options give the same rows,
 * with dates counted back from the day it runs (some invoices are always
 * overdue). openCrmDb (db.ts) runs it on an empty database.
 */
import type Database from "better-sqlite3";

/** How the first open fills an empty database. */
export interface SeedOptions {
  /** Customers to create: 120 unless given. */
  readonly customers?: number;
  /** Invoices to create, spread over the customers: 400 unless given. */
  readonly invoices?: number;
  /** The random generator's seed: the same seed, the same rows. 1 unless given. */
  readonly random?: number;
}

/** A date `days` after `date` (both `YYYY-MM-DD`; negative days go back). */
export const addDays = (date: string, days: number): string => {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
};

/** A small deterministic random generator (mulberry32): numbers in [0, 1). */
const random = (seed: number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

const FIRST = [
  "Ada",
  "Alan",
  "Barbara",
  "Charles",
  "Claude",
  "Dennis",
  "Donald",
  "Edsger",
  "Frances",
  "Grace",
  "Hedy",
  "John",
  "Joan",
  "Ken",
  "Katherine",
  "Leslie",
  "Linus",
  "Margaret",
  "Niklaus",
  "Radia",
  "Sophie",
  "Tim",
  "Vint",
  "Whitfield",
];
const LAST = [
  "Lovelace",
  "Turing",
  "Liskov",
  "Babbage",
  "Shannon",
  "Ritchie",
  "Knuth",
  "Dijkstra",
  "Allen",
  "Hopper",
  "Lamarr",
  "Backus",
  "Clarke",
  "Thompson",
  "Johnson",
  "Lamport",
  "Torvalds",
  "Hamilton",
  "Wirth",
  "Perlman",
  "Wilson",
  "Berners-Lee",
  "Cerf",
  "Diffie",
];
const COMPANY = [
  "Analytical Engines",
  "Bletchley Works",
  "Difference Ltd",
  "Harbour Logistics",
  "Northwind",
  "Blue Heron Studio",
  "Copperleaf",
  "Meridian Foods",
  "Atlas Print",
  "Kestrel Labs",
  "Juniper Dental",
  "Orchard & Vine",
  "Quarry Stone",
  "Silver Birch",
  "Tidewater",
];
const PROJECTS = [
  "Website redesign",
  "Brand refresh",
  "Spring campaign",
  "Mobile app",
  "Annual report",
  "Trade fair stand",
  "Product photos",
  "Newsletter",
  "Intranet",
  "Packaging",
];

/** Fills an empty database: customers A–Z, invoices over the last ~200 days (in the caller's transaction). */
export const seedCrm = (sql: Database.Database, today: string, options: SeedOptions) => {
  const next = random(options.random ?? 1);
  const pick = <T>(list: ReadonlyArray<T>): T => list[Math.floor(next() * list.length)] as T;
  const customerCount = options.customers ?? 120;
  const invoiceCount = options.invoices ?? 400;
  const insertCustomer = sql.prepare(
    "INSERT INTO customers (id, name, email, company, credit_limit, created_on) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const insertInvoice = sql.prepare(
    "INSERT INTO invoices (id, customer_id, project, amount_cents, issued_on, due_on, paid_on) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  for (let id = 1; id <= customerCount; id++) {
    const first = pick(FIRST);
    const last = pick(LAST);
    const company = pick(COMPANY);
    const domain = company.toLowerCase().replace(/[^a-z]+/g, "");
    insertCustomer.run(
      id,
      `${first} ${last}`,
      `${first.toLowerCase()}.${last.toLowerCase()}${id}@${domain}.example`,
      company,
      (1 + Math.floor(next() * 20)) * 2_500,
      addDays(today, -400 + Math.floor(next() * 180)),
    );
  }
  for (let id = 1; id <= invoiceCount && customerCount > 0; id++) {
    const issued = addDays(today, -Math.floor(next() * 200));
    const due = addDays(issued, 30);
    const pastDue = due < today;
    // Most invoices past their due date are paid; about one in five is not (overdue).
    const paid = pastDue ? next() < 0.8 : next() < 0.2;
    const paidOn = paid ? addDays(issued, 5 + Math.floor(next() * 40)) : null;
    insertInvoice.run(
      id,
      1 + Math.floor(next() * customerCount),
      next() < 0.2 ? null : pick(PROJECTS),
      (200 + Math.floor(next() * 9_800)) * 100 + (next() < 0.5 ? 0 : 50),
      issued,
      due,
      paidOn !== null && paidOn > today ? today : paidOn,
    );
  }
};
