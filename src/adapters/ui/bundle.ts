/**
 * elyra-assistant/ui/bundle.js: `elyra-assistant/ui` prebuilt for a page with
 * no bundler. The library build bundles this entry with everything it
 * imports into one minified ES module, with no import left in it: a page
 * loads it with `<script type="module">` or imports it from its own module,
 * and loading it defines `<elyra-assistant-panel>`. It exports what
 * `elyra-assistant/ui` does; use one or the other in a page, not both (each
 * keeps its own installed store).
 *
 * @packageDocumentation
 */
export * from "../../ui.ts";
