/**
 * The panel's styles, inside its shadow root. Themed from outside with
 * `--elyra-accent`, `--elyra-bg`, `--elyra-fg`, `--elyra-radius` and
 * `--elyra-font`, which pass into the shadow root; laid out with
 * `--elyra-panel-width` (the open panel's width: its container's unless set)
 * and `--elyra-launcher-position` (`fixed` floats the closed panel's launcher
 * in the window's corner, so the panel takes no room while closed). Under
 * 600 px wide the open panel is a sheet over the whole window and the
 * launcher floats in the corner.
 */
import { THREADS_CSS } from "./threadStyle.ts";
import { WELCOME_CSS } from "./welcome.ts";

export const PANEL_CSS = `
:host {
  --_accent: var(--elyra-accent, #4f46e5);
  --_bg: var(--elyra-bg, #ffffff);
  --_fg: var(--elyra-fg, #1f2328);
  --_radius: var(--elyra-radius, 10px);
  --_font: var(--elyra-font, system-ui, -apple-system, "Segoe UI", sans-serif);
  --_muted: color-mix(in srgb, var(--_fg) 72%, transparent);
  --_line: color-mix(in srgb, var(--_fg) 15%, transparent);
  --_tint: color-mix(in srgb, var(--_accent) 10%, var(--_bg));
  display: block;
  font: 14px/1.45 var(--_font);
  color: var(--_fg);
}
[hidden] { display: none !important; }
button {
  font: inherit; cursor: pointer; border-radius: calc(var(--_radius) * 0.6);
  border: 1px solid var(--_line); background: var(--_bg); color: var(--_fg); padding: 0.35em 0.9em;
}
button.primary, button.accept, .launcher { background: var(--_accent); border-color: var(--_accent); color: #fff; }
button:disabled { opacity: 0.5; cursor: default; }
.launcher .badge {
  display: inline-block; min-width: 1.3em; margin-left: 0.5em; padding: 0 0.35em; box-sizing: border-box;
  border-radius: 1em; background: #fff; color: #7a1f00; font-weight: 700; font-size: 0.85em; text-align: center;
}
:focus-visible { outline: 2px solid var(--_accent); outline-offset: 2px; }
.launcher {
  position: var(--elyra-launcher-position, static); right: 1.25rem; bottom: 1.25rem; z-index: 2147483000;
}
.panel {
  display: flex; flex-direction: column; width: var(--elyra-panel-width, auto); height: 100%;
  min-height: 320px; box-sizing: border-box;
  background: var(--_bg); border: 1px solid var(--_line); border-radius: var(--_radius); overflow: hidden;
}
.notice { padding: 0.5em 0.9em; background: var(--_tint); border-bottom: 1px solid var(--_line); font-size: 0.9em; }
header { display: flex; align-items: center; gap: 0.5em; padding: 0.5em 0.9em; border-bottom: 1px solid var(--_line); }
header h2 { font-size: 1em; margin: 0; flex: 1; }
.connection { color: var(--_muted); font-size: 0.85em; }
.log { flex: 1; overflow-y: auto; padding: 0.75em 0.9em; display: flex; flex-direction: column; gap: 0.5em; }
.item { max-width: 100%; white-space: pre-wrap; overflow-wrap: anywhere; }
.user { align-self: flex-end; background: var(--_accent); color: #fff; padding: 0.4em 0.75em; border-radius: var(--_radius); }
.answer { align-self: flex-start; background: var(--_tint); padding: 0.4em 0.75em; border-radius: var(--_radius); }
.caret { display: inline-block; width: 0.5em; height: 1em; margin-left: 1px; vertical-align: text-bottom; background: currentColor; animation: blink 1s steps(1) infinite; }
@keyframes blink { 50% { opacity: 0; } }
@media (prefers-reduced-motion: reduce) { .caret { animation: none; } }
.step { color: var(--_muted); font-size: 0.9em; }
.step .mark { display: inline-block; width: 0.6em; height: 0.6em; border-radius: 50%; margin-right: 0.4em; background: var(--_line); }
.step.ok .mark { background: #1a7f37; }
.step.failed .mark { background: #cf222e; }
.step a { color: var(--_accent); }
.confirm { border: 1px solid var(--_accent); border-radius: var(--_radius); padding: 0.6em 0.8em; white-space: normal; }
.confirm h3 { font-size: 1em; margin: 0 0 0.3em; }
.confirm .description { margin: 0 0 0.4em; }
.confirm .buttons { display: flex; gap: 0.5em; }
pre { margin: 0.3em 0; padding: 0.5em; background: color-mix(in srgb, var(--_fg) 5%, var(--_bg)); border-radius: calc(var(--_radius) * 0.6); overflow-x: auto; white-space: pre; font-size: 0.85em; }
.script summary { cursor: pointer; color: var(--_muted); font-size: 0.9em; }
.script .calls { margin: 0.3em 0; padding-left: 1.4em; }
.error, .problem { color: #cf222e; }
.item.error .retry { display: block; margin-top: 0.4em; color: var(--_fg, inherit); }
.stopped { color: var(--_muted); font-style: italic; }
.summarised { color: var(--_muted); font-size: 0.85em; text-align: center; border-top: 1px dashed currentColor; padding-top: 0.4em; }
.problem { margin: 0; padding: 0.3em 0.9em; font-size: 0.9em; }
form { display: flex; gap: 0.5em; align-items: flex-end; padding: 0.6em 0.9em; border-top: 1px solid var(--_line); }
textarea {
  flex: 1; resize: none; font: inherit; color: var(--_fg); background: var(--_bg);
  border: 1px solid var(--_line); border-radius: calc(var(--_radius) * 0.6); padding: 0.4em 0.6em;
}
/* A small screen: the open panel is a sheet over the whole window, its close button easy to hit. */
@media (max-width: 600px) {
  .launcher { position: fixed; min-height: 44px; box-shadow: 0 2px 8px rgb(0 0 0 / 0.25); }
  .panel {
    position: fixed; inset: 0; z-index: 2147483000; width: auto; height: auto; min-height: 0;
    border: 0; border-radius: 0;
  }
  header button { min-height: 44px; }
  header button.close { min-width: 44px; font-size: 1.3em; line-height: 1; }
  textarea { font-size: 16px; }
}
/* Settings: bring your own key (panelSettings.ts). */
header button.settings-button, header button.usage-button { padding: 0.35em 0.6em; line-height: 1; }
header button.usage-button[aria-expanded="true"] { background: var(--_tint); border-color: var(--_accent); }
.usage { margin: 0; padding: 0.4em 0.8em; font-size: 0.85em; color: var(--_muted); border-bottom: 1px solid var(--_line); }
.usage:empty { padding: 0; border: 0; }
.usage.low { color: inherit; background: var(--_tint); }
header button.settings-button[aria-expanded="true"] { background: var(--_tint); border-color: var(--_accent); }
.settings {
  padding: 0.6em 0.9em; border-bottom: 1px solid var(--_line); background: color-mix(in srgb, var(--_fg) 3%, var(--_bg));
  display: flex; flex-direction: column; gap: 0.45em; max-height: 60%; overflow-y: auto;
}
.settings h3 { font-size: 1em; margin: 0; }
.settings p { margin: 0; }
.settings .source-name { font-weight: 600; }
.settings form.key-form { display: flex; flex-direction: column; align-items: stretch; gap: 0.3em; padding: 0; border: 0; }
.settings .key-row { display: flex; gap: 0.5em; }
.settings input {
  flex: 1; min-width: 0; font: inherit; color: var(--_fg); background: var(--_bg);
  border: 1px solid var(--_line); border-radius: calc(var(--_radius) * 0.6); padding: 0.35em 0.6em;
}
.settings .hint { color: var(--_muted); font-size: 0.85em; }
.settings button.forget { align-self: flex-start; }
.settings button[aria-disabled="true"] { opacity: 0.5; cursor: default; }
.settings-problem { color: #cf222e; }
@media (max-width: 600px) {
  .settings input { font-size: 16px; }
  .settings button { min-height: 44px; }
  header button.settings-button, header button.usage-button { min-width: 44px; }
}
/* The confirmation: a destructive accept button, the fields the user may change, what to fix. */
button.accept.destructive { background: #b42318; border-color: #b42318; color: #fff; }
.confirm.destructive { border-color: #b42318; }
.confirm h3.label { font-weight: 600; }
.confirm .about { color: var(--_muted); font-size: 0.9em; margin: 0.4em 0 0; }
.confirm h3.label.asked { font-weight: 400; color: var(--_muted); }
.confirm ul.changes { margin: 0 0 0.4em; padding-left: 1.2em; }
.confirm ul.changes .name { font-weight: 600; }
.confirm ul.changes .was { color: var(--_muted); }
.confirm fieldset.edit { border: 1px solid var(--_line); border-radius: calc(var(--_radius) * 0.6); margin: 0 0 0.5em; padding: 0.3em 0.6em 0.5em; }
.confirm fieldset.edit legend { padding: 0 0.3em; color: var(--_muted); font-size: 0.9em; }
.confirm fieldset.edit div { display: flex; flex-wrap: wrap; align-items: center; gap: 0.2em 0.6em; margin-top: 0.3em; }
.confirm fieldset.edit label { min-width: 6em; }
.confirm fieldset.edit input:not([type="checkbox"]), .confirm fieldset.edit textarea {
  flex: 1 1 8em; min-width: 0; font: inherit; color: var(--_fg); background: var(--_bg);
  border: 1px solid var(--_line); border-radius: calc(var(--_radius) * 0.4); padding: 0.25em 0.4em;
}
.confirm [aria-invalid="true"] { border-color: #b42318; outline: 1px solid #b42318; }
.confirm .issues { color: #b42318; margin: 0 0 0.5em; }
.confirm .issues ul { margin: 0; padding-left: 1.2em; }
@media (max-width: 600px) {
  .confirm fieldset.edit input:not([type="checkbox"]), .confirm fieldset.edit textarea { font-size: 16px; }
  .confirm .buttons button { min-height: 44px; }
}
${WELCOME_CSS}${THREADS_CSS}`;
