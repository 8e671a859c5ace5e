/** How the CRM writes amounts and counts, in its labels and its demo model's answers. */

/** An amount in euros: `€1,267.00`; `{ cents: false }` leaves off the cents of a whole amount (`€1,267`). */
export const euros = (amount: number, { cents = true }: { readonly cents?: boolean } = {}) =>
  `€${amount.toLocaleString("en-GB", { minimumFractionDigits: cents ? 2 : 0, maximumFractionDigits: 2 })}`;

/** `1 invoice`, `3 invoices`. */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
