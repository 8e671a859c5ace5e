/**
 * The panel's styles, inside its shadow root. Themed from outside with
 * `--elyra-accent`, `--elyra-bg`, `--elyra-fg`, `--elyra-radius` and
 * `--elyra-font`, which pass into the shadow root.
 */
export const PANEL_CSS = `
:host {
  --_accent: var(--elyra-accent, #4f46e5);
  --_bg: var(--elyra-bg, #ffffff);
  --_fg: var(--elyra-fg, #1f2328);
  --_radius: var(--elyra-radius, 10px);
  --_font: var(--elyra-font, system-ui, -apple-system, "Segoe UI", sans-serif);
  --_muted: color-mix(in srgb, var(--_fg) 60%, transparent);
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
.panel {
  display: flex; flex-direction: column; height: 100%; min-height: 320px; box-sizing: border-box;
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
.stopped { color: var(--_muted); font-style: italic; }
.problem { margin: 0; padding: 0.3em 0.9em; font-size: 0.9em; }
form { display: flex; gap: 0.5em; align-items: flex-end; padding: 0.6em 0.9em; border-top: 1px solid var(--_line); }
textarea {
  flex: 1; resize: none; font: inherit; color: var(--_fg); background: var(--_bg);
  border: 1px solid var(--_line); border-radius: calc(var(--_radius) * 0.6); padding: 0.4em 0.6em;
}
`;
