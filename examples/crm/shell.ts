/**
 * The HTML page every app route is served: the header, an empty main for the
 * browser app to fill, and the assistant's panel docked at the side. The
 * host's token rides in a meta tag for the browser app to send back.
 */

/** `&`, `<`, `>`, `"` and `'` as entities, for text and attribute values. */
export const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string,
  );

const STYLE = `
:root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; font-size: 15px; }
* { box-sizing: border-box; }
/* The page, and the panel docked in a column that is as wide as the open panel and gone while it is closed. */
body { margin: 0; display: grid; grid-template-columns: minmax(0, 1fr) auto; grid-template-rows: auto minmax(0, 1fr); height: 100vh; height: 100dvh; }
header { grid-column: 1 / -1; display: flex; flex-wrap: wrap; gap: .4rem 1.5rem; align-items: center; padding: .6rem 1.2rem; background: #1f2937; color: #f9fafb; }
header strong { font-size: 1.05rem; }
header nav { display: flex; gap: 1rem; }
header a { color: #d1d5db; text-decoration: none; }
header a[aria-current="page"] { color: #fff; text-decoration: underline; }
header .user { margin-left: auto; color: #9ca3af; }
/*
 * Every button of the page alike: the page's font, a line, a radius, a hand
 * for a pointer; on the dark header lighter lines, and the header's "Ask the
 * assistant" in the accent. The chips under a heading (.asks) and the
 * palette's opener are styled on top of this.
 */
button { font: inherit; line-height: 1.3; color: #1f2937; background: #fff; border: 1px solid #d1d5db; border-radius: 6px; padding: .3rem .8rem; cursor: pointer; }
button:hover:not(:disabled) { background: #f3f4f6; }
button:disabled { color: #9ca3af; background: #f9fafb; border-color: #e5e7eb; cursor: default; }
button:focus-visible { outline: 2px solid #4f46e5; outline-offset: 2px; }
header button { color: #f9fafb; background: #374151; border-color: #4b5563; }
header button:hover:not(:disabled) { background: #4b5563; }
header button:focus-visible { outline-color: #a5b4fc; }
header #ask { background: #4f46e5; border-color: #6366f1; color: #fff; }
header #ask:hover { background: #4338ca; }
/* Room at the end of the page for the assistant's floating button, so it covers nothing once scrolled to the end. */
main { overflow: auto; padding: 1rem 1.5rem 0; container-type: inline-size; }
main::after { content: ""; display: block; height: 5.5rem; }
elyra-assistant-panel { grid-area: 2 / 2; min-height: 0; --elyra-panel-width: clamp(300px, 30vw, 400px); --elyra-launcher-position: fixed; }
h1 { font-size: 1.4rem; margin: .4rem 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.6rem 0 .6rem; }
form.filters { display: flex; flex-wrap: wrap; gap: .8rem 1.2rem; align-items: center; margin-bottom: .8rem; }
input[type="search"] { padding: .35rem .5rem; width: 22rem; max-width: 100%; font: inherit; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #f0f0f0; white-space: nowrap; }
th { font-weight: 600; color: #4b5563; border-bottom-color: #d1d5db; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.selected td { background: #eff6ff; }
.status-overdue { color: #b91c1c; font-weight: 600; }
.status-paid { color: #047857; }
.pager { display: flex; gap: .8rem; align-items: center; margin-top: .8rem; color: #4b5563; }
.pager button, .selection button { white-space: nowrap; }
.selection { display: flex; gap: .8rem; align-items: center; min-height: 2rem; color: #1d4ed8; }
[hidden] { display: none !important; }
.asks { display: flex; flex-wrap: wrap; gap: .5rem; margin: 1rem 0; }
.asks button { border: 1px solid #c7d2fe; background: #eef2ff; color: #3730a3; border-radius: 999px; padding: .3rem .8rem; font: inherit; cursor: pointer; }
.asks button:hover:not(:disabled) { background: #e0e7ff; }
dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .3rem 1.2rem; margin: 0; }
dt { color: #6b7280; }
dd { margin: 0; overflow-wrap: anywhere; }
.missing { color: #b91c1c; }
.updated { animation: flash 1.2s ease-out; }
@keyframes flash { from { background: #fef9c3; } to { background: transparent; } }
/*
 * Lists fit the width they are given, never scrolling sideways: names,
 * companies and projects wrap, and narrower lists keep their key
 * columns (a customer's Unpaid and Overdue, an invoice's Amount, Due and
 * Status) and drop the others, least needed first. The tables are told
 * apart by their number of columns: the customers (7), the invoices (8), a
 * customer's invoices (6).
 */
table:has(th:nth-child(7):last-child) :is(td, th):is(:nth-child(2), :nth-child(3)),
table:has(th:nth-child(8):last-child) :is(td, th):is(:nth-child(3), :nth-child(4)),
table:has(th:nth-child(6):last-child) :is(td, th):nth-child(2) { white-space: normal; }
@container (max-width: 1000px) {
  table:has(th:nth-child(7):last-child) :is(td, th):nth-child(4) { display: none; }
}
@container (max-width: 860px) {
  table:has(th:nth-child(8):last-child) :is(td, th):nth-child(6) { display: none; }
}
@container (max-width: 620px) {
  table:has(th:nth-child(7):last-child) :is(td, th):is(:nth-child(3), :nth-child(5)),
  table:has(th:nth-child(8):last-child) :is(td, th):nth-child(4),
  table:has(th:nth-child(6):last-child) :is(td, th):is(:nth-child(2), :nth-child(4)) { display: none; }
}
@container (max-width: 440px) {
  table:has(th:nth-child(8):last-child) :is(td, th):nth-child(7) { display: none; }
  th, td { padding: .35rem .3rem; }
}
/*
 * A small screen: the page takes the whole width; the panel opens as a sheet over it (its own styles),
 * from its floating button, the one assistant button here (the header's is hidden); buttons a finger can hit.
 */
@media (max-width: 600px) {
  body { grid-template-columns: minmax(0, 1fr); }
  header { padding: .5rem .8rem; gap: .3rem 1rem; }
  header #ask { display: none; }
  main { padding: .8rem .8rem 0; }
  main::after { height: 6.5rem; }
  main button { min-height: 44px; }
  elyra-assistant-panel { position: absolute; width: 0; height: 0; }
}
`;

/**
 * The page: `token` goes in `<meta name="elyra-token">`; `notice`, when
 * given, is the panel's `notice` attribute.
 */
export const shell = (options: { readonly token: string; readonly notice: string | null }) =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="elyra-token" content="${escapeHtml(options.token)}">
<title>Elyra CRM</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<strong>Elyra CRM</strong>
<nav><a href="#/customers" data-nav="customers">Customers</a><a href="#/invoices" data-nav="invoices">Invoices</a></nav>
<button type="button" id="ask">Ask the assistant</button>
<span class="user">Signed in as Ada</span>
</header>
<main id="page" tabindex="-1"></main>
<elyra-assistant-panel${options.notice === null ? "" : ` notice="${escapeHtml(options.notice)}"`}></elyra-assistant-panel>
<script type="module" src="/app.js"></script>
</body>
</html>
`;
