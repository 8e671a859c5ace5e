/** Where a tool step may point: only into the app, as a hash route (U2). */
import { isAppPath } from "../../runtime/commands/link.ts";

/**
 * The `href` for a step's link: `#` and the app path, or undefined for a link
 * that is not an app path (`javascript:`, `//evil`, `https://evil`, `/\evil`,
 * whitespace or control characters) and for a step that did not succeed. A
 * `#…` href only changes the fragment, so following it never leaves the page.
 *
 * @example
 * ```ts
 * stepHref({ ok: true, link: "/invoices/7" }); // "#/invoices/7"
 * stepHref({ ok: true, link: "https://evil.example" }); // undefined
 * stepHref({ ok: false, link: "/invoices/7" }); // undefined
 * ```
 */
export const stepHref = (step: {
  readonly ok?: boolean;
  readonly link?: string;
}): string | undefined =>
  step.ok === true && typeof step.link === "string" && isAppPath(step.link)
    ? `#${step.link}`
    : undefined;
