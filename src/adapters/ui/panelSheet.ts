/**
 * The panel's styles in its shadow root, as a constructed stylesheet
 * (`adoptedStyleSheets`) made once per document and shared by every panel
 * in it. No `<style>` element and no `style` attribute: a page's
 * Content-Security-Policy need not allow `'unsafe-inline'` styles. A browser
 * that cannot construct one gets a `<style>` element in the root instead.
 */
import { h } from "./dom.ts";
import { PANEL_CSS } from "./panelStyle.ts";

const sheets = new WeakMap<Document, CSSStyleSheet>();

/** Gives `root` the panel's styles: the document's shared sheet, else a `<style>` first in it. */
export const adoptPanelStyles = (root: ShadowRoot): void => {
  const doc = root.ownerDocument;
  const Sheet = doc.defaultView?.CSSStyleSheet;
  if (
    Sheet === undefined ||
    !("adoptedStyleSheets" in root) ||
    typeof Sheet.prototype.replaceSync !== "function"
  ) {
    root.prepend(h(doc, "style", {}, PANEL_CSS));
    return;
  }
  let sheet = sheets.get(doc);
  if (sheet === undefined) {
    sheet = new Sheet();
    sheet.replaceSync(PANEL_CSS);
    sheets.set(doc, sheet);
  }
  if (!root.adoptedStyleSheets.includes(sheet))
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
};
