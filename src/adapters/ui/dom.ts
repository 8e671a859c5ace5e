/**
 * Building DOM from data with text nodes only: strings become text nodes and
 * attribute values are set one by one, so nothing from the model is ever
 * parsed as HTML (U1).
 */

export type Child = Node | string | false | null | undefined;

/** An element with `attributes` (undefined ones left out) and `children` (strings as text nodes). */
export const h = <K extends keyof HTMLElementTagNameMap>(
  doc: Document,
  tag: K,
  attributes: Readonly<Record<string, string | undefined>> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] => {
  const element = doc.createElement(tag);
  for (const [name, value] of Object.entries(attributes))
    if (value !== undefined) element.setAttribute(name, value);
  for (const child of children) {
    if (child === false || child === null || child === undefined) continue;
    element.append(typeof child === "string" ? doc.createTextNode(child) : child);
  }
  return element;
};
