/**
 * The styles of the panel's list of conversations (threadList.ts), added to
 * the panel's: while open it takes the panel's body, in place of the
 * conversation and the text box.
 */
/**
 * The list's rules, appended to the panel's stylesheet.
 *
 * @example
 * ```ts
 * const PANEL_CSS = `${OWN_CSS}${THREADS_CSS}`;
 * ```
 */
export const THREADS_CSS = `
/* The list of conversations (threadList.ts). */
.threads:not([hidden]) ~ :is(.welcome, .log, .problem, form) { display: none !important; }
header button.threads-button { padding: 0.35em 0.6em; line-height: 1; }
header { container-type: inline-size; }
header button.reset .narrow { display: none; }
/* A header too narrow for New conversation's words (a panel docked at the side, a phone): its glyph. */
@container (max-width: 460px) {
  header button.reset { padding: 0.35em 0.6em; line-height: 1; }
  header button.reset .wide { display: none; }
  header button.reset .narrow { display: inline; font-weight: 600; }
}
header button.threads-button[aria-expanded="true"], .threads button[aria-pressed="true"] { background: var(--_tint); border-color: var(--_accent); }
.threads { flex: 1; overflow-y: auto; padding: 0.6em 0.9em; display: flex; flex-direction: column; gap: 0.5em; }
.threads .top, .threads .tools, .thread .actions { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5em; }
.threads h3 { font-size: 1em; margin: 0; flex: 1; }
.threads p { margin: 0; }
.threads input {
  flex: 1; min-width: 0; font: inherit; color: var(--_fg); background: var(--_bg);
  border: 1px solid var(--_line); border-radius: calc(var(--_radius) * 0.6); padding: 0.35em 0.6em;
}
.threads-status { color: var(--_muted); font-size: 0.9em; }
.threads-problem { color: #cf222e; }
ul.thread-list { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 0.4em; }
.thread { display: flex; flex-direction: column; gap: 0.25em; padding: 0.45em 0.6em; border: 1px solid var(--_line); border-radius: var(--_radius); }
.thread.current { border-color: var(--_accent); }
.thread button.open { align-self: stretch; text-align: left; font-weight: 600; border: 0; padding: 0.1em 0; background: none; overflow-wrap: anywhere; }
.thread .meta, .thread .preview, .thread .hint { display: block; color: var(--_muted); font-size: 0.85em; overflow-wrap: anywhere; }
.thread .actions button { font-size: 0.85em; padding: 0.15em 0.6em; }
.thread .confirm h4 { font-size: 1em; margin: 0 0 0.3em; }
.thread .confirm p { margin: 0 0 0.4em; }
.threads [aria-disabled="true"] { opacity: 0.5; cursor: default; }
@media (max-width: 600px) {
  .threads button { min-height: 44px; }
  .threads input { font-size: 16px; }
  header button.threads-button, header button.reset { min-width: 44px; }
}
`;
