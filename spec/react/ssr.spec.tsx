// @vitest-environment node
/**
 * Server rendering: in Node with no `window` or `document`, the entry
 * imports and the docs' panel renders to HTML with `react-dom/server`,
 * opening no stream and sending no request; a live query waits for the
 * browser.
 */
import { AssistantProvider, assistantClient, useLiveQuery } from "elyra-assistant/react";
import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { fakeClient } from "../ui/fixtures.ts";
import { App } from "./examples/panel.tsx";

function Name() {
  const { result } = useLiveQuery("customers_show", { id: 42 });
  return <span>{result === undefined ? "…" : "known"}</span>;
}

describe("on a server", () => {
  it("has no window to touch", () => {
    expect(typeof window).toBe("undefined");
    expect(typeof document).toBe("undefined");
    expect(typeof customElements).toBe("undefined");
  });

  it("renders the panel to HTML, opening nothing", () => {
    const fake = fakeClient();
    const html = renderToString(<App client={fake.client} />);
    expect(html).toContain('<aside aria-label="Assistant">');
    expect(html).toContain('aria-label="Ask the assistant"');
    expect(html).toContain(">Send</button>");
    expect(fake.streams).toEqual([]);
    expect(fake.calls).toEqual([]);
  });

  it("renders a live query as not yet known, with the real client, fetching nothing", () => {
    const fetched: string[] = [];
    const client = assistantClient({
      token: "t",
      clientId: "tab-1",
      fetch: async (input) => {
        fetched.push(String(input));
        return new Response(null, { status: 204 });
      },
    });
    const html = renderToString(
      <AssistantProvider client={client}>
        <Name />
      </AssistantProvider>,
    );
    expect(html).toBe("<span>…</span>");
    expect(fetched).toEqual([]);
  });
});
